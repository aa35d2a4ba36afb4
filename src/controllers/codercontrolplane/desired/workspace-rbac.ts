// The desired workspace Roles and RoleBindings, their names and labels, and which existing ones count as
// this control plane's.
import type { V1ObjectMeta, V1PolicyRule, V1Role, V1RoleBinding } from '@kubernetes/client-node';
import { isControllerOwnedBy } from '../../../runtime/ownership.ts';
import type { CoderControlPlane } from '../../../../generated/types/codercontrolplane.ts';
import { controlPlaneLabels, nameOf, namespaceOf, serviceAccountName } from './names.ts';
import { SpecError } from '../../shared/spec-check.ts';
import { coderControlPlaneResource } from '../../../../generated/clients/codercontrolplane.ts';
import { controllerOwnerReference, fitName, fnv32a } from '../../../runtime/object-names.ts';

export const controlPlaneLabel = 'coder.com/control-plane';
export const controlPlaneNamespaceLabel = 'coder.com/control-plane-namespace';
const workspaceRbacOwnerUidAnnotation = 'coder.com/workspace-rbac-owner-uid';

const rbacGroup = 'rbac.authorization.k8s.io';
const workspaceVerbs = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

/**
 * The hash that makes workspace RBAC names unique per control plane: a shared workspace namespace
 * may hold the Roles of several control planes that use the same ServiceAccount name.
 */
export function workspaceScopeHash(cp: CoderControlPlane): string {
  return fnv32a(`${namespaceOf(cp)}\0${nameOf(cp)}`);
}

/** `<sa>-<hash>-workspace-perms`; the same in every target namespace. */
export function workspaceRoleName(cp: CoderControlPlane): string {
  return fitName(serviceAccountName(cp), `-${workspaceScopeHash(cp)}-workspace-perms`, 'workspace');
}

/** `<sa>-<hash>`; the same in every target namespace. */
export function workspaceRoleBindingName(cp: CoderControlPlane): string {
  return fitName(serviceAccountName(cp), `-${workspaceScopeHash(cp)}`, 'workspace');
}

export interface WorkspaceRbac {
  namespace: string;
  role: V1Role;
  roleBinding: V1RoleBinding;
}

/** The two labels that tie workspace RBAC in any namespace to this control plane (list by these). */
export function workspaceRbacIdentityLabels(cp: CoderControlPlane): Record<string, string> {
  return { [controlPlaneLabel]: nameOf(cp), [controlPlaneNamespaceLabel]: namespaceOf(cp) };
}

/** The cache index of workspace Roles and RoleBindings by the control plane their identity labels name. */
export const workspaceRbacOwnerIndex = 'workspace-rbac-owner';

/** `<namespace>/<name>` of the control plane a Role's or RoleBinding's identity labels name (none without both). */
export function workspaceRbacOwnerKeys(obj: { metadata?: { labels?: Record<string, string> } }): string[] {
  const name = obj.metadata?.labels?.[controlPlaneLabel];
  const namespace = obj.metadata?.labels?.[controlPlaneNamespaceLabel];
  return name && namespace ? [`${namespace}/${name}`] : [];
}

/** The index value under which a control plane's workspace Roles and RoleBindings are found. */
export function workspaceRbacOwnerKey(cp: CoderControlPlane): string {
  return `${namespaceOf(cp)}/${nameOf(cp)}`;
}

