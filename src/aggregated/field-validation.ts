// Unknown fields in a written object (reference R19, fieldValidation): Strict refuses them with 400
// naming each, Warn (the default, as kube-apiserver) answers with a Warning header per field, Ignore
// drops them silently. Checked against the OpenAPI schema kubectl explain shows, so what kubectl
// accepts and what this server accepts agree; metadata is checked against the whole ObjectMeta.
import { schemaOfKind } from './openapi.ts';
import { badRequest } from './status.ts';

type Schema = Record<string, any>;
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** Every ObjectMeta field: a client may send any of them back (kubectl replace of what it read). */
const objectMetaFields = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

export function fieldValidation(value: string | null): FieldValidation {
  if (value === null || value === '') return 'Warn';
  if (value === 'Strict' || value === 'Warn' || value === 'Ignore') return value;
  throw badRequest(`fieldValidation "${value}" is not valid: use Strict, Warn or Ignore`);
}

function walk(value: unknown, schema: Schema, definitions: Record<string, Schema>, path: string, out: string[]): void {
  const resolved = typeof schema.$ref === 'string' ? (definitions[schema.$ref] ?? {}) : schema;
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    if (resolved.items) value.forEach((item, i) => walk(item, resolved.items, definitions, `${path}[${i}]`, out));
    return;
  }
  const properties: Record<string, Schema> | undefined = resolved.properties;
  const additional = resolved.additionalProperties;
  if (!properties && additional === undefined) return;
  for (const [key, child] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (path === 'metadata' && objectMetaFields.has(key)) continue;
    const known = properties?.[key] ?? (typeof additional === 'object' ? additional : undefined);
    if (known) walk(child, known, definitions, at, out);
    else if (additional !== true) out.push(at);
  }
}

/** The paths of the fields of `body` that `kind`'s schema does not know, like `spec.foo`. */
export function unknownFields(kind: string, body: Record<string, unknown>): string[] {
  const { root, definitions } = schemaOfKind(kind);
  const out: string[] = [];
  walk(body, root, definitions, '', out);
  return out;
}

/**
 * Applies the caller's fieldValidation to `body`: throws 400 under Strict, returns the warnings to send
 * under Warn, nothing under Ignore.
 */
export function validateFields(kind: string, body: Record<string, unknown>, mode: FieldValidation): string[] {
  if (mode === 'Ignore') return [];
  const unknown = unknownFields(kind, body).map((f) => `unknown field "${f}"`);
  if (unknown.length && mode === 'Strict') throw badRequest(`strict decoding error: ${unknown.join(', ')}`);
  return unknown;
}
