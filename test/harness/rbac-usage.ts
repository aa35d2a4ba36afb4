// Which granted (group, resource, verb) triples the operator's ServiceAccount never used, from the API
// server's audit log: the input of the test that keeps the generated role down to what code uses.
import type { Permission } from '../../src/runtime/rbac-permission.ts';
import type { AuditEvent } from './audit.ts';

/** `<group>/<resource>[/<subresource>]:<verb>`, the core group as ''. */
export type Grant = string;

export function grantsOf(permissions: readonly Permission[]): Set<Grant> {
  const grants = new Set<Grant>();
  for (const p of permissions) {
    for (const group of p.apiGroups)
      for (const resource of p.resources) for (const verb of p.verbs) grants.add(`${group}/${resource}:${verb}`);
  }
  return grants;
}

export function usedGrants(events: readonly AuditEvent[]): Set<Grant> {
  const used = new Set<Grant>();
  for (const e of events) {
    const ref = e.objectRef;
    if (!ref?.resource) continue;
    used.add(`${ref.apiGroup ?? ''}/${ref.resource}${ref.subresource ? `/${ref.subresource}` : ''}:${e.verb}`);
  }
  return used;
}

/** Grants neither used nor allowed, sorted. */
export function unusedGrants(granted: ReadonlySet<Grant>, used: ReadonlySet<Grant>, allowed: ReadonlyMap<Grant, string>): Grant[] {
  return [...granted].filter((g) => !used.has(g) && !allowed.has(g)).sort();
}
