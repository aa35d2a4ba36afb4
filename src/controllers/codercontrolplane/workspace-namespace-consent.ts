// Whether a namespace other than the control plane's own consents to receiving its workspace Role and
// RoleBinding: without consent, whoever may create a control plane could obtain any Role in any
// namespace through the operator.
import type { V1Namespace } from '@kubernetes/client-node';
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import { isTerminating } from '../../runtime/namespace-terminating.ts';

const workspaceNamespaceLabel = 'coder.com/workspace-namespace';
const workspaceNamespaceLabelValue = 'true';
const workspaceControlPlanesAnnotation = 'coder.com/workspace-control-planes';

export type WorkspaceNamespaceConsent = { consented: true } | { consented: false; message: string };

/** The annotation entry that names a control plane: `<namespace>/<name>`. */
function controlPlaneEntry(cp: CoderControlPlane): string {
  return `${cp.metadata.namespace ?? ''}/${cp.metadata.name ?? ''}`;
}

/**
 * Whether the annotation lists the control plane: an entry `*`, `<namespace>/*` or `<namespace>/<name>`.
 * Entries are compared exactly after trimming, so whoever audits consent by searching for the entry sees
 * every grant.
 */
export function listsControlPlane(annotation: string | undefined, cp: CoderControlPlane): boolean {
  const entries = (annotation ?? '').split(',').map((e) => e.trim());
  return entries.some((e) => e === '*' || e === `${cp.metadata.namespace}/*` || e === controlPlaneEntry(cp));
}

/** The consent of `namespace` (its cached object, undefined when it does not exist) to `cp`'s workspace RBAC. */
export function workspaceNamespaceConsent(
  cp: CoderControlPlane,
  name: string,
  namespace: V1Namespace | undefined,
): WorkspaceNamespaceConsent {
  if (name === cp.metadata.namespace) return { consented: true };
  const entry = controlPlaneEntry(cp);
  const howTo =
    `label it ${workspaceNamespaceLabel}=${workspaceNamespaceLabelValue} and list "${entry}" ` +
    `in its annotation ${workspaceControlPlanesAnnotation}`;
  if (!namespace) return { consented: false, message: `namespace "${name}" does not exist; create it, then ${howTo}` };
  // The API server refuses every create there, and what exists goes with it.
  if (isTerminating(namespace)) return { consented: false, message: `namespace "${name}", which is being deleted` };
  if (namespace.metadata?.labels?.[workspaceNamespaceLabel] !== workspaceNamespaceLabelValue) {
    return {
      consented: false,
      message: `namespace "${name}" lacks the label ${workspaceNamespaceLabel}=${workspaceNamespaceLabelValue}; ${howTo}`,
    };
  }
  if (!listsControlPlane(namespace.metadata?.annotations?.[workspaceControlPlanesAnnotation], cp)) {
    return {
      consented: false,
      message: `namespace "${name}" has the label, but its annotation ${workspaceControlPlanesAnnotation} does not list "${entry}" (or "*"); add it`,
    };
  }
  return { consented: true };
}
