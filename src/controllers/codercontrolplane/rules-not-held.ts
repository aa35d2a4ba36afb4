// The API server's escalation check on workspace RBAC: a subject may create a Role, or bind one, only
// when it holds every permission the Role grants (rbac.authorization.k8s.io "Privilege escalation
// prevention"). The refusal is a 403 whose message lists the permissions not held, one per line, as
// `{APIGroups:[""], Resources:["configmaps"], Verbs:["list"]}`; this reads that list and names the
// spec.rbac.extraRules entries that ask for them.
import type { V1PolicyRule } from '@kubernetes/client-node';
import { errorCode, KubeApiError } from '../../runtime/kube-http.ts';

const notHeldMarker = 'attempting to grant RBAC permissions not currently held:';

export interface HeldPermission {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

/** The permissions an escalation refusal lists, or undefined when `err` is not that refusal. */
export function permissionsNotHeld(err: unknown): HeldPermission[] | undefined {
  if (errorCode(err) !== 403 || !(err instanceof KubeApiError)) return undefined;
  const message = err.status.message ?? '';
  const at = message.indexOf(notHeldMarker);
  if (at < 0) return undefined;
  const list = message.slice(at + notHeldMarker.length).split('; resolution errors')[0]!;
  return [...list.matchAll(/\{([^{}]*)\}/g)].map(([, body]) => ({
    apiGroups: field(body!, 'APIGroups'),
    resources: field(body!, 'Resources'),
    verbs: field(body!, 'Verbs'),
  }));
}

/** `Name:["a" "b"]` inside one listed rule. */
function field(body: string, name: string): string[] {
  const values = new RegExp(`${name}:\\[([^\\]]*)\\]`).exec(body)?.[1] ?? '';
  return [...values.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
}

const covers = (granted: readonly string[] | undefined, wanted: string) => (granted ?? []).some((g) => g === '*' || g === wanted);

/** The indexes of the extraRules entries that ask for any of `missing`. */
export function extraRulesAskingFor(extraRules: readonly V1PolicyRule[], missing: readonly HeldPermission[]): number[] {
  return extraRules.flatMap((rule, i) => {
    const asks = missing.some(
      (m) =>
        m.apiGroups.every((g) => covers(rule.apiGroups, g)) &&
        m.resources.every((r) => covers(rule.resources, r)) &&
        m.verbs.some((v) => covers(rule.verbs, v)),
    );
    return asks ? [i] : [];
  });
}

export function describePermission(p: HeldPermission): string {
  const groups = p.apiGroups.map((g) => (g === '' ? 'core' : g)).join(',');
  return `${p.resources.join(',')} (${groups}): ${p.verbs.join(', ')}`;
}
