// Leader election on a coordination.k8s.io Lease (15 s lease, 10 s renew deadline, 2 s retry, as
// client-go). Only the leader reconciles; losing the lease is fatal so the process restarts clean.
import type { Logger } from 'pino';
import { abortableSleep } from './abortable-sleep.ts';
import { isConflict, isNotFound, type KubeHttp } from './kube-http.ts';
import { microTime } from './micro-time.ts';
import { collectionPath, objectPath, builtinResources } from './resource.ts';

export const leaderElectionID = 'coder-k8s-controller.coder.com';

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

interface Lease {
  apiVersion: 'coordination.k8s.io/v1';
  kind: 'Lease';
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec: LeaseSpec;
}

export interface LeaderElectionOptions {
  namespace: string;
  identity: string;
  name?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  logger: Logger;
  /** Called with true when this process becomes leader and false when it stops being leader. */
  onLeading: (leading: boolean) => void;
}

export class LeaderElector {
  private leading = false;
  private renewedAt = 0;
  private observed?: { holder: string; renewTime?: string; at: number };
  private readonly stopper = new AbortController();
  private readonly name: string;
  private readonly leaseMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryMs: number;
  private readonly http: KubeHttp;
  private readonly options: LeaderElectionOptions;

  constructor(http: KubeHttp, options: LeaderElectionOptions) {
    this.http = http;
    this.options = options;
    this.name = options.name ?? leaderElectionID;
    this.leaseMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryMs = options.retryPeriodMs ?? 2_000;
  }

  /** While leading: when the lease was last acquired or renewed, and how long it lasts (for liveness). */
  get leadership(): { renewedAt: number; leaseMs: number } | undefined {
    return this.leading ? { renewedAt: this.renewedAt, leaseMs: this.leaseMs } : undefined;
  }

  /** Campaigns until leader, then renews; resolves when leadership is lost or stop() was called. */
  async run(): Promise<void> {
    const log = this.options.logger.child({ lease: `${this.options.namespace}/${this.name}`, identity: this.options.identity });
    log.info('waiting for the leader lease');
    while (!this.stopped && !(await this.tryAcquireOrRenew(log))) await this.sleep(this.retryMs * (1 + Math.random() * 0.2));
    if (this.stopped) return;
    this.leading = true;
    log.info('became leader');
    this.options.onLeading(true);
    while (!this.stopped) {
      const deadline = Date.now() + this.renewDeadlineMs;
      let renewed = false;
      while (!this.stopped && Date.now() < deadline) {
        if (await this.tryAcquireOrRenew(log)) {
          renewed = true;
          break;
        }
        await this.sleep(this.retryMs);
      }
      if (this.stopped) return;
      if (!renewed) {
        this.leading = false;
        log.error('could not renew the leader lease within the renew deadline; leadership lost');
        this.options.onLeading(false);
        return;
      }
      await this.sleep(this.retryMs);
    }
  }

  /**
   * Stops campaigning and renewing and, when leading and `release` holds, gives the lease up so another
   * replica takes over at once; without `release` the lease expires after its duration.
   */
  async stop({ release = true }: { release?: boolean } = {}): Promise<void> {
    this.stopper.abort();
    if (!this.leading) return;
    this.leading = false;
    if (!release) {
      this.options.onLeading(false);
      return;
    }
    try {
      const lease = await this.get();
      if (lease?.spec.holderIdentity === this.options.identity) {
        lease.spec = { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime(), acquireTime: microTime() };
        await this.http.json('PUT', objectPath(builtinResources.lease, this.options.namespace, this.name), { body: lease });
        this.options.logger.info({ lease: `${this.options.namespace}/${this.name}` }, 'released the leader lease');
      }
    } catch (err) {
      this.options.logger.warn({ err: (err as Error).message }, 'could not release the leader lease; it expires on its own');
    }
    this.options.onLeading(false);
  }

  private get stopped(): boolean {
    return this.stopper.signal.aborted;
  }

  private sleep(ms: number): Promise<void> {
    return abortableSleep(ms, this.stopper.signal);
  }

  private async get(): Promise<Lease | undefined> {
    try {
      return await this.http.json<Lease>('GET', objectPath(builtinResources.lease, this.options.namespace, this.name), {
        timeoutMs: this.retryMs * 2,
      });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private async tryAcquireOrRenew(log: Logger): Promise<boolean> {
    const now = new Date();
    const spec: LeaseSpec = {
      holderIdentity: this.options.identity,
      leaseDurationSeconds: Math.round(this.leaseMs / 1000),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    try {
      const lease = await this.get();
      if (!lease) {
        await this.http.json('POST', collectionPath(builtinResources.lease, this.options.namespace), {
          timeoutMs: this.retryMs * 2,
          body: {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: { name: this.name, namespace: this.options.namespace },
            spec,
          },
        });
        this.renewedAt = Date.now();
        return true;
      }
      const holder = lease.spec.holderIdentity ?? '';
      if (!this.observed || this.observed.holder !== holder || this.observed.renewTime !== lease.spec.renewTime) {
        this.observed = { holder, renewTime: lease.spec.renewTime, at: now.getTime() };
      }
      const heldByOther = holder !== '' && holder !== this.options.identity;
      const validFor = (lease.spec.leaseDurationSeconds ?? 15) * 1000;
      if (heldByOther && this.observed.at + validFor > now.getTime()) return false;
      if (holder === this.options.identity) {
        spec.acquireTime = lease.spec.acquireTime;
        spec.leaseTransitions = lease.spec.leaseTransitions ?? 0;
      } else {
        spec.leaseTransitions = (lease.spec.leaseTransitions ?? 0) + 1;
      }
      await this.http.json('PUT', objectPath(builtinResources.lease, this.options.namespace, this.name), {
        timeoutMs: this.retryMs * 2,
        body: { ...lease, spec },
      });
      this.renewedAt = Date.now();
      return true;
    } catch (err) {
      if (!isConflict(err)) log.warn({ err: (err as Error).message }, 'leader lease request failed');
      return false;
    }
  }
}
