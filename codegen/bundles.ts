// Stage: the single-file installs of a release. dist/install-controller.yaml is what `kubectl apply -k
// config/default` installs (the operator with --app=controller); dist/install.yaml is the same with
// --app=all plus the aggregated API server's Service and APIService. Both are built from config/ and deploy/
// as codegen has just generated them, with the image of this package's version.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { buildKustomization, manifestObjects, type ManifestObject, type ReadSource } from './kustomization.ts';

export const image = 'ghcr.io/coder/coder-k8s';

export interface Bundle {
  path: string;
  sources: string[];
  body: string;
}

interface Container {
  name: string;
  image: string;
  args?: string[];
}

/** What --app=all registers beyond config/default (docs/how-to/aggregated-api.md). */
const aggregatedApiFiles = ['deploy/apiserver-service.yaml', 'deploy/apiserver-apiservice.yaml'];

function packageVersion(root: string): string {
  return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
}

function operatorContainer(objects: ManifestObject[]): Container {
  const deployments = objects.filter((o) => o.kind === 'Deployment' && o.metadata.name === 'coder-k8s');
  if (deployments.length !== 1)
    throw new Error(`codegen: config/default must install one Deployment coder-k8s, found ${deployments.length}`);
  const spec = deployments[0]!.spec as { template: { spec: { containers: Container[] } } };
  const container = spec.template.spec.containers.find((c) => c.name === 'coder-k8s');
  if (!container) throw new Error('codegen: the Deployment coder-k8s has no container coder-k8s');
  if (!container.image.startsWith(`${image}:`)) throw new Error(`codegen: the operator's image ${container.image} is not ${image}`);
  return container;
}

function bundleYaml(objects: ManifestObject[], usage: string): string {
  return [usage, ...objects.map((o) => `---\n${stringify(o, { lineWidth: 0 })}`)].join('');
}

export function bundles(root: string, read: ReadSource): Bundle[] {
  const tag = `v${packageVersion(root)}`;

  const controller = buildKustomization(root, 'config/default', read);
  operatorContainer(controller.objects).image = `${image}:${tag}`;

  const all = buildKustomization(root, 'config/default', read);
  const allContainer = operatorContainer(all.objects);
  allContainer.image = `${image}:${tag}`;
  allContainer.args = ['--app=all'];
  all.objects.push(...aggregatedApiFiles.flatMap((file) => manifestObjects(file, read)));

  return [
    {
      path: 'dist/install.yaml',
      sources: ['package.json', ...new Set([...all.files, ...aggregatedApiFiles])],
      body: bundleYaml(
        all.objects,
        `# coder-k8s ${tag}, --app=all: the controller and the aggregated API server. kubectl apply --server-side -f install.yaml\n`,
      ),
    },
    {
      path: 'dist/install-controller.yaml',
      sources: ['package.json', ...new Set(controller.files)],
      body: bundleYaml(
        controller.objects,
        `# coder-k8s ${tag}, --app=controller. kubectl apply --server-side -f install-controller.yaml\n`,
      ),
    },
  ];
}
