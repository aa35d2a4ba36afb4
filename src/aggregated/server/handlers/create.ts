// create: a POST to the collection of a namespace makes the object in Coder (201).
import { methodNotAllowed } from '../../status.ts';
import type { Rendering } from '../negotiation.ts';
import { parseObjectBody, readBody } from '../request-body.ts';
import { sendObject } from '../response.ts';
import { checkBody } from './body-checks.ts';
import type { ResourceRequest } from './resource-request.ts';

export async function serveCreate({ req, res, storage, query, attributes }: ResourceRequest, rendering: Rendering): Promise<void> {
  const { namespace } = attributes;
  if (!namespace || !storage.create) throw methodNotAllowed('POST');
  const body = parseObjectBody(await readBody(req), req.headers['content-type']);
  checkBody(res, body, storage, query);
  sendObject(res, 201, await storage.create(namespace, body), rendering, storage.names.kind);
}
