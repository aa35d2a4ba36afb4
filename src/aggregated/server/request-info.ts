// Request paths of the aggregated API and the attributes each one is authorized with, read as
// kube-apiserver's RequestInfoFactory reads them (k8s.io/apiserver pkg/endpoints/request/requestinfo.go),
// so that a Role allows and denies here exactly what it would on a built-in resource: an item GET is a
// `get` whatever its query says, a collection GET is `watch` unless `watch` is absent, "0" or "false",
// a collection list or watch whose field selector requires one `metadata.name` is authorized for that
// name (unless an option of the query fails to decode), and `/watch/` before the path is the per-object watch.
import { exactName, listOptionsError } from './selectors.ts';
import { badRequest, group, version } from '../status.ts';

export type Route =
  | { type: 'discovery'; doc: 'apis' | 'group' | 'version' }
  | { type: 'openapi'; doc: 'v2' | 'v3' | 'v3group' }
  | {
      type: 'resource';
      resource: string;
      namespace: string;
      name?: string;
      subresource?: string;
      verb: string;
      /** The `/watch/` form: a watch of the one object `name` (or of the collection without one). */
      watchPath?: true;
    }
  | { type: 'unknown' };

const healthPaths = new Set(['/healthz', '/livez', '/readyz']);

/** Whether the request is for a health path, compared as sent: the only requests served without a user. */
export function isHealthPath(rawUrl: string | undefined): boolean {
  return healthPaths.has((rawUrl ?? '').split('?', 1)[0]!);
}

/** The path, percent-decoded as Go's net/http gives it to kube-apiserver, and the query; 400 when malformed. */
export function requestTarget(rawUrl: string | undefined): { path: string; query: URLSearchParams } {
  let url: URL;
  let path: string;
  try {
    url = new URL(rawUrl ?? '/', 'https://aggregated.invalid');
    path = decodeURIComponent(url.pathname);
  } catch {
    throw badRequest('the request path is not valid: a "%" must start a percent-encoded byte');
  }
  return { path, query: url.searchParams };
}

/** As Go's bool query parameters: absent, "0" and "false" (any case) are false; any other value is true. */
function isWatch(query: URLSearchParams): boolean {
  const value = query.get('watch');
  return value !== null && value !== '0' && value.toLowerCase() !== 'false';
}

/** kube-apiserver names the request only when the name can be a path segment. */
function pathSegmentName(name: string | undefined): string | undefined {
  return name && name !== '.' && name !== '..' && !/[/%]/.test(name) ? name : undefined;
}

const methodVerbs: Record<string, string> = { POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

export function route(method: string, path: string, query: URLSearchParams): Route {
  if (path === '/apis') return { type: 'discovery', doc: 'apis' };
  if (path === `/apis/${group}`) return { type: 'discovery', doc: 'group' };
  if (path === `/apis/${group}/${version}`) return { type: 'discovery', doc: 'version' };
  if (path === '/openapi/v2') return { type: 'openapi', doc: 'v2' };
  if (path === '/openapi/v3') return { type: 'openapi', doc: 'v3' };
  if (path === `/openapi/v3/apis/${group}/${version}`) return { type: 'openapi', doc: 'v3group' };
  const prefix = `/apis/${group}/${version}/`;
  if (!path.startsWith(prefix)) return { type: 'unknown' };
  let parts = path.slice(prefix.length).split('/');
  const watchPath = parts[0] === 'watch';
  if (watchPath) parts = parts.slice(1);
  if (parts.some((p) => p === '')) return { type: 'unknown' };
  let verb = watchPath ? 'watch' : (methodVerbs[method] ?? '');
  let resource: string;
  let namespace = '';
  let rest: string[];
  if (parts.length === 1) [resource, rest] = [parts[0]!, []];
  else if (parts[0] === 'namespaces' && parts.length >= 3 && parts.length <= 5) {
    namespace = parts[1]!;
    [resource, ...rest] = parts.slice(2) as [string, ...string[]];
  } else return { type: 'unknown' };
  let [name, subresource] = rest;
  if (name === undefined && verb === 'get') {
    verb = isWatch(query) ? 'watch' : 'list';
    // requestinfo.go decodes the whole query as ListOptions first: when any option fails (limit=abc, a label
    // selector Go cannot parse), it keeps no name and the whole collection is authorized.
    if (!listOptionsError(query)) name = pathSegmentName(exactName(query.get('fieldSelector')));
  }
  if (name === undefined && verb === 'delete') verb = 'deletecollection';
  return {
    type: 'resource',
    resource,
    namespace,
    verb,
    ...(name !== undefined ? { name } : {}),
    ...(subresource !== undefined ? { subresource } : {}),
    ...(watchPath ? { watchPath: true as const } : {}),
  };
}
