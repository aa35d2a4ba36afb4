// RFC 7386 JSON merge patch from one value to another: removed keys become null, nested objects are
// diffed, arrays and scalars are replaced whole.
import { jsonEqual } from './equality.ts';

type JsonObject = Record<string, unknown>;

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The merge patch that turns `from` into `to`; undefined when they are equal. */
export function mergePatchDiff(from: unknown, to: unknown): unknown {
  if (jsonEqual(from, to)) return undefined;
  if (!isObject(from) || !isObject(to)) return to === undefined ? null : to;
  const patch: JsonObject = {};
  for (const key of Object.keys(from)) {
    if (from[key] !== undefined && to[key] === undefined) patch[key] = null;
  }
  for (const [key, value] of Object.entries(to)) {
    if (value === undefined) continue;
    const child = mergePatchDiff(from[key], value);
    if (child !== undefined) patch[key] = child;
  }
  return patch;
}

/** `target` with the merge patch `patch` applied (RFC 7386): null removes a key, objects merge, the rest replaces. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}
