// What the CoderControlPlane reconcile steps share: caches, writers and the outside systems they call.
import type { V1Deployment, V1Ingress, V1Role, V1RoleBinding, V1Secret, V1Service, V1ServiceAccount } from '@kubernetes/client-node';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import type { CoderClient } from '../../coder/client.ts';
import type { Applier } from '../../runtime/apply.ts';
import type { Cache } from '../../runtime/cache.ts';
import type { EventRecorder } from '../../runtime/events.ts';
import type { KubeHttp } from '../../runtime/kube-http.ts';

type Cached<T> = Cache<T & { metadata?: { name?: string; namespace?: string } }>;

export interface OperatorAccessBackend {
  ensure(input: { postgresURL: string; existingToken?: string; tokenName: string; lifetimeSeconds: number }): Promise<{ token: string; rotated: boolean }>;
  revoke(input: { postgresURL: string; tokenName: string }): Promise<{ deleted: number }>;
}

export interface ControlPlaneContext {
  http: KubeHttp;
  applier: Applier;
  events: EventRecorder;
  caches: {
    controlPlanes: Cache<CoderControlPlane>;
    secrets: Cached<V1Secret>;
    deployments: Cached<V1Deployment>;
    services: Cached<V1Service>;
    serviceAccounts: Cached<V1ServiceAccount>;
    roles: Cached<V1Role>;
    roleBindings: Cached<V1RoleBinding>;
    ingresses: Cached<V1Ingress>;
  };
  /** Whether the API server serves gateway.networking.k8s.io/v1 HTTPRoute (asked again each time). */
  httpRouteServed(): Promise<boolean>;
  /** A Coder client for the control plane's in-cluster Service (overridable in tests). */
  coderClient(cp: CoderControlPlane, token: string): CoderClient;
  operatorAccess: OperatorAccessBackend;
  now(): Date;
}

/** The Event target of a control plane. */
export function eventTarget(cp: CoderControlPlane) {
  return {
    apiVersion: cp.apiVersion, kind: cp.kind, name: cp.metadata.name!, namespace: cp.metadata.namespace!,
    uid: cp.metadata.uid!, resourceVersion: cp.metadata.resourceVersion,
  };
}
