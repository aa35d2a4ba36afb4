// Writing an answer: a JSON document, an object in the rendering the caller asked for, or the Status of a
// failed request (with WWW-Authenticate on 401 and Retry-After when the Status says when to retry).
import type { ServerResponse } from 'node:http';
import type { AggregatedObject } from '../../../generated/aggregated/types.ts';
import type { Logger } from '../../runtime/logger.ts';
import { ApiStatusError } from '../status.ts';
import { partialMetadata, type Rendering } from './negotiation.ts';
import { table } from './table.ts';

export function sendJson(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-cache, private',
  });
  res.end(text);
}

/** One object of `kind`: as itself, as a Table of one row, or as its PartialObjectMetadata. */
export function sendObject(res: ServerResponse, code: number, obj: AggregatedObject, rendering: Rendering, kind: string): void {
  if (rendering.as === 'table')
    return sendJson(res, code, table([obj], { version: rendering.version, kind, includeObject: null, noHeaders: false }));
  if (rendering.as === 'metadata') return sendJson(res, code, partialMetadata(obj, rendering.version));
  sendJson(res, code, obj);
}

/** The Status of `err`: its own when it is an ApiStatusError, else a 500 that names no detail (the log has it). */
export function sendFailure(res: ServerResponse, err: unknown, logger: Logger, request: { method: string; path: string }): void {
  const status =
    err instanceof ApiStatusError
      ? err
      : new ApiStatusError(500, 'InternalError', 'Internal error occurred: an unexpected error; see the operator log');
  if (!(err instanceof ApiStatusError)) logger.error({ err: (err as Error)?.message, ...request }, 'aggregated API request failed');
  // A streamed answer (a watch, a followed log) already began: it can only end.
  if (res.headersSent) {
    res.end();
    return;
  }
  if (status.code === 401) res.setHeader('WWW-Authenticate', 'Bearer');
  if (status.details?.retryAfterSeconds) res.setHeader('Retry-After', String(status.details.retryAfterSeconds));
  sendJson(res, status.code, status.body());
}
