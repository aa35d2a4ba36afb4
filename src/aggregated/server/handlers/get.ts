// get: one object, read from Coder.
import type { Rendering } from '../negotiation.ts';
import { sendObject } from '../response.ts';
import type { ResourceRequest } from './resource-request.ts';

export async function serveGet({ res, storage, attributes }: ResourceRequest, rendering: Rendering): Promise<void> {
  sendObject(res, 200, await storage.get(attributes.namespace, attributes.name), rendering, storage.names.kind);
}
