// schemas/coder-api/openapi.yaml as the API double reads it: the operations by method and path, and
// ajv (JSON Schema 2020-12, as OpenAPI 3.1 uses) compiled from the same document.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { isDateTime, isUuid } from '../../../src/validation/formats.ts';

export const documentFile = new URL('../../../schemas/coder-api/openapi.yaml', import.meta.url);
const documentId = 'coder-api';

export type Schema = Record<string, unknown>;

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: Schema;
  /** Coder's answer to a path segment of the wrong shape, where its handler parses the segment itself. */
  'x-coder-invalid'?: { status: number; message: string };
}

export interface ResponseSpec {
  /** The JSON schema of the body, or undefined when the answer has no JSON content. */
  schema?: Schema;
  /** The media types of a binary answer (a downloaded archive), when it has no JSON content. */
  binaryTypes?: string[];
}

export interface Operation {
  operationId: string;
  method: string;
  pathTemplate: string;
  parameters: Parameter[];
  /** Whether a Coder-Session-Token is required (the operation's security, else the document's). */
  secured: boolean;
  requestBody?: { required: boolean; mediaTypes: Record<string, Schema | undefined> };
  responses: Record<string, ResponseSpec>;
}

interface Route {
  pattern: RegExp;
  names: string[];
  templated: number;
  operations: Map<string, Operation>;
  pathTemplate: string;
}

export interface Match {
  operation: Operation;
  pathParams: Record<string, string>;
}

const methods = ['get', 'put', 'post', 'patch', 'delete'] as const;

export class CoderApiDocument {
  readonly ajv: Ajv2020;
  private readonly routes: Route[];
  private readonly validators = new Map<string, ValidateFunction>();
  readonly raw: Schema;

  constructor(raw: Schema) {
    this.raw = raw;
    this.ajv = createAjv(raw);
    this.routes = buildRoutes(raw, (ref) => this.resolve(ref));
  }

  /** The operation serving a method and an (encoded) path; literal segments win over templated ones. */
  match(method: string, path: string): Match | undefined {
    for (const route of this.routes) {
      const found = route.pattern.exec(path);
      if (!found) continue;
      const operation = route.operations.get(method.toLowerCase());
      if (!operation) continue;
      const pathParams: Record<string, string> = {};
      route.names.forEach((name, i) => {
        pathParams[name] = safeDecode(found[i + 1]!);
      });
      return { operation, pathParams };
    }
    return undefined;
  }

  /** The methods (upper case) the document serves on this (encoded) path; none for an unknown path. */
  methodsOf(path: string): string[] {
    const methods = this.routes.filter((route) => route.pattern.test(path)).flatMap((route) => [...route.operations.keys()]);
    return [...new Set(methods.map((m) => m.toUpperCase()))];
  }

  /** A validator for a schema of the document; local $refs point into the document. */
  validator(key: string, schema: Schema): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(pointRefsAtDocument(schema) as Schema);
      this.validators.set(key, validate);
    }
    return validate;
  }

  /** Follows a local $ref (#/components/...) through the document. */
  resolve<T = Schema>(value: unknown): T {
    let current = value as Schema;
    for (let hops = 0; typeof current?.$ref === 'string' && hops < 10; hops++) {
      const pointer = current.$ref as string;
      if (!pointer.startsWith('#/')) throw new Error(`openapi.yaml: only local $refs are supported, not ${pointer}`);
      current = pointer
        .slice(2)
        .split('/')
        .reduce<unknown>((node, part) => (node as Schema | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], this.raw) as Schema;
      if (current === undefined) throw new Error(`openapi.yaml: $ref ${pointer} points at nothing`);
    }
    return current as T;
  }
}

let loaded: CoderApiDocument | undefined;

/** The document, read and compiled once per process. */
export function coderApiDocument(): CoderApiDocument {
  loaded ??= new CoderApiDocument(parse(readFileSync(documentFile, 'utf8')) as Schema);
  return loaded;
}

