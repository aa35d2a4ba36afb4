// A control plane's workspace Role and RoleBinding in each namespace that consents, the
// WorkspaceRBACReady condition that says where they are and why not elsewhere (not opted in, a same-named
// object that is not ours, rules the operator may not grant), and the removal of those no longer wanted.
import type { V1Role, V1RoleBinding } from '@kubernetes/client-node';
import { CoderControlPlaneConditions, type CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import type { ConditionOf } from '../../runtime/conditions.ts';
import { builtinResources } from '../../runtime/resource.ts';
import { applyChild, applyTarget } from '../shared/workload/foreign-object.ts';
import type { ControlPlaneContext } from './context.ts';
import {
  isManagedWorkspaceRbac,
  workspaceRbacKeepSet,
  workspaceRbacOwnerIndex,
  workspaceRbacOwnerKey,
  type WorkspaceRbac,
} from './desired/workspace-rbac.ts';
import { workspaceNamespaceConsent } from './workspace-namespace-consent.ts';
import { describePermission, extraRulesAskingFor, permissionsNotHeld, type HeldPermission } from './rules-not-held.ts';

// Nothing tells the operator when an admin grants it more: the refused Role is tried again this often.
const rulesNotGrantableRetryMs = 60_000;
export const workspaceGrantableLabel = 'coder.com/aggregate-to-workspace-grantable';
const { WorkspaceRBACReady } = CoderControlPlaneConditions;

/** A namespace whose workspace Role or RoleBinding the API server refused as an escalation. */
interface NotGrantable {
  namespace: string;
  missing: HeldPermission[];
}

/**
 * Applies the workspace Role and RoleBinding in each namespace that consents, and removes what this
 * control plane manages anywhere else (including a namespace that withdrew its consent). A Role or
 * RoleBinding of the same name that is not ours is left alone, and so is the other half of that pair.
 * A pair the API server refuses as an escalation is kept as it was: workspaces may be running on it.
 */
export async function applyWorkspaceRbac(
  ctx: ControlPlaneContext,
  cp: CoderControlPlane,
  desired: WorkspaceRbac[],
): Promise<{ condition?: ConditionOf<typeof WorkspaceRBACReady>; requeueAfterMs?: number }> {
  if (cp.spec?.rbac?.workspacePerms === false) {
    await deleteUnwantedWorkspaceRbac(ctx, cp, new Set());
    return {};
  }
  const notOptedIn: string[] = [];
  const foreign: string[] = [];
  const notGrantable: NotGrantable[] = [];
  const applied = [];
  const refused = [];
  const ours = (live: V1Role | V1RoleBinding) => isManagedWorkspaceRbac(cp, live, new Set());
  for (const rbac of desired) {
    const consent = workspaceNamespaceConsent(cp, rbac.namespace, ctx.caches.namespaces.get(undefined, rbac.namespace));
    if (!consent.consented) {
      notOptedIn.push(consent.message);
      continue;
    }
    const { role, roleBinding } = rbac;
    const cachedRole = ctx.caches.roles.get(rbac.namespace, role.metadata!.name!);
    const cachedBinding = ctx.caches.roleBindings.get(rbac.namespace, roleBinding.metadata!.name!);
    const targets = [
      applyTarget(builtinResources.role, role, cachedRole, ours),
      applyTarget(builtinResources.roleBinding, roleBinding, cachedBinding, ours),
    ];
    if (targets.some((t) => t.foreign)) {
      for (const t of targets) if (t.foreign) foreign.push(t.description);
      continue;
    }
    try {
      // The Role first: binding a Role that does not exist yet is refused as an escalation. A half found
      // foreign only now (the cache was behind) leaves the pair unapplied; a Role just created is removed below.
      const appliedRole = await applyChild(ctx.writer, builtinResources.role, role, cachedRole, ours);
      if (appliedRole.foreign) {
        foreign.push(appliedRole.description);
        continue;
      }
      const appliedBinding = await applyChild(ctx.writer, builtinResources.roleBinding, roleBinding, cachedBinding, ours);
      if (appliedBinding.foreign) {
        foreign.push(appliedBinding.description);
        continue;
      }
      applied.push(rbac);
    } catch (err) {
      const missing = permissionsNotHeld(err);
      if (!missing) throw err;
      notGrantable.push({ namespace: rbac.namespace, missing });
      refused.push(rbac);
    }
  }
  await deleteUnwantedWorkspaceRbac(ctx, cp, workspaceRbacKeepSet([...applied, ...refused]));
  return {
    condition: workspaceRbacCondition(
      cp,
      applied.map((r) => r.namespace),
      notOptedIn,
      foreign,
      notGrantable,
    ),
    ...(notGrantable.length ? { requeueAfterMs: rulesNotGrantableRetryMs } : {}),
  };
}

function notGrantableMessage(cp: CoderControlPlane, notGrantable: NotGrantable[]): string {
  const namespaces = notGrantable.map((n) => `"${n.namespace}"`).join(', ');
  const missing = uniquePermissions(notGrantable.flatMap((n) => n.missing));
  const entries = extraRulesAskingFor(cp.spec?.rbac?.extraRules ?? [], missing).map((i) => `spec.rbac.extraRules[${i}]`);
  const askedBy = entries.length ? `, which ${entries.join(', ')} ask${entries.length === 1 ? 's' : ''} for` : '';
  return (
    `The API server refused the workspace Role in ${namespaces}: the operator does not hold ${missing.map(describePermission).join('; ')}${askedBy}, ` +
    'and Kubernetes lets it grant only permissions it holds itself. Grant them to the operator with a ClusterRole labelled ' +
    `${workspaceGrantableLabel}: "true"${entries.length ? ', or remove them from spec.rbac.extraRules' : ''}. ` +
    'What was applied before stays in place. Retrying every minute.'
  );
}

function uniquePermissions(permissions: HeldPermission[]): HeldPermission[] {
  const byKey = new Map(permissions.map((p) => [JSON.stringify(p), p]));
  return [...byKey.values()];
}

function workspaceRbacCondition(
  cp: CoderControlPlane,
  applied: string[],
  notOptedIn: string[],
  foreign: string[],
  notGrantable: NotGrantable[],
): ConditionOf<typeof WorkspaceRBACReady> {
  const { reasons } = WorkspaceRBACReady;
  if (!notOptedIn.length && !foreign.length && !notGrantable.length) {
    const where = applied.map((ns) => `"${ns}"`).join(', ');
    return {
      type: WorkspaceRBACReady.type,
      status: 'True',
      reason: reasons.Applied,
      message: `The workspace Role and RoleBinding are applied in ${where}.`,
    };
  }
  const problems = [
    ...(notGrantable.length ? [notGrantableMessage(cp, notGrantable)] : []),
    ...notOptedIn.map((m) => `No workspace RBAC is created in ${m}.`),
    ...(foreign.length
      ? [`${foreign.join(', ')} already exist and were not created by the operator for this control plane; they are left untouched.`]
      : []),
  ];
  return {
    type: WorkspaceRBACReady.type,
    status: 'False',
    reason: notGrantable.length ? reasons.RulesNotGrantable : notOptedIn.length ? reasons.NamespaceNotOptedIn : reasons.ObjectNotOwned,
    message: problems.join(' '),
  };
}

/** Deletes the workspace Roles and RoleBindings of this control plane that are not in `keep` (all on deletion). */
export async function deleteUnwantedWorkspaceRbac(
  ctx: ControlPlaneContext,
  cp: CoderControlPlane,
  keep: ReadonlySet<string>,
): Promise<void> {
  const owner = workspaceRbacOwnerKey(cp);
  for (const role of ctx.caches.roles.byIndex(workspaceRbacOwnerIndex, owner)) {
    if (isManagedWorkspaceRbac(cp, role, keep)) await ctx.writer.deleteExactly(builtinResources.role, role);
  }
  for (const binding of ctx.caches.roleBindings.byIndex(workspaceRbacOwnerIndex, owner)) {
    if (isManagedWorkspaceRbac(cp, binding, keep)) await ctx.writer.deleteExactly(builtinResources.roleBinding, binding);
  }
}
