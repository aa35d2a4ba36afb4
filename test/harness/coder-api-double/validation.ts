// Checks one request against its operation in the document, and one answer of the double against the
// response the document declares, turning ajv errors into Coder's {field, detail} validations.
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { CoderApiDocument, Operation, Parameter, Schema } from './document.ts';

export interface FieldError {
  field: string;
  detail: string;
}

export interface RequestParts {
  pathParams: Record<string, string>;
  query: URLSearchParams;
  headers: Record<string, string>;
  contentType: string;
  rawBody: Buffer;
}

/** An answer in Coder's error shape, or undefined when the request matches its operation. */
export type Rejection = { status: number; body: { message: string; detail?: string; validations?: FieldError[] } };

export interface ValidRequest {
  params: Record<string, unknown>;
  /** The parsed JSON body, the raw bytes of a binary body, or undefined. */
  body: unknown;
  /**
   * Body fields the operation's schema does not have, dropped from body. Coder's JSON decoding ignores
   * them silently (coderd/httpapi/httpapi.go Read), so the double answers as Coder would and the caller
   * records them: a request that relies on a field Coder does not know would not do what it asks.
   */
  unknownFields?: string[];
}

export function validateRequest(doc: CoderApiDocument, op: Operation, parts: RequestParts): ValidRequest | Rejection {
  const params: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const parameter of op.parameters) {
    const raw = rawParameter(parameter, parts);
    if (raw === undefined) {
      if (parameter.required) errors.push({ field: parameter.name, detail: requiredDetail });
      continue;
    }
    const value = coerce(raw, parameter.schema);
    const validate = doc.validator(`${op.operationId}:${parameter.in}:${parameter.name}`, parameter.schema);
    if (!validate(value)) {
      if (parameter.in === 'path') return invalidPathParameter(parameter, raw);
      errors.push(...toFieldErrors(validate.errors ?? [], parameter.name));
      continue;
    }
    params[parameter.name] = value;
  }
  // coder/coder v2.26.1 coderd/pagination.go ParsePagination (httpapi.QueryParamParser): one 400 for them all.
  if (errors.length > 0) {
    return { status: 400, body: { message: 'Query parameters have invalid values.', validations: errors } };
  }

  const spec = op.requestBody;
  if (!spec) return { params, body: undefined };
  if (parts.rawBody.length === 0 && !spec.required) return { params, body: undefined };
  if ('application/json' in spec.mediaTypes) {
    let body: unknown;
    try {
      body = JSON.parse(parts.rawBody.toString('utf8'));
    } catch (err) {
      return { status: 400, body: { message: 'Request body must be valid JSON.', detail: (err as Error).message } };
    }
    const schema = spec.mediaTypes['application/json'];
    if (schema) {
      const validate = doc.validator(`${op.operationId}:body`, schema);
      const unknownFields = dropUnknownFields(body, validate);
      if (!validate(body)) return bodyRejection(validate.errors ?? []);
      return unknownFields.length > 0 ? { params, body, unknownFields } : { params, body };
    }
    return { params, body };
  }
  const mediaType = parts.contentType.split(';')[0]!.trim().toLowerCase();
  if (!(mediaType in spec.mediaTypes)) {
    return {
      status: 400,
      body: { message: `Unsupported Content-Type "${mediaType}".`, detail: `Use one of: ${Object.keys(spec.mediaTypes).join(', ')}.` },
    };
  }
  return { params, body: parts.rawBody };
}

/**
 * Coder's answer to a path segment its route cannot use: the parameter's own (x-coder-invalid in the
 * document, where a handler parses it itself), or that of coder/coder v2.26.1 coderd/httpmw/httpmw.go
 * ParseUUIDParam for an id.
 */
function invalidPathParameter(parameter: Parameter, raw: string): Rejection {
  const own = parameter['x-coder-invalid'];
  if (own) return { status: own.status, body: { message: own.message } };
  const detail = raw.length === 36 ? 'invalid UUID format' : `invalid UUID length: ${raw.length}`;
  return { status: 400, body: { message: `Invalid UUID ${JSON.stringify(raw)}.`, detail } };
}

