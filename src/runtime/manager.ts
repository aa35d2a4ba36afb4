// Runs caches and controllers: caches start at once on every replica (readiness waits for them);
// controllers start when the caches have synced and, with leader election, when this replica leads.
import type { Logger } from 'pino';
import { MultiNamespaceCache, type Cache } from './cache.ts';
import type { Controller } from './controller.ts';
import { ControllerBuilder } from './controller-builder.ts';
import { Informer, type KubeObject } from './informer.ts';
import type { KubeConnectionConfig } from './kube-config.ts';
import { KubeHttp } from './kube-http.ts';
import { LeaderElector, leaderElectionID } from './leader-election.ts';
import { liveness, reconcileStuckAfterMs } from './liveness.ts';
import type { OperatorMetrics } from './metrics.ts';
import type { ProbeResult } from './probes.ts';
import { builtinResources, type ResourceKind } from './resource.ts';
import { SecretCache } from './secret-cache.ts';
import { RequestBudget } from './request-budget.ts';
import { Writer } from './writer.ts';

export interface ManagerOptions {
  kubeConfig: KubeConnectionConfig;
  /** The kubeconfig's tokenFile, read again about once a minute (the in-cluster token file is found on its own). */
  tokenFile?: string;
  logger: Logger;
  metrics: OperatorMetrics;
  /** Namespaces to watch; all when empty. */
  namespaces: string[];
  concurrency: number;
  /** The client-side request budget to the API server; none when unset. */
  requestBudget?: { qps: number; burst: number };
  leaderElection: false | { namespace: string; identity: string; /** The Lease's name (one per shard). */ name?: string };
  /**
   * This replica's shard: a label selector on the operator's own kinds (group coder.com), so only the
   * objects it matches are cached and reconciled. Children and Secrets are not filtered.
   */
  shardSelector?: string;
  /** How long shutdown waits for in-flight reconciles. */
  shutdownTimeoutMs: number;
  /** Called when leadership is lost: the process must exit. */
  onLeadershipLost: () => void;
}

/** The operator's own kinds, which --selector shards. */
const shardedGroup = 'coder.com';

export class Manager {
  readonly http: KubeHttp;
  /** The writer every controller shares (one Applier memory, one discovery cache). */
  readonly writer: Writer;
  private readonly caches = new Map<string, Cache<KubeObject>>();
  private readonly controllers: Controller[] = [];
  private elector?: LeaderElector;
  private controllersStarted = false;
  private stopping = false;
  private readonly options: ManagerOptions;

  constructor(options: ManagerOptions) {
    this.options = options;
    this.http = new KubeHttp(options.kubeConfig, {
      tokenFile: options.tokenFile,
      budget: options.requestBudget && new RequestBudget(options.requestBudget),
    });
    this.writer = new Writer(this.http);
  }

  /** The shared cache of a kind (created on first use, started by start()). */
  cache<T extends KubeObject>(resource: ResourceKind): Cache<T> {
    const id = `${resource.apiVersion}/${resource.plural}${resource.metadataOnly ? ' (metadata)' : ''}`;
    let cache = this.caches.get(id);
    if (!cache) {
      const logger = this.options.logger;
      const namespaces = resource.namespaced ? this.options.namespaces : [];
      const labelSelector = resource.group === shardedGroup ? this.options.shardSelector : undefined;
      const { metadataOnly, servedOptionally } = resource;
      // Reconciles that ask whether the kind is served see it at once, not when discovery's answer expires.
      const onServed = servedOptionally ? () => this.writer.forgetDiscovery(resource.apiVersion) : undefined;
      const make = (transform?: (obj: KubeObject) => KubeObject): Cache<KubeObject> => {
        const informer = (namespace: string | undefined) =>
          new Informer<KubeObject>(this.http, resource, {
            namespace,
            logger,
            labelSelector,
            transform,
            metadataOnly,
            servedOptionally,
            onServed,
          });
        return namespaces.length <= 1
          ? informer(namespaces[0])
          : new MultiNamespaceCache(new Map(namespaces.map((ns) => [ns, informer(ns)])));
      };
      cache =
        resource.group === '' && resource.plural === builtinResources.secret.plural && !metadataOnly
          ? new SecretCache<KubeObject>(make, (ns, name) => this.writer.get(resource, ns, name))
          : make();
      cache.addHandlers({
        onAdd: (obj) => this.writer.observed(resource, obj),
        onUpdate: (_old, obj) => this.writer.observed(resource, obj),
        onDelete: (obj) => this.writer.observed(resource, obj, true),
      });
      this.caches.set(id, cache);
    }
    return cache as unknown as Cache<T>;
  }

