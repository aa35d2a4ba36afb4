// A validation problem as the API server reports it: field path, error type, StatusCause reason and the
// cause message (field.Error.ErrorBody), so that offline results read like kubectl's.
import { goJson, goQuote, goValue } from './go-format.ts';

export type ValidationErrorType =
  | 'Required value'
  | 'Invalid value'
  | 'Unsupported value'
  | 'Too long'
  | 'Too many'
  | 'Duplicate value'
  | 'Forbidden'
  | 'field not declared in schema';

export interface ValidationError {
  /** The API server's field path, e.g. spec.extraEnv[0].name; `<nil>` for rules about the whole object. */
  path: string;
  type: ValidationErrorType;
  /**
   * The StatusCause reason the API server sends (FieldValueInvalid, FieldValueTypeInvalid, ...), or
   * BadRequest for what fails while it decodes the request (an unknown field under strict field
   * validation, metadata of the wrong type): it names those in a 400 message instead of causes.
   */
  reason: string;
  /** The cause message, e.g. `Unsupported value: "Foo": supported values: "A", "B"`. */
  message: string;
}

/** The path of an error about the whole object: a nil field.Path prints as `<nil>`. */
export const rootPath = '<nil>';

/** Marks a bad value that the API server leaves out of the message (field.OmitValueType). */
export const omitValue = Symbol('omit value');

function body(type: string, value: unknown, detail: string): string {
  const head = value === omitValue ? type : `${type}: ${goValue(value)}`;
  return detail ? `${head}: ${detail}` : head;
}

export function required(path: string, detail = ''): ValidationError {
  return { path, type: 'Required value', reason: 'FieldValueRequired', message: detail ? `Required value: ${detail}` : 'Required value' };
}

export function invalid(path: string, value: unknown, detail: string): ValidationError {
  return { path, type: 'Invalid value', reason: 'FieldValueInvalid', message: body('Invalid value', value, detail) };
}

/** A value of the wrong type (or format): its own reason, and one of the errors that stop CEL rules. */
export function typeInvalid(path: string, value: unknown, detail: string): ValidationError {
  return { path, type: 'Invalid value', reason: 'FieldValueTypeInvalid', message: body('Invalid value', value, detail) };
}

export function notSupported(path: string, value: unknown, supported: unknown[]): ValidationError {
  // Non-string enum values are JSON-encoded first; every entry is then quoted.
  const list = supported.map((v) => goQuote(typeof v === 'string' ? v : goJson(v))).join(', ');
  return {
    path,
    type: 'Unsupported value',
    reason: 'FieldValueNotSupported',
    message: body('Unsupported value', value, supported.length ? `supported values: ${list}` : ''),
  };
}

export function tooLong(path: string, maxLength: number): ValidationError {
  return { path, type: 'Too long', reason: 'FieldValueTooLong', message: `Too long: may not be more than ${maxLength} bytes` };
}

export function tooMany(path: string, actual: number, max: number): ValidationError {
  return { path, type: 'Too many', reason: 'FieldValueTooMany', message: `Too many: ${actual}: must have at most ${max} items` };
}

export function duplicate(path: string, value: unknown): ValidationError {
  return { path, type: 'Duplicate value', reason: 'FieldValueDuplicate', message: body('Duplicate value', value, '') };
}

export function forbidden(path: string, detail: string): ValidationError {
  return { path, type: 'Forbidden', reason: 'FieldValueForbidden', message: detail ? `Forbidden: ${detail}` : 'Forbidden' };
}

export function unknownField(path: string): ValidationError {
  return { path, type: 'field not declared in schema', reason: 'BadRequest', message: `unknown field "${path}"` };
}

/** A value that does not decode into its Go type (the API server answers 400 with Go's message). */
export function undecodable(path: string, message: string): ValidationError {
  return { path, type: 'Invalid value', reason: 'BadRequest', message };
}

/**
 * Errors after which the API server does not run CEL rules (OpenAPI type, required, enum, maxLength and
 * maxItems violations): the rules would see values of the wrong shape.
 */
export function blocksRules(error: ValidationError): boolean {
  return (
    error.reason === 'FieldValueNotSupported' ||
    error.reason === 'FieldValueRequired' ||
    error.reason === 'FieldValueTooLong' ||
    error.reason === 'FieldValueTooMany' ||
    error.reason === 'FieldValueTypeInvalid'
  );
}

const jsonTypeMismatch = / in body must be of type (array|boolean|integer|number|object|string): /;

/**
 * A value of the wrong JSON type (a string where an integer belongs), as opposed to a string that breaks
 * its format: the API server reports both as FieldValueTypeInvalid.
 */
export function isWrongType(error: ValidationError): boolean {
  return error.reason === 'FieldValueTypeInvalid' && (error.path === rootPath || jsonTypeMismatch.test(error.message));
}

/** The error the API server adds, at the root, when blocking errors kept it from running the rules. */
export function rulesNotChecked(): ValidationError {
  return invalid(
    rootPath,
    null,
    'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
  );
}
