// Every finalizer the operator puts on its objects. Each holds an object's deletion until what it names is
// cleaned up. The controllers' wiring needs the names at start-up; the steps that remove them load with a
// kind's first reconcile (reconcilerLoadingKind in reconcile/kind.ts), so the names live apart from those steps.

/** CoderControlPlane: the workspace RBAC it made in other namespaces is deleted first. */
export const controlPlaneFinalizer = 'coder.com/workspace-rbac-cleanup';

/** CoderProvisioner: the provisioner key it created in Coder is deleted first. */
export const keyCleanupFinalizer = 'coder.com/provisioner-key-cleanup';

/** CoderWorkspaceProxy: the proxy it registered in Coder is deregistered first. */
export const deregistrationFinalizer = 'coder.com/workspace-proxy-deregistration';

/** The kinds kept in Coder (AI providers, AI Gateway keys, MCP servers): their object in Coder is handled first, as spec.deletionPolicy says. */
export const coderObjectFinalizer = 'coder.com/cleanup';
