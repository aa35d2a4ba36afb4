// One watch request: streams events until the server ends it (timeoutSeconds), the stream goes
// silent past its idle deadline or outlives timeoutSeconds by more than a grace, the caller aborts, or
// the server reports an error (410 Gone included).
import { KubeApiError, parseStatus, readText, type KubeHttp, type Status } from './kube-http.ts';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface WatchEvent<T> {
  type: WatchEventType;
  object: T;
}

export interface WatchOptions {
  resourceVersion: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** The Accept header of the watch request (kube-http.ts RequestParams.accept). */
  accept?: string;
  /** The server closes the watch after this long; jittered by the caller. */
  timeoutSeconds: number;
  /** No bytes for this long (bookmarks included) means the stream is dead; it also bounds the wait for headers. */
  idleMs: number;
  /** How long past timeoutSeconds the stream may stay open before it is cut; default 30 s. */
  graceMs?: number;
  signal?: AbortSignal;
  /** Called once the API server has accepted the watch. */
  onConnected?: () => void;
}

export class WatchSilentError extends Error {}

/** The server kept the watch open past its timeoutSeconds and the grace. */
export class WatchOverranError extends Error {}

const defaultWatchGraceMs = 30_000;

/** Resolves when the server closes the stream normally; rejects on errors (KubeApiError 410 for expired versions). */
export async function watchOnce<T>(
  http: KubeHttp,
  path: string,
  options: WatchOptions,
  onEvent: (event: WatchEvent<T>) => void,
): Promise<void> {
  const abort = new AbortController();
  const onCallerAbort = () => abort.abort();
  options.signal?.addEventListener('abort', onCallerAbort, { once: true });
  let idle: NodeJS.Timeout | undefined;
  let silent = false;
  let overran = false;
  const lifetimeMs = options.timeoutSeconds * 1_000 + (options.graceMs ?? defaultWatchGraceMs);
  const lifetime = setTimeout(() => {
    overran = true;
    abort.abort();
  }, lifetimeMs);
  const armIdle = () => {
    clearTimeout(idle);
    idle = setTimeout(() => {
      silent = true;
      abort.abort();
    }, options.idleMs);
  };
  try {
    armIdle();
    const res = await http.open('GET', path, {
      signal: abort.signal,
      accept: options.accept,
      query: {
        watch: true,
        allowWatchBookmarks: true,
        resourceVersion: options.resourceVersion,
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        timeoutSeconds: options.timeoutSeconds,
      },
    });
    if (res.statusCode !== 200) {
      const text = await readText(res, abort.signal);
      throw new KubeApiError(res.statusCode ?? 0, parseStatus(text), 'WATCH', path);
    }
    options.onConnected?.();
    let buffered = '';
    for await (const chunk of res) {
      armIdle();
      buffered += (chunk as Buffer).toString('utf8');
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (!line) continue;
        const event = JSON.parse(line) as { type: WatchEventType | 'ERROR'; object: unknown };
        if (event.type === 'ERROR') {
          const status = event.object as Status;
          throw new KubeApiError(status.code ?? 500, status, 'WATCH', path);
        }
        onEvent(event as WatchEvent<T>);
      }
    }
  } catch (err) {
    if (silent) throw new WatchSilentError(`watch of ${path} sent nothing for ${options.idleMs} ms`);
    if (overran) throw new WatchOverranError(`watch of ${path} stayed open past ${lifetimeMs} ms`);
    if (options.signal?.aborted) return;
    throw err;
  } finally {
    clearTimeout(idle);
    clearTimeout(lifetime);
    options.signal?.removeEventListener('abort', onCallerAbort);
  }
  if (silent) throw new WatchSilentError(`watch of ${path} sent nothing for ${options.idleMs} ms`);
}
