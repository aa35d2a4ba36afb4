// ajv's findings turned into the errors the API server's OpenAPI validator (kube-openapi) reports for the
// same value: its error types, paths ("spec.extraEnv[0].name", map keys joined with a dot) and wording.
import { invalid, notSupported, required, rootPath, tooLong, tooMany, typeInvalid, type ValidationError } from './error.ts';
import { openApiPath, pointerSegments, schemaAt, valueAt, type Segment } from './field-path.ts';
import { goQuote, goValue } from './go-format.ts';
import type { StructuralNode } from './structural.ts';

/** The part of an ajv ErrorObject that the mapping reads. */
export interface AjvError {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
}

/** A mapped error and the node it was found at (for ratcheting on update). */
export interface SchemaError {
  error: ValidationError;
  at: Segment[];
}

/** kube-openapi's name and format for the Go type a JSON value decodes to. */
function goTypeOf(value: unknown): [type: string, format: string] {
  if (typeof value === 'boolean') return ['boolean', ''];
  if (typeof value === 'string') return ['string', ''];
  if (typeof value === 'number') return Number.isInteger(value) ? ['integer', 'int64'] : ['number', 'float64'];
  if (Array.isArray(value)) return ['array', ''];
  return ['object', ''];
}

/**
 * The type kube-openapi says a value must have and the name of what it found: a formatted field
 * (int32, date-time, ...) names its format unless the value is a string or an array.
 */
function typeMismatch(expected: string, format: string | undefined, value: unknown): [must: string, found: string] {
  if (value === null) return [expected, 'null'];
  const [found, foundFormat] = goTypeOf(value);
  const types = expected.split(',');
  const intAsNumber = found === 'integer' && types.includes('number');
  if (found !== 'string' && found !== 'array' && format && !(types.includes(found) || foundFormat === format || intAsNumber)) {
    return [format, foundFormat];
  }
  return [expected, found];
}

/** kube-openapi's check that an integer is an integer of its format (int32 range, or any int64). */
function rangeError(path: string, format: string | undefined): ValidationError {
  const what = format === 'int32' || format === 'int64' ? `with format ${format}` : '(default format)';
  return invalid(rootPath, '', `Checked value must be of type integer ${what} in ${path}`);
}

/** Index of the anyOf branch an error belongs to, if it comes from inside one. */
function anyOfBranch(schemaPath: string): number | undefined {
  const m = /\/anyOf\/(\d+)\/[^/]*$/.exec(schemaPath) ?? /\/anyOf\/(\d+)\//.exec(schemaPath);
  return m ? Number(m[1]) : undefined;
}

function mapError(e: AjvError, object: unknown, schema: StructuralNode): ValidationError[] {
  const at = pointerSegments(e.instancePath, schema);
  const node = schemaAt(schema, at);
  const value = valueAt(object, at);
  const path = openApiPath(at);
  const where = path || rootPath;
  const limit = e.params.limit as number;
  const inBranch = anyOfBranch(e.schemaPath) !== undefined;
  switch (e.keyword) {
    case 'type': {
      const format = inBranch ? undefined : node?.format;
      const [must, found] = typeMismatch(String(e.params.type), format, value);
      const errors = [typeInvalid(where, found, `${path} in body must be of type ${must}: ${goQuote(found)}`)];
      if (String(e.params.type) === 'integer' && typeof value === 'number') errors.push(rangeError(path, format));
      return errors;
    }
    case 'format':
      if (node?.type === 'integer') return Number.isInteger(value) ? [rangeError(path, node.format)] : [];
      return [typeInvalid(where, value, `${path} in body must be of type ${String(e.params.format)}: ${goValue(value)}`)];
    case 'required': {
      const missing: Segment[] = [...at, { field: String(e.params.missingProperty) }];
      return [required(openApiPath(missing))];
    }
    case 'enum':
      return [notSupported(where, value, e.params.allowedValues as unknown[])];
    case 'pattern':
      return [invalid(where, value, `${path} in body should match '${String(e.params.pattern)}'`)];
    case 'minLength':
      return [invalid(where, value, `${path} in body should be at least ${limit} chars long`)];
    case 'maxLength':
      return [tooLong(where, limit)];
    case 'minimum':
      return [invalid(where, value, `${path} in body should be greater than or equal to ${goValue(limit)}`)];
    case 'maximum':
      return [invalid(where, value, `${path} in body should be less than or equal to ${goValue(limit)}`)];
    case 'minItems': {
      const count = Array.isArray(value) ? value.length : 0;
      return [invalid(where, count, `${path} in body should have at least ${limit} items`)];
    }
    case 'maxItems':
      return [tooMany(where, Array.isArray(value) ? value.length : 0, limit)];
    case 'anyOf':
      return [invalid(rootPath, '', `${goQuote(path)} must validate at least one schema (anyOf)`)];
    default:
      return [invalid(where, value, `${path} in body fails ${e.keyword}`)];
  }
}

/**
 * Maps ajv's errors for `object`. Of a failed anyOf, like kube-openapi, only the first branch's own
 * errors are kept (for x-kubernetes-int-or-string, the integer branch).
 */
export function schemaErrors(errors: readonly AjvError[], object: unknown, schema: StructuralNode): SchemaError[] {
  const out: SchemaError[] = [];
  for (const e of errors) {
    const branch = anyOfBranch(e.schemaPath);
    if (branch !== undefined && branch > 0) continue;
    for (const error of mapError(e, object, schema)) out.push({ error, at: pointerSegments(e.instancePath, schema) });
  }
  return out;
}