/** The identity labels as a label selector for a list across all namespaces. */
export function workspaceRbacLabelSelector(cp: CoderControlPlane): string {
  return Object.entries(workspaceRbacIdentityLabels(cp))
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

/**
 * The namespaces that get workspace RBAC: the control plane's own, then each
 * spec.rbac.workspaceNamespaces entry, trimmed, in order, each once.
 */
export function workspaceNamespaces(cp: CoderControlPlane): string[] {
  const namespaces = [namespaceOf(cp)];
  (cp.spec?.rbac?.workspaceNamespaces ?? []).forEach((entry, i) => {
    const namespace = entry.trim();
    if (!namespace)
      throw new SpecError(`spec.rbac.workspaceNamespaces[${i}]`, 'the namespace is empty; remove the entry or name a namespace');
    if (!namespaces.includes(namespace)) namespaces.push(namespace);
  });
  return namespaces;
}

/** The workspace Role rules, in order: pods, persistent volume claims, deployments (unless off), extraRules. */
function workspaceRoleRules(cp: CoderControlPlane): V1PolicyRule[] {
  const rules: V1PolicyRule[] = [
    { apiGroups: [''], resources: ['pods'], verbs: [...workspaceVerbs] },
    { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: [...workspaceVerbs] },
  ];
  if (cp.spec?.rbac?.enableDeployments !== false)
    rules.push({ apiGroups: ['apps'], resources: ['deployments'], verbs: [...workspaceVerbs] });
  return [...rules, ...structuredClone(cp.spec?.rbac?.extraRules ?? [])];
}

/**
 * The Role and RoleBinding for each workspace namespace, or none when spec.rbac.workspacePerms is
 * false (the caller's cleanup then removes every one this control plane manages). Only the objects
 * in the control plane's own namespace get an owner reference: owner references cannot cross
 * namespaces, so the others are removed by the cleanup and the finalizer.
 */
export function buildWorkspaceRbac(cp: CoderControlPlane): WorkspaceRbac[] {
  if (cp.spec?.rbac?.workspacePerms === false) return [];
  const cpNamespace = namespaceOf(cp);
  const roleName = workspaceRoleName(cp);
  const bindingName = workspaceRoleBindingName(cp);
  const labels = { ...controlPlaneLabels(cp), ...workspaceRbacIdentityLabels(cp) };
  const annotations = { [workspaceRbacOwnerUidAnnotation]: cp.metadata.uid ?? '' };
  const metadata = (name: string, namespace: string): V1ObjectMeta => ({
    name,
    namespace,
    labels: { ...labels },
    annotations: { ...annotations },
    ...(namespace === cpNamespace ? { ownerReferences: [controllerOwnerReference(coderControlPlaneResource, cp)] } : {}),
  });
  return workspaceNamespaces(cp).map((namespace) => ({
    namespace,
    role: {
      apiVersion: `${rbacGroup}/v1`,
      kind: 'Role',
      metadata: metadata(roleName, namespace),
      rules: workspaceRoleRules(cp),
    },
    roleBinding: {
      apiVersion: `${rbacGroup}/v1`,
      kind: 'RoleBinding',
      metadata: metadata(bindingName, namespace),
      roleRef: { apiGroup: rbacGroup, kind: 'Role', name: roleName },
      subjects: [{ kind: 'ServiceAccount', name: serviceAccountName(cp), namespace: cpNamespace }],
    },
  }));
}

/**
 * `Role/<ns>/<name>` or `RoleBinding/<ns>/<name>`. List items of built-in kinds come without `kind`,
 * so a RoleBinding is told apart by its roleRef.
 */
export function workspaceRbacKey(obj: V1Role | V1RoleBinding): string {
  const kind = 'roleRef' in obj && obj.roleRef ? 'RoleBinding' : 'Role';
  return `${kind}/${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
}

/** The keys of the objects this reconcile applies; cleanup keeps them. */
export function workspaceRbacKeepSet(desired: readonly WorkspaceRbac[]): Set<string> {
  return new Set(desired.flatMap(({ role, roleBinding }) => [workspaceRbacKey(role), workspaceRbacKey(roleBinding)]));
}

/**
 * Whether cleanup deletes this listed Role or RoleBinding: it is not in `keepSet` and this control
 * plane manages it. Managed means one of: its controller owner is this control plane; it has the
 * identity labels and the owner-UID annotation equals this control plane's uid; or it is in another
 * namespace, has the identity labels and the expected name (a RoleBinding must also point at the
 * expected Role and bind exactly the expected ServiceAccount). Objects that only carry the labels
 * are someone else's and stay. Pass an empty set on deletion or when workspacePerms is false.
 */
export function isManagedWorkspaceRbac(cp: CoderControlPlane, obj: V1Role | V1RoleBinding, keepSet: ReadonlySet<string>): boolean {
  if (keepSet.has(workspaceRbacKey(obj))) return false;
  const meta = obj.metadata;
  if (isControllerOwnedBy(obj, cp)) return true;
  const identity = workspaceRbacIdentityLabels(cp);
  const hasIdentityLabels = Object.entries(identity).every(([key, value]) => meta?.labels?.[key] === value);
  if (!hasIdentityLabels) return false;
  const uid = cp.metadata.uid;
  if (uid && meta?.annotations?.[workspaceRbacOwnerUidAnnotation] === uid) return true;
  if (meta?.namespace === namespaceOf(cp)) return false;
  if (!('roleRef' in obj && obj.roleRef)) return meta?.name === workspaceRoleName(cp);
  const binding = obj as V1RoleBinding;
  const subject = binding.subjects?.length === 1 ? binding.subjects[0] : undefined;
  return (
    meta?.name === workspaceRoleBindingName(cp) &&
    binding.roleRef.apiGroup === rbacGroup &&
    binding.roleRef.kind === 'Role' &&
    binding.roleRef.name === workspaceRoleName(cp) &&
    subject?.kind === 'ServiceAccount' &&
    subject.name === serviceAccountName(cp) &&
    subject.namespace === namespaceOf(cp)
  );
}
