// `npm run codegen -- --dump-kubernetes`: writes schemas/kubernetes/definitions.yaml, the subset of the
// test control plane's /openapi/v3 definitions that schemas/ references (transitively), normalized to
// what a CRD schema may hold. It is an input of codegen, committed with the version it came from.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { get as httpsGet, type RequestOptions as HttpsRequestOptions } from 'node:https';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { kubernetesVersion } from '../test/harness/binaries.ts';
import { startControlPlane } from '../test/harness/control-plane.ts';
import type { JsonSchema } from './json-schema.ts';
import { atomicByEmbedding, quantityDefinition, quantityPattern, withoutEnums } from './kubernetes-compat.ts';
import { kubernetesDefinitionsFile, schemasDir } from './paths.ts';

const componentPrefix = '#/components/schemas/';

/** Keywords of apiextensions.k8s.io/v1 JSONSchemaProps that definitions may keep. */
const crdKeywords = new Set([
  'description',
  'type',
  'format',
  'title',
  'default',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'enum',
  'maxProperties',
  'minProperties',
  'required',
  'items',
  'allOf',
  'oneOf',
  'anyOf',
  'not',
  'properties',
  'additionalProperties',
  'nullable',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
  '$ref',
]);

const intOrString = { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };

function isZeroValue(value: unknown): boolean {
  if (value === '' || value === 0 || value === false || value === null) return true;
  return typeof value === 'object' && Object.keys(value as object).length === 0;
}

/** Names referenced from schemas/ (kind files and common/). */
function referencedNames(): Set<string> {
  const names = new Set<string>();
  const files = [
    ...readdirSync(schemasDir).filter((f) => f.endsWith('.yaml')),
    ...readdirSync(join(schemasDir, 'common')).map((f) => join('common', f)),
  ];
  for (const file of files) {
    for (const match of readFileSync(join(schemasDir, file), 'utf8').matchAll(/kubernetes\/definitions\.yaml#\/definitions\/([\w.-]+)/g)) {
      names.add(match[1]!);
    }
  }
  return names;
}

/** One definition made CRD-compatible; refs point into the same definitions file. */
export function normalizeDefinition(name: string, schema: JsonSchema): JsonSchema {
  if (name === 'io.k8s.apimachinery.pkg.util.intstr.IntOrString') return { description: schema.description, ...intOrString };
  if (name === quantityDefinition) return { description: schema.description, ...intOrString, pattern: quantityPattern };
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    let obj = node as JsonSchema;
    // `allOf: [{$ref}]` is how OpenAPI v3 puts a description or default beside a reference.
    if (Array.isArray(obj.allOf) && obj.allOf.length === 1 && (obj.allOf[0] as JsonSchema).$ref) {
      const { allOf, ...rest } = obj;
      obj = { ...rest, $ref: (allOf as JsonSchema[])[0]!.$ref };
    }
    const out: JsonSchema = {};
    for (const [key, value] of Object.entries(obj)) {
      if (!crdKeywords.has(key)) continue;
      if (key === '$ref') out.$ref = `#/definitions/${String(value).slice(componentPrefix.length)}`;
      // The core types' OpenAPI carries Go zero values as defaults ("", 0, false, {} for non-pointer
      // structs). In a CRD they would write empty fields into users' objects, and "" is not a valid
      // default of an enum; meaningful defaults (protocol: TCP) are kept.
      else if (key === 'default' && isZeroValue(value)) continue;
      else if (key === 'properties') {
        out.properties = Object.fromEntries(Object.entries(value as JsonSchema).map(([k, v]) => [k, walk(v)]));
      } else out[key] = walk(value);
    }
    return out;
  };
  const normalized = withoutEnums(walk(schema)) as JsonSchema;
  return atomicByEmbedding.has(name) ? { ...normalized, 'x-kubernetes-map-type': 'atomic' } : normalized;
}

function collect(all: Record<string, JsonSchema>, roots: Set<string>): Record<string, JsonSchema> {
  const picked: Record<string, JsonSchema> = {};
  const queue = [...roots];
  while (queue.length) {
    const name = queue.shift()!;
    if (picked[name]) continue;
    const schema = all[name];
    if (!schema) throw new Error(`--dump-kubernetes: ${name} is not served by kube-apiserver ${kubernetesVersion}`);
    picked[name] = normalizeDefinition(name, schema);
    for (const match of JSON.stringify(picked[name]).matchAll(/"#\/definitions\/([\w.-]+)"/g)) queue.push(match[1]!);
  }
  return Object.fromEntries(
    Object.keys(picked)
      .sort()
      .map((k) => [k, picked[k]!]),
  );
}

async function fetchAllDefinitions(kc: KubeConfig, server: string): Promise<Record<string, JsonSchema>> {
  const get = async (path: string): Promise<JsonSchema> => {
    const options: HttpsRequestOptions = {};
    await kc.applyToHTTPSOptions(options);
    return new Promise((resolve, reject) => {
      httpsGet(`${server}${path}`, options, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`GET ${path}: ${res.statusCode}`));
          else resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonSchema);
        });
      }).on('error', reject);
    });
  };
  const index = (await get('/openapi/v3')) as { paths: Record<string, { serverRelativeURL: string }> };
  const all: Record<string, JsonSchema> = {};
  for (const entry of Object.values(index.paths)) {
    const doc = (await get(entry.serverRelativeURL)) as { components?: { schemas?: Record<string, JsonSchema> } };
    Object.assign(all, doc.components?.schemas ?? {});
  }
  return all;
}

export async function dumpKubernetesDefinitions(): Promise<void> {
  const roots = referencedNames();
  const cp = await startControlPlane();
  try {
    const all = await fetchAllDefinitions(cp.adminConfig(), cp.server);
    const definitions = collect(all, roots);
    const header =
      `# Dumped from kube-apiserver ${kubernetesVersion} /openapi/v3 by \`npm run codegen -- --dump-kubernetes\`:\n` +
      `# the definitions that schemas/ references, and what they reference, normalized for CRD schemas.\n`;
    writeFileSync(kubernetesDefinitionsFile, header + stringify({ kubernetesVersion, definitions }, { lineWidth: 0 }));
    console.log(`schemas/kubernetes/definitions.yaml: ${Object.keys(definitions).length} definitions from ${roots.size} roots`);
  } finally {
    await cp.stop();
  }
}
