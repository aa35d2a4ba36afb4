// Stage: config/rbac/role.yaml, the operator's ClusterRole, and config/components/namespaced/roles.yaml, the
// same rules split by where the namespaced install grants them, from the `export const permissions` array
// literals in src/**/permissions.ts (read with ts-morph; only literal values are allowed, so the roles are
// known without running any code). Rules for the same group and resource are merged.
import { join, relative } from 'node:path';
import { Node, Project, type Expression } from 'ts-morph';
import { stringify } from 'yaml';
import { repoRoot } from './paths.ts';

// The Go original's names, so that applying config/rbac/ over its install replaces its rules instead of adding ours.
const clusterRoleName = 'manager-role';
/** The namespaced install's roles: bound in each watched namespace, cluster-wide, and in the operator's namespace. */
export const namespacedInstallRoles = {
  watchedNamespaces: 'coder-k8s-namespaced',
  cluster: 'coder-k8s-cluster-scoped',
  operatorNamespace: 'coder-k8s-operator-namespace',
} as const;
const operatorNamespace = 'coder-system';
const labels = { 'app.kubernetes.io/name': 'coder-k8s' };

export interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
  scope?: 'cluster' | 'operator-namespace';
}

export interface DeclaredPermissions {
  /** Relative to the repository root. */
  file: string;
  rules: Rule[];
}

function literal(expr: Expression, where: string): unknown {
  if (Node.isStringLiteral(expr) || Node.isNoSubstitutionTemplateLiteral(expr)) return expr.getLiteralValue();
  if (Node.isArrayLiteralExpression(expr)) return expr.getElements().map((e) => literal(e, where));
  if (Node.isAsExpression(expr) || Node.isSatisfiesExpression(expr)) return literal(expr.getExpression(), where);
  if (Node.isObjectLiteralExpression(expr)) {
    return Object.fromEntries(
      expr.getProperties().map((p) => {
        if (!Node.isPropertyAssignment(p)) throw new Error(`${where}: only plain properties are allowed in permissions`);
        return [p.getName(), literal(p.getInitializerOrThrow(), where)];
      }),
    );
  }
  throw new Error(`${where}:${expr.getStartLineNumber()}: permissions must be literals, found \`${expr.getText()}\``);
}

export function readPermissions(sourceGlobs = [join(repoRoot, 'src/**/permissions.ts')]): DeclaredPermissions[] {
  const project = new Project({ skipAddingFilesFromTsConfig: true, skipFileDependencyResolution: true });
  const files = project.addSourceFilesAtPaths(sourceGlobs);
  return files
    .map((file) => {
      const where = relative(repoRoot, file.getFilePath());
      const declaration = file.getVariableDeclaration('permissions');
      if (!declaration?.isExported()) throw new Error(`${where}: must export const permissions`);
      const rules = literal(declaration.getInitializerOrThrow(), where) as Rule[];
      return { file: where, rules };
    })
    .sort((a, b) => a.file.localeCompare(b.file));
}

/** One rule per group, verb set and resourceNames, resources and verbs sorted. */
export function mergeRules(rules: Rule[]): Rule[] {
  const verbsByResource = new Map<string, Set<string>>();
  for (const rule of rules) {
    for (const group of rule.apiGroups) {
      for (const resource of rule.resources) {
        const key = JSON.stringify([group, resource, [...(rule.resourceNames ?? [])].sort()]);
        const verbs = verbsByResource.get(key) ?? new Set<string>();
        for (const verb of rule.verbs) verbs.add(verb);
        verbsByResource.set(key, verbs);
      }
    }
  }
  const merged = new Map<string, Rule>();
  for (const [key, verbSet] of verbsByResource) {
    const [group, resource, names] = JSON.parse(key) as [string, string, string[]];
    const verbs = [...verbSet].sort();
    const ruleKey = JSON.stringify([group, verbs, names]);
    const rule = merged.get(ruleKey) ?? { apiGroups: [group], resources: [], verbs, ...(names.length ? { resourceNames: names } : {}) };
    rule.resources.push(resource);
    merged.set(ruleKey, rule);
  }
  return [...merged.values()]
    .map((r) => ({ ...r, resources: r.resources.sort() }))
    .sort((a, b) => a.apiGroups[0]!.localeCompare(b.apiGroups[0]!) || a.resources[0]!.localeCompare(b.resources[0]!));
}

export function clusterRoleYaml(declared: DeclaredPermissions[]): string {
  const role = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: clusterRoleName, labels },
    rules: mergeRules(declared.flatMap((d) => d.rules)),
  };
  return stringify(role, { lineWidth: 0 });
}

/** Every group/resource has one scope, whichever file declares it: a resource is cluster-scoped or not. */
export function checkScopes(declared: DeclaredPermissions[]): void {
  const seen = new Map<string, { scope: Rule['scope']; file: string }>();
  for (const { file, rules } of declared) {
    for (const rule of rules) {
      for (const group of rule.apiGroups) {
        for (const resource of rule.resources) {
          const key = `${group || 'core'}/${resource}`;
          const earlier = seen.get(key);
          if (earlier && earlier.scope !== rule.scope) {
            throw new Error(
              `${file}: ${key} has scope ${rule.scope ?? '(watched namespaces)'}, ${earlier.file} gives it ${earlier.scope ?? '(watched namespaces)'}`,
            );
          }
          seen.set(key, { scope: rule.scope, file });
        }
      }
    }
  }
}

/** The ClusterRole bound per watched namespace, the cluster-scoped ClusterRole, and the Role of the operator's namespace. */
export function namespacedInstallRolesYaml(declared: DeclaredPermissions[]): string {
  checkScopes(declared);
  const rules = declared.flatMap((d) => d.rules);
  const ofScope = (scope: Rule['scope']) => mergeRules(rules.filter((r) => r.scope === scope));
  const roles = [
    { kind: 'ClusterRole', metadata: { name: namespacedInstallRoles.watchedNamespaces, labels }, rules: ofScope(undefined) },
    { kind: 'ClusterRole', metadata: { name: namespacedInstallRoles.cluster, labels }, rules: ofScope('cluster') },
    {
      kind: 'Role',
      metadata: { name: namespacedInstallRoles.operatorNamespace, namespace: operatorNamespace, labels },
      rules: ofScope('operator-namespace'),
    },
  ];
  return roles.map((r) => stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', ...r }, { lineWidth: 0 })).join('---\n');
}
