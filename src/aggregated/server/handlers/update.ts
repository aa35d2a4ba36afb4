// update: a PUT of the whole object. It never creates, as for ConfigMaps and custom resources: a missing
// object is a 404.
import { methodNotAllowed } from '../../status.ts';
import type { Rendering } from '../negotiation.ts';
import { parseObjectBody, readBody } from '../request-body.ts';
import { sendObject } from '../response.ts';
import { checkBody } from './body-checks.ts';
import type { ResourceRequest } from './resource-request.ts';

export async function serveUpdate({ req, res, storage, query, attributes }: ResourceRequest, rendering: Rendering): Promise<void> {
  if (!storage.update) throw methodNotAllowed(req.method ?? '');
  const body = parseObjectBody(await readBody(req), req.headers['content-type']);
  checkBody(res, body, storage, query);
  const { object } = await storage.update(attributes.namespace, attributes.name, body, false);
  sendObject(res, 200, object, rendering, storage.names.kind);
}
