// The events worth a reconcile for a controller that owns children. Children it creates need none for
// their creation (the reconcile that made them knows them) nor for status and Kubernetes' bookkeeping
// annotations, except a Deployment's ready replicas, which its owner's status reports; the owner's own
// status and finalizer writes need none either (runtime/event-filter.ts says what counts).
import type { V1Deployment } from '@kubernetes/client-node';
import { changedBeyondStatus, isKubernetesAnnotation, primaryChanged, type EventFilter } from '../../runtime/event-filter.ts';
import type { KubeObject } from '../../runtime/informer.ts';
import { readyReplicas } from './workload/deployment-ready.ts';

/** For the controller's own kind, whose reconcile keeps `finalizer` on it. */
export const ownWritesIgnored = <T extends KubeObject>(finalizer: string): EventFilter<T> => ({ update: primaryChanged<T>(finalizer) });

export const childDrift: EventFilter<KubeObject> = {
  create: false,
  update: (o, n) => changedBeyondStatus(o, n, isKubernetesAnnotation),
};

export const deploymentDrift: EventFilter<V1Deployment> = {
  create: false,
  update: (o, n) => readyReplicas(o) !== readyReplicas(n) || changedBeyondStatus(o, n, isKubernetesAnnotation),
};
