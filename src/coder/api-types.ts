// Types that tie a method and path of the Coder API to its parameters, body and answer, read from
// generated/coder-api.ts (openapi-typescript output of schemas/coder-api/openapi.yaml).
import type { components, paths } from '../../generated/coder-api.ts';

export type Schemas = components['schemas'];
export type HttpMethod = 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE';

/** The paths of the document that define method M. */
export type PathsWith<M extends HttpMethod> = {
  [P in keyof paths]: paths[P] extends { [K in Lowercase<M>]: object } ? P : never;
}[keyof paths];

export type Operation<M extends HttpMethod, P extends PathsWith<M>> = paths[P][Lowercase<M>];

type ParametersOf<Op> = Op extends { parameters: infer X } ? X : never;

/** The path parameters of an operation, or never when its path has none. */
export type PathParams<Op> = ParametersOf<Op> extends { path: infer T } ? T : never;
export type QueryParams<Op> = ParametersOf<Op> extends { query?: infer Q } ? Exclude<Q, undefined> : never;

type ContentOf<Op> = Op extends { requestBody?: { content: infer C } } ? C : never;
/** The JSON request body, or never when the operation takes none (or takes another media type). */
export type JsonBody<Op> = ContentOf<Op> extends { 'application/json': infer B } ? B : never;
/** The media types of a non-JSON body (for example application/x-tar for file uploads). */
export type RawBodyTypes<Op> = [ContentOf<Op>] extends [never]
  ? never
  : ContentOf<Op> extends { 'application/json': unknown }
    ? never
    : keyof ContentOf<Op> & string;

/** 304 too: Coder answers it to a write that changed nothing (PATCH /api/v2/templates/{id}), without a body. */
type SuccessStatus = 200 | 201 | 202 | 204 | 304;
type JsonContent<R> = R extends { content: { 'application/json': infer B } } ? B : undefined;
/** The parsed body of the operation's success answers (undefined for an answer without content, 304 included). */
export type SuccessBody<Op> = Op extends { responses: infer R }
  ? { [S in keyof R & SuccessStatus]: JsonContent<R[S]> }[keyof R & SuccessStatus]
  : never;

interface CallOptions {
  /** Cancels the call (with its retries) early. */
  signal?: AbortSignal;
  /** Overrides the client's retries for this call: 0 sends it once. */
  retries?: number;
}

type ParamsOption<Op> = [PathParams<Op>] extends [never] ? { params?: never } : { params: PathParams<Op> };
type QueryOption<Op> = [QueryParams<Op>] extends [never] ? { query?: never } : { query?: QueryParams<Op> };
type BodyOption<Op> = [JsonBody<Op>] extends [never]
  ? [RawBodyTypes<Op>] extends [never]
    ? { body?: never }
    : { body: Uint8Array; contentType: RawBodyTypes<Op> }
  : { body: JsonBody<Op> };

export type RequestOptions<Op> = ParamsOption<Op> & QueryOption<Op> & BodyOption<Op> & CallOptions;

/** The options argument may be left out when nothing in it is required. */
export type OptionsArg<Op> = {} extends RequestOptions<Op> ? [options?: RequestOptions<Op>] : [options: RequestOptions<Op>];

/** The untyped shape every RequestOptions has, as the client reads it at run time. */
export interface AnyRequestOptions extends CallOptions {
  params?: Record<string, string | number | boolean>;
  query?: Record<string, unknown>;
  body?: unknown;
  contentType?: string;
  /** Internal: answer the success body's bytes (a downloaded archive) instead of parsed JSON, up to maxBytes. */
  bytes?: { maxBytes: number };
}
