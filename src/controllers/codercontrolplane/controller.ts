// CoderControlPlane controller wiring: the caches it reads, what it owns, and the indexes that map a Secret to
// every control plane that names it (database, license, envFrom, legacy extraEnv) and a ConfigMap to those whose
// envFrom names it, so a change reconciles them at once instead of by polling; and the index from a namespace
// to the control planes that want workspace RBAC there, so a namespace that gives or withdraws consent takes
// effect at once; and the index from an operator token Secret's name to its control plane, so a Secret it may
// not use that goes is replaced at once.
import type { V1Namespace, V1Role, V1RoleBinding, V1Secret } from '@kubernetes/client-node';
import { coderControlPlaneResource } from '../../../generated/clients/codercontrolplane.ts';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import { requestKey } from '../../runtime/controller.ts';
import { operatorTokenSecretName } from '../../controlplane/endpoints.ts';
import { builtinResources } from '../../runtime/resource.ts';
import type { ControllerSetup } from '../shared/deps.ts';
import { pgConnectionUrlEnv } from './desired/env.ts';
import type { ControlPlaneContext } from './context.ts';
import { FirstStatusHold } from '../shared/reconcile/first-status.ts';
import { reconcilerLoadingKind } from '../shared/reconcile/kind.ts';
import { watchReferences } from '../shared/reference-watches.ts';
import { childDrift, deploymentDrift, ownWritesIgnored } from '../shared/event-filters.ts';
import { workspaceRbacOwnerIndex, workspaceRbacOwnerKeys } from './desired/workspace-rbac.ts';
import { controlPlaneNamed, ownerDependentKinds, type ControlPlaneDependent } from './operator-roles.ts';
import { controlPlaneFinalizer } from '../shared/finalizers.ts';

const controllerName = 'codercontrolplane';
/** How long a new control plane's first status waits for its Deployment's first ready pod (first-status.ts). */
const firstStatusHoldMs = 2_000;
const workspaceNamespaceIndex = 'workspace-namespaces';
const operatorTokenSecretIndex = 'operator-token-secret';

/** `<namespace>/<name>` of the operator token Secret while operator access is on. */
function operatorTokenSecretKeys(cp: CoderControlPlane): string[] {
  return cp.spec?.operatorAccess?.disabled ? [] : [`${cp.metadata.namespace}/${operatorTokenSecretName(cp)}`];
}

/** A Secret some CoderControlPlane controls: its changes come through owns(), filtered for the operator's own writes. */
function controlledByControlPlane(secret: V1Secret): boolean {
  return secret.metadata?.ownerReferences?.some((r) => r.controller && r.kind === coderControlPlaneResource.kind) === true;
}

/** Every Secret a control plane reads: database, license, envFrom and the legacy extraEnv database URL. */
export function referencedSecrets(cp: CoderControlPlane): (string | undefined)[] {
  return [
    cp.spec?.database && cp.spec.database.connectionSecretRef.name,
    cp.spec?.licenseSecretRef?.name,
    ...(cp.spec?.envFrom ?? []).map((source) => source.secretRef?.name),
    ...(cp.spec?.extraEnv ?? []).map((env) => (env.name === pgConnectionUrlEnv ? env.valueFrom?.secretKeyRef?.name : undefined)),
  ];
}

/** Every ConfigMap a control plane reads: the envFrom sources, for whether one defines CODER_ACCESS_URL. */
export function referencedConfigMaps(cp: CoderControlPlane): (string | undefined)[] {
  return (cp.spec?.envFrom ?? []).map((source) => source.configMapRef?.name);
}

/** The namespaces other than its own where a control plane asks for workspace RBAC (never throws: blank entries are skipped). */
function requestedWorkspaceNamespaces(cp: CoderControlPlane): string[] {
  const own = cp.metadata.namespace;
  const names = (cp.spec?.rbac?.workspaceNamespaces ?? []).map((ns) => ns.trim()).filter((ns) => ns && ns !== own);
  return [...new Set(names)];
}

