// A controller: workers that take keys from its queue and reconcile them, at most one reconcile per key
// at a time. A reconcile returns {requeueAfterMs} or nothing, or throws: the key is retried with backoff,
// unless the error is a TerminalError (logged and counted, not retried until the object changes).
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { errorCode } from './kube-http.ts';
import type { OperatorMetrics } from './metrics.ts';
import type { RateLimiter } from './rate-limiter.ts';
import { CachedDataPending } from './secret-cache.ts';
import { TerminalError } from './terminal-error.ts';
import { WorkQueue } from './work-queue.ts';

export interface Request {
  namespace: string;
  name: string;
}

export interface ReconcileResult {
  requeueAfterMs?: number;
}

export interface ReconcileContext {
  logger: Logger;
  reconcileID: string;
  /**
   * Aborted when the operator shuts down (SIGTERM, SIGINT). Pass it to every slow call (Coder API,
   * PostgreSQL, waits) and return soon after it aborts: shutdown waits for running reconciles, at most
   * --graceful-shutdown-timeout, and only then gives up the leader lease, so another replica never
   * reconciles while this one is still calling out.
   */
  signal: AbortSignal;
}

export type Reconciler = (request: Request, context: ReconcileContext) => Promise<ReconcileResult | void>;

export interface ControllerOptions {
  concurrency: number;
  logger: Logger;
  metrics?: OperatorMetrics;
  rateLimiter?: RateLimiter;
}

export function requestKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

function parseKey(key: string): Request {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

export class Controller {
  readonly queue: WorkQueue;
  private workers: Promise<void>[] = [];
  readonly name: string;
  private readonly reconciler: Reconciler;
  private readonly options: ControllerOptions;
  private readonly stopping = new AbortController();

  constructor(name: string, reconciler: Reconciler, options: ControllerOptions) {
    this.name = name;
    this.reconciler = reconciler;
    this.options = options;
    const m = options.metrics;
    const labels = { name };
    this.queue = new WorkQueue(
      options.rateLimiter,
      m && {
        depth: (n) => m.workqueueDepth.set(labels, n),
        added: () => m.workqueueAdds.inc(labels),
        retried: () => m.workqueueRetries.inc(labels),
        queued: (s) => m.workqueueQueueDuration.observe(labels, s),
        worked: (s) => m.workqueueWorkDuration.observe(labels, s),
      },
    );
  }

  /** Starts the workers; call once the caches have synced (and, with leader election, once leading). */
  start(): void {
    if (this.workers.length) return;
    for (let i = 0; i < this.options.concurrency; i++) this.workers.push(this.work());
  }

  /**
   * Stops taking keys, aborts the signal of running reconciles, and waits for them to return, at most
   * `timeoutMs`; false if some did not finish.
   */
  async stop(timeoutMs: number): Promise<boolean> {
    this.queue.shutDown();
    this.stopping.abort(new Error('the operator is shutting down'));
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const finished = Promise.all(this.workers).then(() => true as const);
    const result = await Promise.race([finished, deadline]);
    clearTimeout(timer);
    return result;
  }

  private async work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      await this.process(key);
    }
  }

  private async process(key: string): Promise<void> {
    const request = parseKey(key);
    const reconcileID = randomUUID();
    const logger = this.options.logger.child({ controller: this.name, namespace: request.namespace, name: request.name, reconcileID });
    const metrics = this.options.metrics;
    const started = performance.now();
    let result: 'success' | 'error' | 'requeue' | 'requeue_after' = 'success';
    try {
      const outcome = await this.reconciler(request, { logger, reconcileID, signal: this.stopping.signal });
      this.queue.forget(key);
      // What this reconcile asked for replaces what earlier ones did (a retry, or a requeue it no longer needs).
      this.queue.cancelAfter(key);
      if (outcome?.requeueAfterMs !== undefined && outcome.requeueAfterMs > 0) {
        result = 'requeue_after';
        this.queue.addAfter(key, outcome.requeueAfterMs);
      }
    } catch (err) {
      if (err instanceof CachedDataPending && !this.stopping.signal.aborted) {
        // Not a failure: the reconcile runs again as soon as the Secret it read is cached whole.
        result = 'requeue';
        logger.debug({ err: err.message }, 'waiting for a Secret to be cached with its data');
        err.ready.then(
          () => this.queue.add(key),
          () => this.queue.addRateLimited(key),
        );
        return;
      }
      const terminal = err instanceof TerminalError;
      if (this.stopping.signal.aborted) {
        // Shutdown cut the reconcile short; the next leader does it again.
        result = 'requeue';
        logger.info({ err: (err as Error).message }, 'reconcile ended early: the operator is shutting down');
      } else if (errorCode(err) === 409) {
        // The object changed since the cache was read; the newer version is on its way.
        result = 'requeue';
        logger.debug({ err: (err as Error).message }, 'conflict; requeued');
      } else {
        result = 'error';
        metrics?.reconcileErrors.inc({ controller: this.name });
        if (terminal) logger.error({ err: (err as Error).message }, 'reconcile failed; retrying cannot help, waiting for a change');
        else logger.error({ err: (err as Error).message, retries: this.queue.failures(key) }, 'reconcile failed; retrying with backoff');
      }
      if (terminal) this.queue.forget(key);
      else this.queue.addRateLimited(key);
    } finally {
      this.queue.done(key);
      metrics?.reconcileTotal.inc({ controller: this.name, result });
      metrics?.reconcileTime.observe({ controller: this.name }, (performance.now() - started) / 1000);
    }
  }
}
