// patch: merge, strategic merge, JSON patch and server-side apply (../patch.ts), applied to the live object
// and written as an update; an apply of a missing object creates it, once the user may create it.
import type { AggregatedObject } from '../../../../generated/aggregated/types.ts';
import { ApiStatusError, badRequest, methodNotAllowed } from '../../status.ts';
import type { Rendering } from '../negotiation.ts';
import { applyPatch, parsePatchBody, patchTypes, type PatchType } from '../patch.ts';
import { readBody } from '../request-body.ts';
import { sendObject } from '../response.ts';
import { checkBody } from './body-checks.ts';
import type { ResourceRequest } from './resource-request.ts';
import type { WrittenObject } from '../../storage/storage.ts';

export async function servePatch(request: ResourceRequest, rendering: Rendering): Promise<void> {
  const { req, res, storage, query: q, user } = request;
  const { namespace, name } = request.attributes;
  if (!storage.update) throw methodNotAllowed(req.method ?? '');
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim() as PatchType;
  if (!patchTypes.includes(type))
    throw new ApiStatusError(415, 'UnsupportedMediaType', `the patch type "${type}" is not supported; use one of ${patchTypes.join(', ')}`);
  const apply = type === 'application/apply-patch+yaml';
  if (apply && !q.get('fieldManager')) throw badRequest('fieldManager is required for apply patch');
  const patchBody = parsePatchBody(type, await readBody(req));
  let live: AggregatedObject | undefined;
  try {
    live = await storage.get(namespace, name);
  } catch (err) {
    if (!(apply && err instanceof ApiStatusError && err.code === 404)) throw err;
  }
  const merged = applyPatch(type, (live ?? null) as never, patchBody) as WrittenObject;
  if (merged === null || typeof merged !== 'object' || Array.isArray(merged)) throw badRequest('the patched object is not an object');
  if (live) merged.metadata = { ...merged.metadata, resourceVersion: merged.metadata?.resourceVersion ?? live.metadata.resourceVersion };
  checkBody(res, merged, storage, q);
  // An apply that creates is a create: kube-apiserver asks for `create` on the name too (its update and
  // patch handlers wrap creation in that check). Only an object found missing here may be created.
  if (!live) await request.deps.authorization.check(user, { ...request.attributes, verb: 'create' });
  const { object, created } = await storage.update(namespace, name, merged, !live);
  sendObject(res, created ? 201 : 200, object, rendering, storage.names.kind);
}
