// Request paths of the aggregated API (reference R13) and the verb each one asks for (R9).
import { group, version } from './status.ts';

export type Route =
  | { type: 'health' }
  | { type: 'discovery'; doc: 'apis' | 'group' | 'version' }
  | { type: 'openapi'; doc: 'v2' | 'v3' | 'v3group' }
  | { type: 'resource'; resource: string; namespace: string; name?: string; subresource?: string; verb: string }
  | { type: 'unknown' };

const healthPaths = new Set(['/healthz', '/livez', '/readyz']);

export function route(method: string, path: string, query: URLSearchParams): Route {
  if (healthPaths.has(path)) return { type: 'health' };
  if (path === '/apis') return { type: 'discovery', doc: 'apis' };
  if (path === `/apis/${group}`) return { type: 'discovery', doc: 'group' };
  if (path === `/apis/${group}/${version}`) return { type: 'discovery', doc: 'version' };
  if (path === '/openapi/v2') return { type: 'openapi', doc: 'v2' };
  if (path === '/openapi/v3') return { type: 'openapi', doc: 'v3' };
  if (path === `/openapi/v3/apis/${group}/${version}`) return { type: 'openapi', doc: 'v3group' };
  const prefix = `/apis/${group}/${version}/`;
  if (!path.startsWith(prefix)) return { type: 'unknown' };
  const parts = path.slice(prefix.length).split('/').map(decodeURIComponent);
  const watch = query.get('watch') === 'true' || query.get('watch') === '1';
  const collectionVerb = method === 'POST' ? 'create' : method === 'DELETE' ? 'deletecollection' : watch ? 'watch' : 'list';
  const itemVerb = { GET: watch ? 'watch' : 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' }[method] ?? method.toLowerCase();
  if (parts.length === 1 && parts[0]) return { type: 'resource', resource: parts[0], namespace: '', verb: collectionVerb };
  if (parts[0] !== 'namespaces' || !parts[1] || !parts[2] || parts.length > 5) return { type: 'unknown' };
  if (parts.length === 3) return { type: 'resource', resource: parts[2], namespace: parts[1], verb: collectionVerb };
  if (!parts[3]) return { type: 'unknown' };
  if (parts.length === 5) {
    if (!parts[4]) return { type: 'unknown' };
    // A subresource's verb is that of its method on an item, except POST (start, stop, promote): create.
    const verb = method === 'POST' ? 'create' : method === 'GET' ? 'get' : itemVerb;
    return { type: 'resource', resource: parts[2], namespace: parts[1], name: parts[3], subresource: parts[4], verb };
  }
  return { type: 'resource', resource: parts[2], namespace: parts[1], name: parts[3], verb: itemVerb };
}
