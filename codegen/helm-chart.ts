// Stage: the generated parts of the Helm chart charts/coder-k8s/: Chart.yaml (its version and appVersion are
// package.json's), the CRDs in crds/ (the same text as config/crd/bases/), templates/user-roles.yaml (the
// editor and viewer roles of each kind, as config/rbac/ has them), and templates/_rules.tpl, the
// operator's RBAC rules as named templates, from the same declarations as config/rbac/role.yaml and
// config/components/namespaced/roles.yaml. The chart's hand-written templates say where the rules are bound.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { KindSource } from './load.ts';
import { repoRoot } from './paths.ts';
import { checkScopes, mergeRules, type DeclaredPermissions, type Rule } from './rbac.ts';

export const chartDir = 'charts/coder-k8s';
export const chartYamlPath = `${chartDir}/Chart.yaml`;
export const chartRulesPath = `${chartDir}/templates/_rules.tpl`;
/** The editor and viewer ClusterRoles of each kind, as config/rbac/ has them (codegen/kind-roles.ts). */
export const chartUserRolesPath = `${chartDir}/templates/user-roles.yaml`;

export function chartCrdPath(kind: KindSource): string {
  return `${chartDir}/crds/${kind.group}_${kind.names.plural}.yaml`;
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
}

export function chartYaml(version: string): string {
  const chart = {
    apiVersion: 'v2',
    name: 'coder-k8s',
    description: 'Kubernetes operator for Coder: control planes, provisioners, workspace proxies, template tests and AI resources.',
    type: 'application',
    version,
    appVersion: version,
    home: 'https://github.com/coder/coder-k8s',
    sources: ['https://github.com/coder/coder-k8s'],
    keywords: ['coder', 'operator'],
  };
  return stringify(chart, { lineWidth: 0 });
}

/** `name` as a Helm named template whose body is the YAML list of `rules`, for `include ... | nindent`. */
function rulesTemplate(name: string, rules: Rule[]): string {
  const body = rules.length ? stringify(rules, { lineWidth: 0 }).trimEnd() : '[]';
  return `{{- define "${name}" -}}\n${body}\n{{- end }}\n`;
}

/**
 * The rules of the cluster-wide install (coder-k8s.rules.manager) and, split by scope as the namespaced
 * install grants them, of the watched namespaces, the cluster and the operator's namespace.
 */
export function chartRulesTpl(declared: DeclaredPermissions[]): string {
  checkScopes(declared);
  const rules = declared.flatMap((d) => d.rules);
  const ofScope = (scope: Rule['scope']) => mergeRules(rules.filter((r) => r.scope === scope));
  return [
    rulesTemplate('coder-k8s.rules.manager', mergeRules(rules)),
    rulesTemplate('coder-k8s.rules.watchedNamespaces', ofScope(undefined)),
    rulesTemplate('coder-k8s.rules.clusterScoped', ofScope('cluster')),
    rulesTemplate('coder-k8s.rules.operatorNamespace', ofScope('operator-namespace')),
  ].join('\n');
}
