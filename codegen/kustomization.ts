// The objects a kustomization directory builds, read the way `kubectl kustomize` reads this repository's
// layout: `resources` (manifests and other kustomization directories), inline JSON-patch `patches`, and
// the `namespace:` every manifest already names. Anything else is refused, so that a bundle never differs
// silently from `kubectl apply -k` (test/integration/bundles.test.ts compares the two on a real kubectl).
import { existsSync, statSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

export interface ManifestObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** Reads a file relative to the repository root: codegen passes its fresh output first, then the disk. */
export type ReadSource = (path: string) => string;

export interface BuiltKustomization {
  objects: ManifestObject[];
  /** Every file read, relative to the repository root, in reading order. */
  files: string[];
}

interface Kustomization {
  namespace?: string;
  resources?: string[];
  patches?: { target?: { group?: string; kind?: string; name?: string }; patch?: string; path?: string }[];
  transformers?: string[];
  [field: string]: unknown;
}

interface PatchOperation {
  op: string;
  path: string;
  value?: unknown;
}

const kustomizationNames = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];
const understoodFields = new Set(['apiVersion', 'kind', 'namespace', 'resources', 'patches', 'transformers']);

/**
 * `transformers:` that only put back what `namespace:` moved (config/namespace-override). Since the bundles
 * keep every manifest's own namespace, they have nothing to repair there.
 */
const namespaceRepairs = new Set(['config/namespace-override']);

export function buildKustomization(root: string, dir: string, read: ReadSource): BuiltKustomization {
  const file = kustomizationNames.map((name) => join(dir, name)).find((path) => existsSync(join(root, path)));
  if (!file) throw new Error(`codegen: ${dir}/ has no kustomization file`);
  const kustomization = parse(read(file)) as Kustomization;
  const unknown = Object.keys(kustomization).filter((field) => !understoodFields.has(field));
  if (unknown.length) throw new Error(`codegen: ${file}: the bundle generator does not apply ${unknown.join(', ')}`);

  const built: BuiltKustomization = { objects: [], files: [file] };
  for (const resource of kustomization.resources ?? []) {
    const path = normalize(join(dir, resource));
    if (statSync(join(root, path), { throwIfNoEntry: false })?.isDirectory()) {
      const inner = buildKustomization(root, path, read);
      built.objects.push(...inner.objects);
      built.files.push(...inner.files);
    } else {
      built.objects.push(...manifestObjects(path, read));
      built.files.push(path);
    }
  }
  for (const transformer of kustomization.transformers ?? []) {
    const path = normalize(join(dir, transformer));
    if (!namespaceRepairs.has(path))
      throw new Error(`codegen: ${file}: the bundle generator does not apply the transformer ${transformer}`);
  }
  if (kustomization.namespace) checkNamespace(file, kustomization.namespace, built.objects);
  for (const patch of kustomization.patches ?? []) applyPatch(file, patch, built.objects);
  return built;
}

export function manifestObjects(path: string, read: ReadSource): ManifestObject[] {
  return parseAllDocuments(read(path))
    .map((doc) => doc.toJS() as ManifestObject | null)
    .filter((o): o is ManifestObject => o !== null);
}

/** `namespace:` is accepted only where it changes nothing: every namespaced manifest already names it. */
function checkNamespace(file: string, namespace: string, objects: ManifestObject[]): void {
  for (const object of objects) {
    const at = object.metadata.namespace;
    // The authentication reader binding lives in kube-system; config/namespace-override keeps it there.
    if (at === undefined || at === namespace || (at === 'kube-system' && object.kind === 'RoleBinding')) continue;
    throw new Error(`codegen: ${file} sets namespace ${namespace}, but ${object.kind} ${object.metadata.name} is in ${at}`);
  }
}

function applyPatch(file: string, patch: NonNullable<Kustomization['patches']>[number], objects: ManifestObject[]): void {
  if (!patch.patch || patch.path || !patch.target) throw new Error(`codegen: ${file}: only inline patches with a target are applied`);
  const { group, kind, name } = patch.target;
  const targets = objects.filter(
    (o) =>
      (group === undefined || o.apiVersion.split('/')[0] === group) &&
      (kind === undefined || o.kind === kind) &&
      (name === undefined || o.metadata.name === name),
  );
  if (!targets.length) throw new Error(`codegen: ${file}: a patch's target ${JSON.stringify(patch.target)} matches no object`);
  const operations = parse(patch.patch) as PatchOperation[];
  for (const target of targets) for (const operation of operations) applyOperation(file, target, operation);
}

function applyOperation(file: string, object: ManifestObject, { op, path, value }: PatchOperation): void {
  if (op !== 'add' && op !== 'replace') throw new Error(`codegen: ${file}: the bundle generator applies add and replace, not ${op}`);
  const keys = path
    .split('/')
    .slice(1)
    .map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'));
  const last = keys.pop();
  let node: unknown = object;
  for (const key of keys) {
    node = (node as Record<string, unknown>)?.[key];
    if (node === null || typeof node !== 'object')
      throw new Error(`codegen: ${file}: patch path ${path} does not exist in ${object.kind} ${object.metadata.name}`);
  }
  if (last === undefined) throw new Error(`codegen: ${file}: patch path ${path} names no field`);
  if (!Array.isArray(node)) (node as Record<string, unknown>)[last] = value;
  else if (last === '-' && op === 'add') node.push(value);
  else node.splice(Number(last), op === 'add' ? 0 : 1, value);
}
