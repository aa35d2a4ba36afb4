// The patch types of `kubectl patch` and `kubectl apply --server-side` (reference R18), applied to the
// live object. These types have no patch strategies, so a strategic merge patch is a merge patch, and
// server-side apply merges the applied fields over the live object (maps merged, lists replaced).
import { parseBody } from './request-body.ts';
import { ApiStatusError, badRequest } from '../status.ts';

export const patchTypes = [
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/json-patch+json',
  'application/apply-patch+yaml',
] as const;
export type PatchType = (typeof patchTypes)[number];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function mergePatch(target: Json, patch: Json): Json {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: { [key: string]: Json } = target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key] ?? null, value);
  }
  return out;
}

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

/** The patch body as JSON (server-side apply may send YAML). */
export function parsePatchBody(type: PatchType, text: string): Json {
  return parseBody(text, type === 'application/apply-patch+yaml', 'the patch body') as Json;
}

export function applyPatch(type: PatchType, live: Json, patch: Json): Json {
  if (type === 'application/json-patch+json') return jsonPatch(live, patch);
  return mergePatch(live, patch);
}