/** Deletes the fields validation calls additional (the schema does not have them); returns their paths. */
function dropUnknownFields(body: unknown, validate: ValidateFunction): string[] {
  const dropped: string[] = [];
  for (let round = 0; round < 10 && !validate(body); round++) {
    const extra = (validate.errors ?? []).filter((e) => e.keyword === 'additionalProperties');
    if (extra.length === 0) break;
    for (const error of extra) {
      const path = error.instancePath
        .split('/')
        .slice(1)
        .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
      const owner = path.reduce<any>((node, part) => node?.[part], body);
      const name = String(error.params.additionalProperty);
      if (owner && typeof owner === 'object' && name in owner) {
        delete owner[name];
        dropped.push([...path, name].join('.'));
      }
    }
  }
  return dropped;
}

/**
 * Coder's answer to a body its handler refuses (coderd/httpapi/httpapi.go Read): Go's JSON decoder fails
 * on a value of the wrong type ("Request body must be valid JSON."), the struct's validate tags on the rest.
 */
function bodyRejection(errors: ErrorObject[]): Rejection {
  const wrongType = errors.find((e) => e.keyword === 'type');
  if (wrongType) {
    const field = wrongType.instancePath.split('/').slice(1).join('.') || '(body)';
    return {
      status: 400,
      body: { message: 'Request body must be valid JSON.', detail: `json: cannot unmarshal into field ${field}: ${wrongType.message}` },
    };
  }
  return { status: 400, body: { message: 'Validation failed.', validations: toFieldErrors(errors) } };
}

export function isRejection(value: ValidRequest | Rejection): value is Rejection {
  return 'status' in value;
}

/**
 * What is wrong with an answer of the double for this operation, or undefined when it matches the
 * document: a status the operation does not declare (and no default), a body where the document has
 * none, or a body that fails the response schema.
 */
export function checkResponse(doc: CoderApiDocument, op: Operation, status: number, body: unknown): string | undefined {
  const key =
    String(status) in op.responses ? String(status) : `${String(status)[0]}XX` in op.responses ? `${String(status)[0]}XX` : 'default';
  const spec = op.responses[key];
  const where = `${op.operationId} (${op.method} ${op.pathTemplate}) answered ${status}`;
  if (!spec) return `${where}, a status the document does not declare`;
  if (spec.binaryTypes)
    return body instanceof Uint8Array ? undefined : `${where} with a body that is not bytes (${spec.binaryTypes.join(', ')})`;
  if (!spec.schema) return body === undefined ? undefined : `${where} with a body, but the document declares none`;
  if (body === undefined) return `${where} without a body, but the document declares one`;
  const validate = doc.validator(`${op.operationId}:response:${key}`, spec.schema);
  if (validate(body)) return undefined;
  const errors = toFieldErrors(validate.errors ?? []).map((e) => `${e.field || '(body)'}: ${e.detail}`);
  return `${where} with a body that does not match the document: ${errors.join('; ')}`;
}

const requiredDetail = 'Validation failed for tag "required" with value: ""';

function rawParameter(parameter: Parameter, parts: RequestParts): string | undefined {
  switch (parameter.in) {
    case 'path':
      return parts.pathParams[parameter.name];
    case 'query':
      return parts.query.has(parameter.name) ? parts.query.getAll(parameter.name).at(-1) : undefined;
    case 'header':
      return parts.headers[parameter.name.toLowerCase()];
    default:
      return undefined;
  }
}

/** Query, path and header values are text; the schema says whether a number or boolean is meant. */
function coerce(raw: string, schema: Schema): unknown {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  if (types.includes('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

function toFieldErrors(errors: ErrorObject[], prefix = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const path = [prefix, ...error.instancePath.split('/').slice(1)].filter((s) => s !== '');
    if (error.keyword === 'required') {
      out.push({ field: [...path, String(error.params.missingProperty)].join('.'), detail: requiredDetail });
    } else if (error.keyword === 'additionalProperties') {
      out.push({ field: [...path, String(error.params.additionalProperty)].join('.'), detail: 'unknown field' });
    } else {
      out.push({ field: path.join('.'), detail: error.message ?? error.keyword });
    }
  }
  return out;
}
