// Records events.k8s.io/v1 Events for `kubectl describe`, folding repeats into one Event's series.
// record() only queues: a bounded queue written by one worker, each write under its own deadline, so a
// slow or hung API server never holds a reconcile; when the queue is full the Event is dropped and counted.
import { randomBytes } from 'node:crypto';
import type { EventsV1Event } from '@kubernetes/client-node';
import { BoundedCache } from './bounded-cache.ts';
import { errorCode, type KubeHttp } from './kube-http.ts';
import type { Logger } from './logger.ts';
import { microTime } from './micro-time.ts';
import { builtinResources, collectionPath, objectPath } from './resource.ts';
import { scrubSecrets } from './redaction.ts';

export interface EventTarget {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
  uid: string;
  resourceVersion?: string;
}

export interface EventRecorderOptions {
  /** reportingController, e.g. coder-k8s.coder.com/codercontrolplane */
  controller: string;
  /** reportingInstance, e.g. the pod name */
  instance: string;
  logger?: Logger;
  /** Events waiting to be written beyond this are dropped; default 1000. */
  queueSize?: number;
  /** Deadline of each write attempt (headers and body); default 10 s. */
  writeTimeoutMs?: number;
  /** Called for each Event dropped: the queue was full, or every attempt to write it failed. */
  onDropped?: (reason: EventDropReason) => void;
}

export type EventDropReason = 'queue_full' | 'write_failed';

export type EventType = 'Normal' | 'Warning';

/** A repeat within this long of the last one counts in the same Event's series (a series is forgotten after it). */
const seriesWindowMs = 10 * 60 * 1000;
/** Bounds the memory of series; the oldest is forgotten first (a later repeat starts a new Event). */
const maxSeries = 4096;
/** Attempts per write, and the pause before each retry: bounded so one Event cannot hold the queue long. */
const retryDelaysMs = [200, 1000];
const defaultQueueSize = 1000;
const defaultWriteTimeoutMs = 10_000;
// API validation limits of events.k8s.io/v1.
const maxNoteBytes = 1024;
const maxShortField = 128;
const maxNameLength = 253;

interface Series {
  namespace: string;
  name: string;
  count: number;
}

interface Pending {
  target: EventTarget;
  event: EventFields;
}

export class EventRecorder {
  private readonly http: KubeHttp;
  private readonly series = new BoundedCache<Series>({ maxEntries: maxSeries, ttlMs: seriesWindowMs });
  private readonly queue: Pending[] = [];
  private draining?: Promise<void>;
  private readonly options: EventRecorderOptions;

  constructor(http: KubeHttp, options: EventRecorderOptions) {
    this.http = http;
    this.options = options;
  }

  /**
   * Queues an Event and returns at once (the promise is only for callers that await it); the write
   * happens in the background. Never rejects: an Event that cannot be written is logged and dropped.
   */
  record(target: EventTarget, type: EventType, reason: string, action: string, note: string): Promise<void> {
    const event = {
      type,
      reason: truncateChars(reason, maxShortField),
      action: truncateChars(action, maxShortField),
      note: truncateUtf8(scrubSecrets(note), maxNoteBytes),
    };
    if (this.queue.length >= (this.options.queueSize ?? defaultQueueSize)) {
      this.dropped('queue_full', target, event);
      return Promise.resolve();
    }
    this.queue.push({ target, event });
    this.draining ??= this.drain();
    return Promise.resolve();
  }

