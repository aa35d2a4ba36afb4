// Coder's own API description (coderd/apidoc/swagger.json, Swagger 2.0, of the releases harness:build
// keeps) read for comparison with schemas/coder-api/openapi.yaml: routes by method and path shape, and the
// fields of request and response types with the ones Coder requires.
import { readFileSync } from 'node:fs';
import { coderSource } from './binaries.ts';

type Json = Record<string, any>;

/** `/api/v2/workspaceproxies/{workspaceProxy}` and `/workspaceproxies/{workspaceproxy}` both become `/api/v2/workspaceproxies/{}`. */
export function pathShape(path: string): string {
  return path.replace(/\{[^}]+\}/g, '{}').replace(/\/+$/, '');
}

/** The fields of an object schema, through $ref and allOf; nested schemas kept for a deeper look. */
export interface Fields {
  properties: Map<string, Json>;
  required: Set<string>;
}

export function fieldsOf(schema: Json | undefined, resolve: (ref: string) => Json, seen = new Set<string>()): Fields {
  const fields: Fields = { properties: new Map(), required: new Set() };
  const visit = (s: Json | undefined) => {
    if (!s || typeof s !== 'object') return;
    if (typeof s.$ref === 'string') {
      if (seen.has(s.$ref)) return;
      seen.add(s.$ref);
      visit(resolve(s.$ref));
      seen.delete(s.$ref);
    }
    for (const part of [...(s.allOf ?? []), ...(s.oneOf ?? []), ...(s.anyOf ?? [])]) visit(part);
    for (const [name, value] of Object.entries((s.properties ?? {}) as Json)) fields.properties.set(name, value);
    for (const name of s.required ?? []) fields.required.add(name);
  };
  visit(schema);
  return fields;
}

/** What a schema is at heart: an array's items or the schema itself, through $ref and allOf. */
export function elementOf(schema: Json | undefined, resolve: (ref: string) => Json): Json | undefined {
  let s = schema;
  for (let i = 0; i < 10 && s; i++) {
    if (typeof s.$ref === 'string') s = resolve(s.$ref);
    else if (s.type === 'array' || (Array.isArray(s.type) && s.type.includes('array'))) s = s.items;
    else if (Array.isArray(s.allOf) && s.allOf.length === 1 && !s.properties) s = s.allOf[0];
    else return s;
  }
  return s;
}

export interface SwaggerOperation {
  release: string;
  path: string;
  method: string;
  /** The schema of the JSON body parameter, if any. */
  body?: Json;
  /** Every parameter (path, query, header, body) as swagger lists it. */
  parameters: Json[];
  /** By status code: the response schema, if any. */
  responses: Record<string, Json | undefined>;
}

export class CoderSwagger {
  readonly release: string;
  private readonly doc: Json;
  private readonly byShape = new Map<string, SwaggerOperation>();

  constructor(release: string, doc: Json) {
    this.release = release;
    this.doc = doc;
    const base = doc.basePath && doc.basePath !== '/' ? doc.basePath : '';
    for (const [path, item] of Object.entries((doc.paths ?? {}) as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        if (!['get', 'put', 'post', 'patch', 'delete'].includes(method)) continue;
        const body = ((op as Json).parameters ?? []).find((p: Json) => p.in === 'body')?.schema;
        const responses: Record<string, Json | undefined> = {};
        for (const [status, r] of Object.entries(((op as Json).responses ?? {}) as Json)) responses[status] = (r as Json).schema;
        const full = `${base}${path}`;
        const parameters = ((op as Json).parameters ?? []) as Json[];
        this.byShape.set(`${method.toUpperCase()} ${pathShape(full)}`, { release, path: full, method, body, parameters, responses });
      }
    }
  }

  static load(release: string): CoderSwagger {
    return new CoderSwagger(release, JSON.parse(readFileSync(coderSource(release, 'swagger.json'), 'utf8')));
  }

  /** The operation of a path template, or of a literal path one of Coder's templates covers (`/users/me`). */
  operation(method: string, path: string): SwaggerOperation | undefined {
    const exact = this.byShape.get(`${method.toUpperCase()} ${pathShape(path)}`);
    if (exact) return exact;
    const segments = pathShape(path).split('/');
    for (const [key, op] of this.byShape) {
      const [m, shape] = key.split(' ') as [string, string];
      if (m !== method.toUpperCase()) continue;
      const theirs = shape.split('/');
      if (theirs.length === segments.length && theirs.every((t, i) => t === segments[i] || (t === '{}' && segments[i] !== '{}'))) return op;
    }
    return undefined;
  }

  readonly resolve = (ref: string): Json => {
    const name = ref.replace(/^#\/definitions\//, '');
    const found = this.doc.definitions?.[name];
    if (!found) throw new Error(`swagger ${this.release}: no definition ${name}`);
    return found;
  };
}