function createAjv(raw: Schema): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  // The document's top-level OpenAPI fields are not schema keywords; declaring them keeps strict mode
  // on for every schema inside.
  for (const keyword of Object.keys(raw)) {
    if (!ajv.getKeyword(keyword) && !keyword.startsWith('$')) ajv.addKeyword({ keyword });
  }
  ajv.addFormat('uuid', { type: 'string', validate: isUuid });
  ajv.addFormat('date-time', { type: 'string', validate: isDateTime });
  ajv.addFormat('email', { type: 'string', validate: (s: string) => /^[^\s@]+@[^\s@]+$/.test(s) });
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('binary', true);
  ajv.addSchema({ ...raw, $id: documentId });
  return ajv;
}

function pointRefsAtDocument(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(pointRefsAtDocument);
  if (value === null || typeof value !== 'object') return value;
  const out: Schema = {};
  for (const [key, child] of Object.entries(value)) {
    out[key] = key === '$ref' && typeof child === 'string' && child.startsWith('#/') ? `${documentId}${child}` : pointRefsAtDocument(child);
  }
  return out;
}

function buildRoutes(raw: Schema, resolve: <T>(value: unknown) => T): Route[] {
  const globalSecured = Array.isArray(raw.security) && raw.security.length > 0;
  const routes: Route[] = [];
  for (const [pathTemplate, item] of Object.entries((raw.paths ?? {}) as Record<string, Schema>)) {
    const names: string[] = [];
    const source = pathTemplate
      .split('/')
      .map((segment) =>
        segment.replace(/\{([^}]+)\}|[^{]+/g, (part, name?: string) => {
          if (name === undefined) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          names.push(name);
          return '([^/]+)';
        }),
      )
      .join('/');
    const shared = ((item.parameters ?? []) as unknown[]).map((p) => resolve<Parameter>(p));
    const operations = new Map<string, Operation>();
    for (const method of methods) {
      const op = item[method] as Schema | undefined;
      if (!op) continue;
      const own = ((op.parameters ?? []) as unknown[]).map((p) => resolve<Parameter>(p));
      const parameters = [...shared.filter((p) => !own.some((o) => o.name === p.name && o.in === p.in)), ...own].map((p) => ({
        ...p,
        required: p.required === true,
      }));
      const security = op.security as unknown[] | undefined;
      operations.set(method, {
        operationId: String(op.operationId),
        method: method.toUpperCase(),
        pathTemplate,
        parameters,
        secured: security === undefined ? globalSecured : security.length > 0,
        ...(op.requestBody ? { requestBody: requestBodyOf(resolve<Schema>(op.requestBody)) } : {}),
        responses: responsesOf((op.responses ?? {}) as Schema, resolve),
      });
    }
    routes.push({ pattern: new RegExp(`^${source}$`), names, templated: names.length, operations, pathTemplate });
  }
  return routes.sort((a, b) => a.templated - b.templated);
}

function requestBodyOf(body: Schema): NonNullable<Operation['requestBody']> {
  const mediaTypes: Record<string, Schema | undefined> = {};
  for (const [type, media] of Object.entries((body.content ?? {}) as Record<string, Schema>)) {
    mediaTypes[type] = media.schema as Schema | undefined;
  }
  return { required: body.required === true, mediaTypes };
}

function responsesOf(responses: Schema, resolve: <T>(value: unknown) => T): Record<string, ResponseSpec> {
  const out: Record<string, ResponseSpec> = {};
  for (const [status, value] of Object.entries(responses)) {
    const response = resolve<Schema>(value);
    const content = (response.content ?? {}) as Record<string, Schema>;
    const json = content['application/json'];
    const binaryTypes = Object.keys(content).filter((type) => type !== 'application/json');
    out[status] = json?.schema ? { schema: json.schema as Schema } : binaryTypes.length ? { binaryTypes } : {};
  }
  return out;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
