// Unknown fields in a written object (the fieldValidation parameter): Strict refuses them with 400
// naming each, Warn (the default, as kube-apiserver) answers with a Warning header per field, Ignore
// drops them silently. Checked against the OpenAPI schema kubectl explain shows, so what kubectl
// accepts and what this server accepts agree; metadata is checked as kube-apiserver checks ObjectMeta
// (the CRD validation's pruning, src/validation/unknown-fields.ts).
import type { StructuralNode } from '../../validation/structural.ts';
import { pruneUnknownFields } from '../../validation/unknown-fields.ts';
import { schemaOfKind } from './openapi.ts';
import { badRequest } from '../status.ts';

type Schema = Record<string, any>;
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** The structural form of an OpenAPI schema, `$ref`s resolved: what the pruning walks. */
function structural(schema: Schema, definitions: Record<string, Schema>): StructuralNode {
  const s = typeof schema.$ref === 'string' ? (definitions[schema.$ref] ?? {}) : schema;
  const node: StructuralNode = {};
  if (s.properties)
    node.properties = Object.fromEntries(
      Object.entries(s.properties as Record<string, Schema>).map(([k, v]) => [k, structural(v, definitions)]),
    );
  if (typeof s.additionalProperties === 'object') node.additionalProperties = structural(s.additionalProperties, definitions);
  if (s.items) node.items = structural(s.items, definitions);
  if (!s.properties && !s.additionalProperties && !s.items && s.type === 'object') node.preserveUnknownFields = true;
  return node;
}

const structuralByKind = new Map<string, StructuralNode>();

export function fieldValidation(value: string | null): FieldValidation {
  if (value === null || value === '') return 'Warn';
  if (value === 'Strict' || value === 'Warn' || value === 'Ignore') return value;
  throw badRequest(`fieldValidation "${value}" is not valid: use Strict, Warn or Ignore`);
}

/** The paths of the fields of `body` that `kind`'s schema does not know, like `spec.foo`: metadata's first, then sorted. */
export function unknownFields(kind: string, body: Record<string, unknown>): string[] {
  let node = structuralByKind.get(kind);
  if (!node) {
    const { root, definitions } = schemaOfKind(kind);
    node = structural(root, definitions);
    structuralByKind.set(kind, node);
  }
  return pruneUnknownFields(structuredClone(body), node);
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
