// coderworkspaces/log: the latest build's log as text/plain, one line per entry, cut at
// limitBytes; with ?follow, streamed from Coder's build-log websocket as lines arrive until the job ends.
import type { Schemas } from '../../../coder/api-types.ts';
import { kubeTime } from '../../convert/object-meta.ts';
import { ApiStatusError } from '../../status.ts';
import type { Subresource, SubresourceRequest, TextSink } from '../storage.ts';
import type { WorkspaceAccess } from './workspace-access.ts';

/** Line format of the Go server: `<RFC3339> [<level>] [<stage, or provisioner without one>] <output>`. */
export function logLine(log: Schemas['ProvisionerJobLog']): string {
  return `${kubeTime(log.created_at) ?? log.created_at} [${log.log_level}] [${log.stage || 'provisioner'}] ${log.output}`;
}

const maxLogBytes = 4 * 1024 * 1024;

/** The most a follow reads from Coder; the stream then ends as if the build had (the server cuts the response a minute later). */
export const followReadMs = 25 * 60_000;

/** Bare `follow` follows; `follow=false` (or no follow) reads the log as it is. */
export function isFollow(query: URLSearchParams): boolean {
  return query.has('follow') && query.get('follow') !== 'false';
}

function checkAccept(accept: string | undefined): void {
  if (accept && !/application\/json|\*\/\*|text\/plain/.test(accept))
    throw new ApiStatusError(
      406,
      'NotAcceptable',
      `the log is served as text/plain to clients that accept text/plain, application/json or */*; Accept was "${accept}"`,
    );
}

/** The bytes an answer may carry: limitBytes (a whole number of at least 1, else 422), at most 4 MiB. */
function byteLimit(query: URLSearchParams): number {
  const text = query.get('limitBytes');
  const limit = text === null ? maxLogBytes : Number(text);
  if (!Number.isInteger(limit) || limit < 1)
    throw new ApiStatusError(422, 'Invalid', `limitBytes: must be a whole number of at least 1, got "${text}"`);
  return Math.min(limit, maxLogBytes);
}

/** Writes log lines to `emit` until `limit` bytes went out (the last line cut there); false once full. */
function lineWriter(limit: number, emit: (text: string) => void): (log: Schemas['ProvisionerJobLog']) => boolean {
  let left = limit;
  return (log) => {
    if (left <= 0) return false;
    const bytes = Buffer.from(`${logLine(log)}\n`);
    emit(bytes.length > left ? bytes.subarray(0, left).toString('utf8') : bytes.toString('utf8'));
    left -= bytes.length;
    return left > 0;
  };
}

async function follow(access: WorkspaceAccess, request: SubresourceRequest, limit: number, sink: TextSink): Promise<void> {
  const { target, ws } = await access.lookup(request.namespace, request.name);
  const full = new AbortController();
  const write = lineWriter(limit, (text) => sink.write(text));
  await access.call(target, request.name, () =>
    target.client.followBuildLogs(ws.latest_build.id, {
      timeoutMs: followReadMs,
      signal: AbortSignal.any([sink.signal, full.signal]),
      onOpen: () => sink.begin(),
      onLog: (log) => {
        if (!write(log)) full.abort();
      },
    }),
  );
}

export function workspaceLog(access: WorkspaceAccess): Subresource {
  return {
    verb: 'get',
    longRunning: isFollow,
    async serve(request) {
      checkAccept(request.accept);
      const limit = byteLimit(request.query);
      if (isFollow(request.query)) return { code: 200, stream: (sink) => follow(access, request, limit, sink) };
      const { target, ws } = await access.lookup(request.namespace, request.name);
      const logs = await access.call(target, request.name, () =>
        target.client.request('GET', '/api/v2/workspacebuilds/{workspaceBuild}/logs', { params: { workspaceBuild: ws.latest_build.id } }),
      );
      const chunks: string[] = [];
      const write = lineWriter(limit, (text) => chunks.push(text));
      for (const log of logs) if (!write(log)) break;
      return { code: 200, text: chunks.join('') };
    },
  };
}
