// Subresources: start, stop, promote (create) and log (get). Unlike the resource verbs a
// dry run is allowed, and answers what would happen. The storage's answer is JSON, text, or a text stream
// (a followed log) written as it is produced.
import type { ServerResponse } from 'node:http';
import { ApiStatusError, badRequest, methodNotAllowed, notFoundPath } from '../../status.ts';
import type { TextSink } from '../../storage/storage.ts';
import { parseObjectBody, readBody } from '../request-body.ts';
import { sendJson } from '../response.ts';
import type { ResourceRequest } from './resource-request.ts';

/**
 * The most a streamed answer may take to write: a client that stops reading is cut off here, a minute after
 * a followed log stops reading from Coder (storage/coderworkspace/workspace-log.ts followReadMs).
 */
export const followWriteMs = 26 * 60_000;

export async function serveSubresource(request: ResourceRequest): Promise<void> {
  const { req, res, storage, query: q } = request;
  const { namespace, verb, name } = request.attributes;
  const subresource = request.attributes.subresource!;
  const sub = storage.subresources?.[subresource];
  if (!sub) throw notFoundPath();
  if (verb !== sub.verb) throw methodNotAllowed(req.method ?? '');
  if (req.headers.upgrade || /\bupgrade\b/i.test(req.headers.connection ?? ''))
    throw badRequest(`${storage.names.plural}/${subresource} does not upgrade connections; send a plain HTTP request`);
  const dryRun = q.getAll('dryRun');
  if (dryRun.some((v) => v !== 'All')) throw badRequest(`dryRun: only "All" is supported, got "${dryRun.join(',')}"`);
  if ((await request.deps.namespaces.state(namespace)) === 'missing')
    throw new ApiStatusError(404, 'NotFound', `namespaces "${namespace}" not found`, { name: namespace, kind: 'namespaces' });
  const text = verb === 'create' ? await readBody(req) : '';
  const body = text.trim() ? parseObjectBody(text, req.headers['content-type']) : undefined;
  const answer = await sub.serve({ namespace, name, body, query: q, accept: req.headers.accept, dryRun: dryRun.length > 0 });
  if ('json' in answer) return sendJson(res, answer.code, answer.json);
  if ('stream' in answer) return streamText(res, answer.code, answer.stream);
  res.writeHead(answer.code, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(answer.text),
    'Cache-Control': 'no-cache, private',
  });
  res.end(answer.text);
}

/**
 * A text answer written as it is produced: headers when the stream begins, each piece sent at once, the end
 * when the stream resolves. The client going away aborts the stream; a response still open after
 * followWriteMs is cut off.
 */
async function streamText(res: ServerResponse, code: number, stream: (sink: TextSink) => Promise<void>): Promise<void> {
  const gone = new AbortController();
  res.on('close', () => gone.abort());
  const cutOff = setTimeout(() => res.destroy(), followWriteMs);
  const begin = () => {
    if (res.headersSent) return;
    res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-cache, private' });
    res.flushHeaders();
  };
  try {
    await stream({
      begin,
      write(text) {
        begin();
        if (text && !res.destroyed) res.write(text);
      },
      signal: gone.signal,
    });
    begin();
    res.end();
  } finally {
    clearTimeout(cutOff);
  }
}
