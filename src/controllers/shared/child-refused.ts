// A child object the API server refuses to write: invalid (422, for example a Deployment with
// `replicas: -1` or a Service port above 65535, which the CRD schema let through), malformed (400) or
// forbidden (403, RBAC or an admission policy). Retrying the same write cannot succeed, so the owner
// reports it: SpecValid False with reason ChildRefused, naming the child, the fields and the API
// server's message, a Warning Event, and observedGeneration so `kubectl wait` sees the status is current.
import { SpecValidCondition } from '../../../generated/types/conditions.ts';
import { KubeApiError } from '../../runtime/kube-http.ts';
import { scrubSecrets } from '../../runtime/redaction.ts';
import type { ResourceKind } from '../../runtime/resource.ts';
import type { EventRecorder } from '../../runtime/events.ts';
import { eventTarget } from './event-target.ts';
import { invalidSpec, SpecError, type SpecOutcome, type SpecValid, type ValidatedObject } from './spec-check.ts';

const refusedCodes = new Set([400, 403, 422]);
const writeMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
// A refusal may end when an admin changes RBAC or an admission policy; nothing tells the operator when.
const refusedRetryMs = 5 * 60_000;

/**
 * The condition message for `err` when it is the API server refusing a write of a child of `owner`
 * (not of the owner itself: its status and finalizer writes are not children), else undefined.
 */
export function childRefusalMessage(err: unknown, owner: ResourceKind): string | undefined {
  if (!(err instanceof KubeApiError) || !refusedCodes.has(err.code) || !writeMethods.has(err.method)) return undefined;
  if (err.path.includes(`/${owner.plural}/`)) return undefined;
  const fields = [...new Set((err.status.details?.causes ?? []).flatMap((c) => (c.field ? [c.field] : [])))];
  const named = fields.length ? ` (field${fields.length === 1 ? '' : 's'} ${fields.join(', ')})` : '';
  const message = err.status.message ?? `${err.code} ${err.status.reason ?? ''}`.trim();
  // The API server may quote the refused value; a value built from the spec may hold a secret.
  return scrubSecrets(
    `The API server refused a child object${named}: ${message}. Change the spec so the object is valid; retried every 5 minutes otherwise.`,
  );
}

/**
 * What a step's error means for the kinds that build children from their spec: a spec no builder can use
 * (SpecError) or a child the API server refuses, as SpecValid False with a Warning Event (the steps stop and
 * the rest of the status keeps describing what runs); undefined for any other error.
 */
export async function refusedSpec<Status>(
  deps: { events: Pick<EventRecorder, 'record'> },
  owner: ResourceKind,
  obj: ValidatedObject,
  err: unknown,
): Promise<SpecOutcome<Status> | undefined> {
  if (err instanceof SpecError) return invalidSpec<Status>(deps, obj, err.message);
  const message = childRefusalMessage(err, owner);
  if (!message) return undefined;
  await deps.events.record(eventTarget(obj), 'Warning', SpecValidCondition.reasons.ChildRefused, 'ApplyChildren', message);
  const refused: SpecValid = { type: SpecValidCondition.type, status: 'False', reason: SpecValidCondition.reasons.ChildRefused, message };
  return { conditions: { [SpecValidCondition.type]: refused }, conditionsOnly: true, stop: true, requeueAfterMs: refusedRetryMs };
}
