// RFC 6902 JSON patch (`kubectl patch --type=json`): add, remove, replace, move, copy and test, applied to a
// copy of the live object; a path that does not exist is a 400 naming it, a failed test a 422.
import { ApiStatusError, badRequest } from '../status.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** RFC 6901 pointer → path segments. */
function pointer(path: unknown): string[] {
  if (typeof path !== 'string' || (path !== '' && !path.startsWith('/')))
    throw badRequest(`json patch: invalid path ${JSON.stringify(path)}`);
  return path === ''
    ? []
    : path
        .slice(1)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function parentOf(doc: Json, segments: string[]): { parent: any; key: string } {
  let node: any = doc;
  for (const s of segments.slice(0, -1)) {
    node = Array.isArray(node) ? node[Number(s)] : node?.[s];
    if (node === undefined || node === null || typeof node !== 'object')
      throw badRequest(`json patch: path /${segments.join('/')} does not exist`);
  }
  return { parent: node, key: segments.at(-1)! };
}

function read(doc: Json, segments: string[]): Json {
  let node: any = doc;
  for (const s of segments) {
    node = Array.isArray(node) ? node[Number(s)] : node?.[s];
    if (node === undefined) throw badRequest(`json patch: path /${segments.join('/')} does not exist`);
  }
  return node as Json;
}

/** RFC 6902: add, remove, replace, move, copy, test. */
export function jsonPatch(doc: Json, operations: unknown): Json {
  if (!Array.isArray(operations)) throw badRequest('json patch: the body must be an array of operations');
  let out: Json = structuredClone(doc);
  for (const op of operations as Record<string, unknown>[]) {
    const segments = pointer(op.path);
    const put = (at: string[], value: Json, insert: boolean) => {
      if (at.length === 0) {
        out = value;
        return;
      }
      const { parent, key } = parentOf(out, at);
      if (Array.isArray(parent)) {
        const index = key === '-' ? parent.length : Number(key);
        if (!Number.isInteger(index) || index < 0 || index > parent.length) throw badRequest(`json patch: bad array index ${key}`);
        parent.splice(index, insert ? 0 : 1, value);
      } else parent[key] = value;
    };
    const remove = (at: string[]) => {
      read(out, at);
      const { parent, key } = parentOf(out, at);
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key];
    };
    switch (op.op) {
      case 'add':
        put(segments, structuredClone(op.value as Json), true);
        break;
      case 'replace':
        read(out, segments);
        put(segments, structuredClone(op.value as Json), false);
        break;
      case 'remove':
        remove(segments);
        break;
      case 'move': {
        const from = pointer(op.from);
        const value = read(out, from);
        remove(from);
        put(segments, value, true);
        break;
      }
      case 'copy':
        put(segments, structuredClone(read(out, pointer(op.from))), true);
        break;
      case 'test':
        if (JSON.stringify(read(out, segments)) !== JSON.stringify(op.value))
          throw new ApiStatusError(422, 'Invalid', `json patch: test failed at ${String(op.path)}`);
        break;
      default:
        throw badRequest(`json patch: unknown operation ${JSON.stringify(op.op)}`);
    }
  }
  return out;
}
