// `npm run codegen`: make every generated file from schemas/. `-- --check` lists drift and exits 1;
// `-- --dump-kubernetes` refreshes schemas/kubernetes/definitions.yaml from the test control plane.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openApiFile, resourcesFile } from './aggregated-api.ts';
import { aggregatedApiReference } from './aggregated-docs.ts';
import { loadAggregatedApi } from './aggregated-load.ts';
import { aggregatedTypesFile } from './aggregated-types.ts';
import { bundles } from './bundles.ts';
import { clientFile, clientsIndexFile } from './clients.ts';
import { coderApiTypesFile } from './coder-api.ts';
import { conditionSetsFile } from './condition-constants.ts';
import { withConditionTypesListed } from './condition-types.ts';
import { crdKustomizationPath, crdKustomizationYaml, crdPath, crdYaml } from './crd.ts';
import { apiReference } from './docs.ts';
import { chartCrdPath, chartRulesPath, chartRulesTpl, chartUserRolesPath, chartYaml, chartYamlPath, packageVersion } from './helm-chart.ts';
import { kindRolesPath, kindRolesYaml } from './kind-roles.ts';
import { compatibilityProblems } from './kubernetes-compat.ts';
import { loadCommonSchemas, loadKinds, loadKubernetesDefinitions, loadSharedConditions, type ResolvedKind } from './load.ts';
import { OutputSet } from './output.ts';
import { repoRoot, schemasDir } from './paths.ts';
import { clusterRoleYaml, namespacedInstallRolesYaml, readPermissions } from './rbac.ts';
import { SchemaRuleError } from './schema-rule-error.ts';
import { commonTypesFile, kindTypesFile } from './types.ts';
import { troubleshootingSection } from './troubleshooting.ts';
import { validatorFile, validatorsIndexFile } from './validators.ts';

async function generate(): Promise<OutputSet> {
  const problems = compatibilityProblems(loadKubernetesDefinitions());
  if (problems.length) {
    throw new SchemaRuleError(
      `schemas/kubernetes/definitions.yaml breaks the compatibility rule (codegen/kubernetes-compat.ts):\n  ${problems.join('\n  ')}`,
    );
  }
  const out = new OutputSet();
  const common = loadCommonSchemas();
  const conditionSets = loadSharedConditions();
  const kinds: ResolvedKind[] = loadKinds(schemasDir, conditionSets).map(withConditionTypesListed);
  out.add(
    'generated/types/common.ts',
    common.map((c) => `schemas/${c.file}`),
    await commonTypesFile(common),
  );
  out.add(
    'generated/types/conditions.ts',
    [...conditionSets.map((c) => `schemas/${c.file}`), ...kinds.map((k) => `schemas/${k.file}`)],
    conditionSetsFile(conditionSets, kinds),
  );
  for (const kind of kinds) {
    const source = `schemas/${kind.file}`;
    const conditionSources = [
      ...new Set(Object.values(kind.conditions).flatMap((d) => (d.shared ? [`schemas/${d.shared.file}`] : []))),
    ].sort();
    out.add(crdPath(kind), [source], crdYaml(kind, kind.resolved));
    out.add(chartCrdPath(kind), [source], crdYaml(kind, kind.resolved));
    out.add(`generated/types/${kind.names.singular}.ts`, [source, ...conditionSources], await kindTypesFile(kind, kind.resolved));
    out.add(`generated/clients/${kind.names.singular}.ts`, [source], clientFile(kind));
    out.add(`generated/validators/${kind.names.singular}.ts`, [source], validatorFile(kind, kind.resolved));
  }
  out.add(
    crdKustomizationPath,
    kinds.map((k) => `schemas/${k.file}`),
    crdKustomizationYaml(kinds),
  );
  out.add(
    kindRolesPath,
    kinds.map((k) => `schemas/${k.file}`),
    kindRolesYaml(kinds),
  );
  out.add(
    chartUserRolesPath,
    kinds.map((k) => `schemas/${k.file}`),
    kindRolesYaml(kinds),
  );
  out.add(
    'generated/clients/index.ts',
    kinds.map((k) => `schemas/${k.file}`),
    clientsIndexFile(kinds),
  );
  out.add(
    'generated/validators/index.ts',
    kinds.map((k) => `schemas/${k.file}`),
    validatorsIndexFile(kinds),
  );
  const aggregated = loadAggregatedApi();
  const aggregatedSources = [aggregated.file, ...aggregated.kinds.map((k) => k.file)].map((f) => `schemas/${f}`);
  out.add('generated/aggregated/types.ts', aggregatedSources, await aggregatedTypesFile(aggregated));
  out.add('generated/aggregated/resources.ts', aggregatedSources, resourcesFile(aggregated));
  out.add('generated/aggregated/openapi.ts', aggregatedSources, openApiFile(aggregated));
  out.add(
    'docs/reference/api.md',
    [...kinds.map((k) => `schemas/${k.file}`), ...conditionSets.map((c) => `schemas/${c.file}`), ...aggregatedSources],
    `${apiReference(kinds)}\n${aggregatedApiReference(aggregated)}`,
  );
  out.addSection(
    'docs/how-to/troubleshooting.md',
    [...kinds.map((k) => `schemas/${k.file}`), ...conditionSets.map((c) => `schemas/${c.file}`)],
    troubleshootingSection(kinds),
  );
  const permissions = readPermissions();
  out.add(
    'config/rbac/role.yaml',
    permissions.map((p) => p.file),
    clusterRoleYaml(permissions),
  );
  out.add(
    'config/components/namespaced/roles.yaml',
    permissions.map((p) => p.file),
    namespacedInstallRolesYaml(permissions),
  );
  out.add(
    chartRulesPath,
    permissions.map((p) => p.file),
    chartRulesTpl(permissions),
  );
  out.add(chartYamlPath, ['package.json'], chartYaml(packageVersion()));
  out.add('generated/coder-api.ts', ['schemas/coder-api/openapi.yaml'], await coderApiTypesFile());
  // Last: the bundles are made of the files generated above, as they are now, and of written manifests.
  for (const bundle of bundles(repoRoot, (path) => out.text(path) ?? readFileSync(join(repoRoot, path), 'utf8'))) {
    out.add(bundle.path, bundle.sources, bundle.body);
  }
  return out;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { check: { type: 'boolean' }, 'dump-kubernetes': { type: 'boolean' } } });
  if (values['dump-kubernetes']) {
    // Loaded only here: it starts a test control plane.
    const { dumpKubernetesDefinitions } = await import('./kubernetes-dump.ts');
    await dumpKubernetesDefinitions();
    return;
  }
  const started = Date.now();
  const out = await generate();
  if (values.check) {
    const drift = out.drift();
    if (drift.length) {
      console.error(
        `codegen --check: ${drift.length} generated file(s) do not match schemas/:\n  ${drift.join('\n  ')}\n` +
          'Run `npm run codegen` and commit the schemas and the generated files together.',
      );
      process.exitCode = 1;
      return;
    }
    console.log(`codegen --check: ${out.paths().length} generated files match schemas/ (${Date.now() - started} ms)`);
    return;
  }
  out.writeTo(repoRoot);
  out.writeSections(repoRoot);
  console.log(`codegen: wrote ${out.paths().length} files in ${Date.now() - started} ms`);
}

await main().catch((err: unknown) => {
  if (!(err instanceof SchemaRuleError)) throw err;
  console.error(err.message);
  process.exitCode = 1;
});
