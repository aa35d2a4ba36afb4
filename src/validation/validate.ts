// Validation of one object as the API server does it for a create or update of the main resource with
// fieldValidation=Strict: decoding (unknown fields, ObjectMeta types), defaulting, ObjectMeta, the OpenAPI
// schema, list keys, then the CEL rules unless an earlier error would give them values of the wrong shape.
import { isUnchanged } from './correlation.ts';
import { evaluateRules } from './cel-rules.ts';
import { applyDefaults, pruneNulls } from './defaults.ts';
import { blocksRules, rulesNotChecked, typeInvalid, unknownField, rootPath, type ValidationError } from './error.ts';
import { listTypeErrors } from './list-types.ts';
import { metadataDecodingErrors, validateObjectMeta } from './object-meta.ts';
import { schemaErrors, type AjvError } from './schema-errors.ts';
import { isObject, type JsonObject, type StructuralNode } from './structural.ts';
import { pruneUnknownFields } from './unknown-fields.ts';

/** An ajv standalone validation function. */
export interface SchemaCheck {
  (data: unknown): boolean;
  errors?: AjvError[] | null;
}

/** What a generated validator hands to runValidation. */
export interface KindValidator {
  apiVersion: string;
  kind: string;
  structure: StructuralNode;
  matchesSchema: SchemaCheck;
  /** Whether any node has CEL rules; only then the API server adds its "rules were not checked" error. */
  hasRules: boolean;
}

/** The suffix the API server appends to generateName; any five of its characters behave alike in our rules. */
const generatedSuffix = 'bcdfg';

interface Prepared {
  object: JsonObject;
  unknown: string[];
  /** True when metadata.name was made up from generateName. */
  generatedName: boolean;
}

/**
 * A defaulted, pruned copy of `raw` as the API server would validate it. Status is dropped: writes of the
 * main resource ignore it (only the status subresource changes it).
 */
function prepare(raw: JsonObject, schema: StructuralNode): Prepared {
  const object = structuredClone(raw);
  const unknown = pruneUnknownFields(object, schema);
  delete object.status;
  pruneNulls(object, schema);
  applyDefaults(object, schema);
  let generatedName = false;
  const meta = object.metadata;
  if (isObject(meta) && !meta.name && typeof meta.generateName === 'string' && meta.generateName) {
    object.metadata = { ...meta, name: `${meta.generateName}${generatedSuffix}` };
    generatedName = true;
  }
  return { object, unknown, generatedName };
}

/** `obj` with the defaults the API server applies when it decodes it (unknown fields and status kept). */
export function withDefaults(v: KindValidator, obj: JsonObject): JsonObject {
  const copy = structuredClone(obj);
  pruneNulls(copy, v.structure);
  applyDefaults(copy, v.structure);
  return copy;
}

/**
 * The problems the API server reports for `obj`, created, or updated from `old` when given (then
 * transition rules run and, as in the API server, errors in unchanged values are forgiven).
 */
export function runValidation(v: KindValidator, obj: unknown, old?: unknown): ValidationError[] {
  if (!isObject(obj)) return [typeInvalid(rootPath, obj === null ? 'null' : typeof obj, `the object must be a JSON object`)];
  const current = prepare(obj, v.structure);
  const previous = isObject(old) ? prepare(old, v.structure).object : undefined;
  // Like the API server, stop at errors of the decoding stage: unknown fields (strict field validation)
  // and metadata that does not decode; the values after them would be checked in a later request.
  const decoding = [...current.unknown.map(unknownField), ...metadataDecodingErrors(current.object.metadata)];
  if (decoding.length) return decoding;
  const errors: ValidationError[] = [];

  const checks: ValidationError[] = validateObjectMeta(current.object.metadata, current.generatedName);
  if (!v.matchesSchema(current.object)) {
    for (const { error, at } of schemaErrors(v.matchesSchema.errors ?? [], current.object, v.structure)) {
      if (previous && isUnchanged(current.object, previous, v.structure, at)) continue;
      checks.push(error);
    }
  }
  checks.push(...listTypeErrors(current.object, v.structure));
  errors.push(...checks);

  if (v.hasRules) {
    if (checks.some(blocksRules)) errors.push(rulesNotChecked());
    else errors.push(...evaluateRules(current.object, previous, v.structure));
  }
  return errors;
}