  /** Resolves when every queued Event has been written or dropped. */
  async flush(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /** One writer, in order: repeats of an Event patch the one the first created. */
  private async drain(): Promise<void> {
    for (let next = this.queue.shift(); next; next = this.queue.shift()) {
      const key = JSON.stringify([next.target.uid, next.event.type, next.event.reason, next.event.action, next.event.note]);
      await this.write(key, next.target, next.event);
    }
    this.draining = undefined;
  }

  private dropped(reason: EventDropReason, target: EventTarget, event: EventFields, err?: unknown): void {
    this.options.onDropped?.(reason);
    this.options.logger?.warn(
      {
        ...(err === undefined ? {} : { err }),
        dropReason: reason,
        regarding: { kind: target.kind, namespace: target.namespace, name: target.name },
        reason: event.reason,
        action: event.action,
      },
      reason === 'queue_full' ? 'dropped an Event: too many are waiting to be written' : 'dropped an Event that could not be written',
    );
  }

  private async write(key: string, target: EventTarget, event: EventFields): Promise<void> {
    const now = Date.now();
    const known = this.series.get(key);
    try {
      if (known) {
        const patched = await this.withRetries(() => this.patchSeries(known, now), true);
        if (patched) {
          this.series.set(key, { ...known, count: known.count + 1 });
          return;
        }
        // The Event expired (TTL) or was deleted: start a new one.
        this.series.delete(key);
      }
      const created = await this.withRetries(() => this.create(target, event, now), false);
      this.series.set(key, { ...created, count: 1 });
    } catch (err) {
      this.dropped('write_failed', target, event, err);
    }
  }

  private get writeTimeoutMs(): number {
    return this.options.writeTimeoutMs ?? defaultWriteTimeoutMs;
  }

  private async create(target: EventTarget, event: EventFields, now: number): Promise<{ namespace: string; name: string }> {
    // Events about cluster-scoped objects go to "default", as client-go does.
    const namespace = target.namespace || 'default';
    const name = eventName(target.name);
    const body: Omit<EventsV1Event, 'eventTime'> & { eventTime: string } = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name, namespace },
      eventTime: microTime(new Date(now)),
      reportingController: this.options.controller,
      reportingInstance: truncateChars(this.options.instance, maxShortField),
      regarding: {
        apiVersion: target.apiVersion,
        kind: target.kind,
        name: target.name,
        uid: target.uid,
        ...(target.namespace ? { namespace: target.namespace } : {}),
        ...(target.resourceVersion ? { resourceVersion: target.resourceVersion } : {}),
      },
      ...event,
    };
    await this.http.json('POST', collectionPath(builtinResources.event, namespace), { body, timeoutMs: this.writeTimeoutMs });
    return { namespace, name };
  }

  /** False when the Event is gone (404). */
  private async patchSeries(known: Series, now: number): Promise<boolean> {
    const body = { series: { count: known.count + 1, lastObservedTime: microTime(new Date(now)) } };
    try {
      await this.http.json('PATCH', objectPath(builtinResources.event, known.namespace, known.name), {
        contentType: 'application/merge-patch+json',
        body,
        timeoutMs: this.writeTimeoutMs,
      });
      return true;
    } catch (err) {
      if (errorCode(err) === 404) return false;
      throw err;
    }
  }

  private async withRetries<T>(write: () => Promise<T>, isPatch: boolean): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await write();
      } catch (err) {
        const delay = retryDelaysMs[attempt];
        if (delay === undefined || !isRetriable(err, isPatch)) throw err;
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }
}

interface EventFields {
  type: EventType;
  reason: string;
  action: string;
  note: string;
}

/** Network errors, 429 and 5xx are worth another try; a create's 409 means the random name collided. */
function isRetriable(err: unknown, isPatch: boolean): boolean {
  const status = errorCode(err);
  if (status === undefined) return true;
  return status === 429 || status >= 500 || (status === 409 && !isPatch);
}

/** `<target name>.<16 hex>`, within the 253 characters of an object name. */
function eventName(targetName: string): string {
  const suffix = randomBytes(8).toString('hex');
  return `${targetName.slice(0, maxNameLength - suffix.length - 1).replace(/[.-]+$/, '')}.${suffix}`;
}

function truncateChars(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max);
}

/** At most `maxBytes` of UTF-8 without splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Back up over continuation bytes (10xxxxxx) to the start of the character that did not fit.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}