/** Of an update only a change of spec.controlPlaneRef matters here (an object being deleted still counts), not its status writes. */
const controlPlaneRefChanged = {
  update: (old: ControlPlaneDependent, next: ControlPlaneDependent) => controlPlaneNamed(old) !== controlPlaneNamed(next),
};

export const setup: ControllerSetup = (manager, deps) => {
  const controlPlanes = manager.cache<CoderControlPlane>(coderControlPlaneResource);
  controlPlanes.addIndex(workspaceNamespaceIndex, requestedWorkspaceNamespaces);
  controlPlanes.addIndex(operatorTokenSecretIndex, operatorTokenSecretKeys);
  const ownerDependents = new Map(ownerDependentKinds.map((kind) => [kind, manager.cache<ControlPlaneDependent>(kind)]));
  const ctx: ControlPlaneContext = {
    ...deps,
    firstStatusHold: new FirstStatusHold(firstStatusHoldMs),
    caches: {
      controlPlanes,
      secrets: manager.cache(builtinResources.secret),
      deployments: manager.cache(builtinResources.deployment),
      services: manager.cache(builtinResources.service),
      serviceAccounts: manager.cache(builtinResources.serviceAccount),
      roles: manager.cache(builtinResources.role),
      roleBindings: manager.cache(builtinResources.roleBinding),
      ingresses: manager.cache(builtinResources.ingress),
      namespaces: manager.cache(builtinResources.namespace),
      ownerDependents,
    },
  };
  // Every replica serves metrics, leader or not: the gauge reads the status the leader wrote.
  deps.metrics?.reportOperatorAccess(() =>
    controlPlanes
      .list()
      .map((cp) => ({ namespace: cp.metadata.namespace!, name: cp.metadata.name!, ready: cp.status?.operatorAccessReady === true })),
  );
  ctx.caches.roles.addIndex(workspaceRbacOwnerIndex, workspaceRbacOwnerKeys);
  ctx.caches.roleBindings.addIndex(workspaceRbacOwnerIndex, workspaceRbacOwnerKeys);
  const builder = manager
    .controller(controllerName)
    .for(coderControlPlaneResource, ownWritesIgnored(controlPlaneFinalizer))
    .owns(builtinResources.deployment, deploymentDrift)
    .owns(builtinResources.service, childDrift)
    .owns(builtinResources.serviceAccount, childDrift)
    .owns(builtinResources.ingress, childDrift)
    // Watched once the Gateway API CRDs are installed, even after the operator started (resource.ts servedOptionally).
    .owns(builtinResources.httpRoute, childDrift)
    .owns(builtinResources.secret, childDrift)
    .watches<V1Role>(builtinResources.role, workspaceRbacOwnerKeys, childDrift)
    .watches<V1RoleBinding>(builtinResources.roleBinding, workspaceRbacOwnerKeys, childDrift)
    // A token Secret the control plane may not use (TokenSecretNotOwned) that goes or changes is checked again at
    // once, not only at the next re-check.
    .watches<V1Secret>(builtinResources.secret, (secret) =>
      controlledByControlPlane(secret)
        ? []
        : controlPlanes
            .byIndex(operatorTokenSecretIndex, `${secret.metadata?.namespace}/${secret.metadata?.name}`)
            .map((cp) => requestKey(cp.metadata.namespace, cp.metadata.name!)),
    )
    .watches<V1Namespace>(builtinResources.namespace, (ns) =>
      controlPlanes
        .byIndex(workspaceNamespaceIndex, ns.metadata?.name ?? '')
        .map((cp) => requestKey(cp.metadata.namespace, cp.metadata.name!)),
    );
  watchReferences(builder, controlPlanes, { secrets: referencedSecrets, configMaps: referencedConfigMaps });
  // An object that appears, goes or names another control plane changes the roles the operator user needs.
  for (const kind of ownerDependentKinds) {
    builder.watches<ControlPlaneDependent>(
      kind,
      (obj) => {
        const name = controlPlaneNamed(obj);
        return name ? [requestKey(obj.metadata?.namespace, name)] : [];
      },
      controlPlaneRefChanged,
    );
  }
  return builder.build(reconcilerLoadingKind(ctx, async () => (await import('./reconcile.ts')).controlPlaneKind));
};
