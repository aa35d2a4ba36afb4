// Stage 2: resolve $ref into one self-contained schema. Refs name a file relative to the referring
// file and an optional JSON pointer; sibling keywords (description, default) override the target, and
// sibling `properties` override the descriptions of the target's properties.
// Each inlined Kubernetes definition keeps its OpenAPI name in `x-coder-kubernetes-type`, so the
// TypeScript stage can use the @kubernetes/client-node model instead of a copy.
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve as resolvePath } from 'node:path';
import { parse } from 'yaml';
import type { JsonSchema } from './json-schema.ts';
import { schemasDir } from './paths.ts';

export const kubernetesTypeKey = 'x-coder-kubernetes-type';
export const commonTypeKey = 'x-coder-common-type';

const fileCache = new Map<string, unknown>();

function loadFile(path: string): unknown {
  let doc = fileCache.get(path);
  if (doc === undefined) {
    doc = parse(readFileSync(path, 'utf8'));
    fileCache.set(path, doc);
  }
  return doc;
}

function pointer(doc: unknown, fragment: string, where: string): unknown {
  let node = doc;
  for (const raw of fragment.split('/').filter(Boolean)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(key in node)) {
      throw new Error(`${where}: $ref pointer #${fragment} does not exist`);
    }
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/**
 * A $ref's sibling `properties` may give a property of the target its own description at this use,
 * e.g. the default key of one secret-key-selector, so the default is stated on the field it belongs to.
 * Only descriptions: the shape stays the shared type's.
 */
function describeProperties(target: JsonSchema, overrides: unknown, where: string): Record<string, JsonSchema> {
  const properties = { ...((target.properties ?? {}) as Record<string, JsonSchema>) };
  for (const [name, override] of Object.entries(overrides as Record<string, JsonSchema>)) {
    const keys = Object.keys(override ?? {});
    if (!properties[name]) throw new Error(`${where}: properties.${name} is not a property of the referenced schema`);
    if (keys.some((k) => k !== 'description')) {
      throw new Error(
        `${where}: properties.${name} may only override description, not ${keys.filter((k) => k !== 'description').join(', ')}`,
      );
    }
    properties[name] = { ...properties[name], ...override };
  }
  return properties;
}

/** Resolves every $ref below `schema`, which was read from `file`. Cycles are an error. */
export function resolveRefs(schema: JsonSchema, file: string, stack: string[] = []): JsonSchema {
  const walk = (node: unknown, fromFile: string, trail: string[]): unknown => {
    if (Array.isArray(node)) return node.map((item) => walk(item, fromFile, trail));
    if (node === null || typeof node !== 'object') return node;
    const obj = node as Record<string, unknown>;
    if (typeof obj.$ref === 'string') {
      const [target = '', fragment = ''] = obj.$ref.split('#');
      const targetFile = target ? resolvePath(dirname(fromFile), target) : fromFile;
      const id = `${targetFile}#${fragment}`;
      const where = relative(schemasDir, fromFile);
      if (trail.includes(id)) throw new Error(`${where}: $ref cycle through ${obj.$ref}`);
      const resolved = walk(pointer(loadFile(targetFile), fragment, where), targetFile, [...trail, id]) as JsonSchema;
      const marker = targetFile.endsWith('kubernetes/definitions.yaml')
        ? { [kubernetesTypeKey]: fragment.split('/').pop() }
        : { [commonTypeKey]: relative(schemasDir, targetFile) };
      const siblings = walk(Object.fromEntries(Object.entries(obj).filter(([k]) => k !== '$ref')), fromFile, trail) as JsonSchema;
      const properties =
        siblings.properties === undefined ? {} : { properties: describeProperties(resolved, siblings.properties, `${where}: ${obj.$ref}`) };
      return { ...resolved, ...marker, ...siblings, ...properties };
    }
    return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, walk(v, fromFile, trail)]));
  };
  return walk(schema, file, stack) as JsonSchema;
}
