// A Secret whose consent is gone must not reach another pod: the owner's Deployment is deleted
// while its pod template still hands such a Secret on, with a Warning Event saying why.
import type { V1Deployment } from '@kubernetes/client-node';
import type { EventRecorder } from '../../../runtime/events.ts';
import type { KubeObject } from '../../../runtime/informer.ts';
import { isControllerOwnedBy, type OwnerIdentity } from '../../../runtime/ownership.ts';
import { builtinResources } from '../../../runtime/resource.ts';
import type { Writer } from '../../../runtime/writer.ts';
import { eventTarget } from '../event-target.ts';
import { secretsReferencedBy } from './pod-spec.ts';

/**
 * Deletes `cached` (the owner's Deployment as the cache has it) when the owner controls it and its pods
 * receive one of `refused`; returns whether it deleted. `pods` names the owner's kind in the Event
 * ("provisioner"), `action` is the Event's action.
 */
export async function removeDeploymentReferencing(
  deps: { writer: Writer; events: Pick<EventRecorder, 'record'> },
  owner: OwnerIdentity & KubeObject,
  cached: V1Deployment | undefined,
  refused: ReadonlySet<string>,
  event: { pods: string; action: string },
): Promise<boolean> {
  if (!cached || !isControllerOwnedBy(cached, owner) || ![...secretsReferencedBy(cached)].some((name) => refused.has(name))) return false;
  // By UID: a same-named Deployment made since the cache saw this one is not the owner's to delete.
  if (!(await deps.writer.deleteExactly(builtinResources.deployment, cached))) return false;
  await deps.events.record(
    eventTarget(owner),
    'Warning',
    'DeploymentRemoved',
    event.action,
    `The ${event.pods} Deployment was deleted: its pods referenced a Secret this ${event.pods} may not use.`,
  );
  return true;
}
