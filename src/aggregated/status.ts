// metav1.Status answers of the aggregated API server, and the error that carries one out of a handler.
import { aggregatedGroup, aggregatedGroupVersion, aggregatedVersion } from '../../generated/aggregated/resources.ts';

/** The group served (schemas/aggregated/group.yaml), named in Status details and messages. */
export const group = aggregatedGroup;
export const version = aggregatedVersion;
export const groupVersion = aggregatedGroupVersion;

export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: { name?: string; group?: string; kind?: string; retryAfterSeconds?: number };
  code: number;
}

/** A request ends with this Status; thrown anywhere below the router. */
export class ApiStatusError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly details?: StatusBody['details'];
  constructor(code: number, reason: string, message: string, details?: StatusBody['details']) {
    super(message);
    this.code = code;
    this.reason = reason;
    this.details = details;
  }

  body(): StatusBody {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details ? { details: this.details } : {}),
      code: this.code,
    };
  }
}

export const badRequest = (message: string) => new ApiStatusError(400, 'BadRequest', message);
export const unauthorized = (message = 'Unauthorized') => new ApiStatusError(401, 'Unauthorized', message);
export const forbidden = (message: string) => new ApiStatusError(403, 'Forbidden', message);
export const notFoundPath = () => new ApiStatusError(404, 'NotFound', 'the server could not find the requested resource');
export const methodNotAllowed = (method: string) =>
  new ApiStatusError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource: ${method}`);
export const conflict = (message: string) => new ApiStatusError(409, 'Conflict', message);
export const unavailable = (message: string) => new ApiStatusError(503, 'ServiceUnavailable', message);
export const internalError = (message: string) => new ApiStatusError(500, 'InternalError', `Internal error occurred: ${message}`);

export function notFound(resource: string, name: string): ApiStatusError {
  return new ApiStatusError(404, 'NotFound', `${resource}.${group} "${name}" not found`, { name, group, kind: resource });
}

export function success(): Omit<StatusBody, 'reason' | 'message'> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 };
}