  controller(name: string): ControllerBuilder {
    const { concurrency, logger, metrics } = this.options;
    return new ControllerBuilder(
      name,
      (r) => this.cache(r),
      { concurrency, logger, metrics },
      (c) => this.controllers.push(c),
    );
  }

  /** Starts the caches, and the controllers once synced (and leading). Returns when the controllers run or leadership is being sought. */
  async start(): Promise<void> {
    for (const cache of this.caches.values()) cache.start();
    await Promise.all([...this.caches.values()].map((c) => c.waitForSync()));
    this.options.logger.info({ caches: this.caches.size }, 'caches synced');
    const election = this.options.leaderElection;
    if (!election) {
      this.startControllers();
      return;
    }
    const metrics = this.options.metrics;
    const leaseName = election.name ?? leaderElectionID;
    this.elector = new LeaderElector(this.http, {
      ...election,
      logger: this.options.logger,
      onLeading: (leading) => {
        metrics.leaderElectionMasterStatus.set({ name: leaseName }, leading ? 1 : 0);
        if (leading) this.startControllers();
      },
    });
    metrics.leaderElectionMasterStatus.set({ name: leaseName }, 0);
    void this.elector.run().then(() => {
      if (this.controllersStarted && !this.stopping) this.options.onLeadershipLost();
    });
  }

  private startControllers(): void {
    if (this.controllersStarted) return;
    this.controllersStarted = true;
    for (const c of this.controllers) c.start();
    this.options.logger.info({ controllers: this.controllers.map((c) => c.name) }, 'controllers started');
  }

  /** Liveness: as leader, the lease renewed within its duration; no reconcile hung. */
  liveness(): ProbeResult {
    return liveness({
      leader: this.elector?.leadership,
      reconciles: this.controllers
        .filter((c) => c.queue.inFlight > 0)
        .map((c) => ({ controller: c.name, runningMs: c.queue.longestInFlightMs() })),
      stuckAfterMs: reconcileStuckAfterMs,
    });
  }

  /** Readiness: every cache synced and none stale. */
  readiness(): ProbeResult {
    const reasons: string[] = [];
    for (const [id, cache] of this.caches) {
      if (!cache.hasSynced()) reasons.push(`cache ${id} has not synced`);
      else if (cache.isStale()) reasons.push(`cache ${id} is stale: its watch has been down too long`);
    }
    return reasons.length ? { ok: false, reasons } : { ok: true };
  }

  /**
   * Stops taking work, aborts running reconciles and waits for them (bounded by shutdownTimeoutMs), then
   * gives up the lease, then stops the caches. The lease is given up only once every reconcile has
   * returned: while one may still call Coder or PostgreSQL, it is kept (and renewed), and when some
   * outlive the timeout it is left to expire rather than handed to another replica at once. Resolves
   * whether every reconcile returned.
   */
  async shutdown(): Promise<boolean> {
    this.stopping = true;
    const drained = await Promise.all(this.controllers.map((c) => c.stop(this.options.shutdownTimeoutMs)));
    const allReturned = !drained.includes(false);
    if (!allReturned) {
      this.options.logger.warn(
        { timeoutMs: this.options.shutdownTimeoutMs },
        'some reconciles did not return before the graceful shutdown timeout; the leader lease is left to expire instead of released',
      );
    }
    await this.elector?.stop({ release: allReturned });
    await Promise.all([...this.caches.values()].map((c) => c.stop()));
    return allReturned;
  }
}
