// Request bodies of the aggregated API: read up to a size limit, parsed as JSON or YAML, and refused
// when nested deeper than any object of these kinds can be (the JSON parser copes with any depth, but
// copying, patching and encoding the result recurse, and would fail with a 500).
import type { IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { ApiStatusError, badRequest } from '../status.ts';
import type { WrittenObject } from '../storage/storage.ts';

export const maxBodyBytes = 3 * 1024 * 1024;
/** CoderWorkspace and CoderTemplate objects, managedFields included, are a few levels deep. */
export const maxBodyDepth = 100;

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBodyBytes) throw new ApiStatusError(413, 'RequestEntityTooLarge', 'the request body is too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Throws a 400 when `value` nests objects or arrays more than maxBodyDepth levels deep. */
export function checkBodyDepth(value: unknown): void {
  let level: unknown[] = [value];
  for (let depth = 0; level.length > 0; depth++) {
    if (depth > maxBodyDepth) throw badRequest(`the request body is nested more than ${maxBodyDepth} levels deep`);
    const next: unknown[] = [];
    for (const node of level) if (node !== null && typeof node === 'object') for (const child of Object.values(node)) next.push(child);
    level = next;
  }
}

/**
 * The text as JSON or YAML, depth-checked. A YAML parser recurses while it parses, so a YAML text too deep
 * for it fails as a parse error, a 400 like any other.
 */
export function parseBody(text: string, yaml: boolean, what: string): unknown {
  let body: unknown;
  try {
    body = yaml ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    throw badRequest(`${what} is not valid ${yaml ? 'YAML' : 'JSON'}: ${(err as Error).message}`);
  }
  checkBodyDepth(body);
  return body;
}

/** A create, update, delete or subresource body: one JSON (or YAML) object. */
export function parseObjectBody(text: string, contentType?: string): WrittenObject {
  const body = parseBody(text, /^application\/yaml\b/.test(contentType ?? ''), 'the request body');
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the request body is not a JSON object');
  return body as WrittenObject;
}
