// The patch types of `kubectl patch` and `kubectl apply --server-side`, applied to the
// live object. These types have no patch strategies, so a strategic merge patch is a merge patch, and
// server-side apply merges the applied fields over the live object (maps merged, lists replaced).
import { applyMergePatch } from '../../runtime/merge-patch.ts';
import { jsonPatch, type Json } from './json-patch.ts';
import { parseBody } from './request-body.ts';

export const patchTypes = [
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/json-patch+json',
  'application/apply-patch+yaml',
] as const;
export type PatchType = (typeof patchTypes)[number];

/** The patch body as JSON (server-side apply may send YAML). */
export function parsePatchBody(type: PatchType, text: string): Json {
  return parseBody(text, type === 'application/apply-patch+yaml', 'the patch body') as Json;
}

export function applyPatch(type: PatchType, live: Json, patch: Json): Json {
  if (type === 'application/json-patch+json') return jsonPatch(live, patch);
  return applyMergePatch(live, patch) as Json;
}
