// delete: the object goes from Coder, after the preconditions (uid, resourceVersion) of the DeleteOptions
// hold; a workspace's delete build runs on in Coder, which the Status message says.
import { ApiStatusError, badRequest, group, methodNotAllowed, success } from '../../status.ts';
import { parseObjectBody, readBody } from '../request-body.ts';
import { sendJson } from '../response.ts';
import type { ResourceRequest } from './resource-request.ts';

/** The fields of metav1.DeleteOptions read here; the rest are accepted and ignored. */
interface DeleteOptions {
  dryRun?: string[];
  preconditions?: { uid?: string; resourceVersion?: string };
}

export async function serveDelete({ req, res, storage, attributes }: ResourceRequest): Promise<void> {
  const { namespace, name } = attributes;
  if (!storage.delete) throw methodNotAllowed(req.method ?? '');
  const text = await readBody(req);
  const options = (text.trim() ? parseObjectBody(text) : {}) as DeleteOptions;
  if (options.dryRun?.length)
    throw badRequest(`server-side dry-run is not supported by ${storage.names.plural}.${group}; nothing was changed`);
  const pre = options.preconditions;
  if (pre && (pre.uid !== undefined || pre.resourceVersion !== undefined)) {
    const current = await storage.get(namespace, name);
    if (pre.uid !== undefined && pre.uid !== current.metadata.uid)
      throw new ApiStatusError(
        409,
        'Conflict',
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid}`,
      );
    if (pre.resourceVersion !== undefined && pre.resourceVersion !== current.metadata.resourceVersion)
      throw new ApiStatusError(
        409,
        'Conflict',
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion}`,
      );
  }
  const { object, deleted } = await storage.delete(namespace, name);
  sendJson(res, 200, {
    ...success(),
    details: { name, group, kind: storage.names.plural, uid: object.metadata.uid },
    ...(deleted ? {} : { message: 'Coder is deleting the workspace; it disappears when its delete build finishes' }),
  });
}
