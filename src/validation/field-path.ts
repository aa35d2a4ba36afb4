// Field paths as the API server prints them. Two printers, because two parts of the API server build
// paths differently: field.Path (CEL rules, list keys) prints map keys as [key]; the OpenAPI schema
// validator and pruning join map keys with a dot, like properties.
import { rootPath } from './error.ts';
import type { StructuralNode } from './structural.ts';

export type Segment = { field: string } | { key: string } | { index: number };

/** field.Path.String(): spec.extraEnv[0].name, spec.service.annotations[key]; `<nil>` for the root. */
export function fieldPath(segments: readonly Segment[]): string {
  if (segments.length === 0) return rootPath;
  let out = '';
  for (const s of segments) {
    if ('field' in s) out += out ? `.${s.field}` : s.field;
    else if ('key' in s) out += `[${s.key}]`;
    else out += `[${s.index}]`;
  }
  return out;
}

/** The OpenAPI validator's path: like fieldPath, but map keys are joined with a dot. */
export function openApiPath(segments: readonly Segment[]): string {
  let out = '';
  for (const s of segments) {
    if ('index' in s) out += `[${s.index}]`;
    else {
      const name = 'field' in s ? s.field : s.key;
      out += out ? `.${name}` : name;
    }
  }
  return out;
}

/** The segments of an ajv instancePath (a JSON pointer), named by the schema it descends through. */
export function pointerSegments(pointer: string, schema: StructuralNode): Segment[] {
  const segments: Segment[] = [];
  let node: StructuralNode | undefined = schema;
  for (const raw of pointer.split('/').slice(1)) {
    const name = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node?.type === 'array') {
      segments.push({ index: Number(name) });
      node = node.items;
    } else if (node?.properties?.[name]) {
      segments.push({ field: name });
      node = node.properties[name];
    } else if (node?.additionalProperties) {
      segments.push({ key: name });
      node = node.additionalProperties;
    } else {
      segments.push({ field: name });
      node = undefined;
    }
  }
  return segments;
}

/** The schema node at a path, if the schema declares one. */
export function schemaAt(schema: StructuralNode, segments: readonly Segment[]): StructuralNode | undefined {
  let node: StructuralNode | undefined = schema;
  for (const s of segments) {
    if (!node) return undefined;
    node = 'index' in s ? node.items : 'field' in s ? (node.properties?.[s.field] ?? node.additionalProperties) : node.additionalProperties;
  }
  return node;
}

/** The value at a path. */
export function valueAt(value: unknown, segments: readonly Segment[]): unknown {
  let node = value;
  for (const s of segments) {
    if (node === null || typeof node !== 'object') return undefined;
    node = 'index' in s ? (node as unknown[])[s.index] : (node as Record<string, unknown>)['field' in s ? s.field : s.key];
  }
  return node;
}
