// What a control plane's Coder says about itself, read once and kept for a while: build info (to gate each
// API on the version that serves it), entitlements and the deployment config (whether AI Gateway is on).
// One instance serves every controller, so many objects on one control plane cost one read per period, not
// one each. A control plane that changes (a new generation, for example a new image) is read afresh at once.
import type { CoderControlPlane } from '../../../generated/types/codercontrolplane.ts';
import type { CallOptions, CoderClient } from '../../coder/client.ts';
import type { Schemas } from '../../coder/api-types.ts';

export interface CoderFactsOptions {
  /** How long build info and the deployment config are kept (the resync period). */
  buildInfoTtlMs: number;
  /** How long entitlements are kept (the schemas' "re-checked every 2 minutes"). */
  entitlementsTtlMs?: number;
  now?: () => number;
}

interface Entry {
  at: number;
  value: Promise<unknown>;
}

export class CoderFacts {
  private readonly entries = new Map<string, Entry>();
  private readonly buildInfoTtlMs: number;
  private readonly entitlementsTtlMs: number;
  private readonly now: () => number;

  constructor(options: CoderFactsOptions) {
    this.buildInfoTtlMs = options.buildInfoTtlMs;
    this.entitlementsTtlMs = options.entitlementsTtlMs ?? 2 * 60_000;
    this.now = options.now ?? Date.now;
  }

  buildInfo(cp: CoderControlPlane, client: CoderClient, options: CallOptions = {}): Promise<Schemas['BuildInfoResponse']> {
    return this.cached(cp, 'buildinfo', this.buildInfoTtlMs, () => client.getBuildInfo(options));
  }

  entitlements(cp: CoderControlPlane, client: CoderClient, options: CallOptions = {}): Promise<Schemas['Entitlements']> {
    return this.cached(cp, 'entitlements', this.entitlementsTtlMs, () => client.getEntitlements(options));
  }

  deploymentConfig(cp: CoderControlPlane, client: CoderClient, options: CallOptions = {}): Promise<Schemas['DeploymentConfig']> {
    return this.cached(cp, 'deployment-config', this.buildInfoTtlMs, () =>
      client.request('GET', '/api/v2/deployment/config', options.signal ? { signal: options.signal } : {}),
    );
  }

  /** Forgets what is known of a control plane, for example after Coder answered as if it had changed. */
  forget(cp: CoderControlPlane): void {
    const prefix = `${controlPlaneKey(cp)} `;
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  private cached<T>(cp: CoderControlPlane, what: string, ttlMs: number, read: () => Promise<T>): Promise<T> {
    const key = `${controlPlaneKey(cp)} ${what}`;
    const now = this.now();
    const entry = this.entries.get(key);
    if (entry && now - entry.at < ttlMs) return entry.value as Promise<T>;
    // Several reconciles asking at once share one call; a failed call is not kept.
    const value = read();
    this.entries.set(key, { at: now, value });
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    return value;
  }
}

/** namespace/name, UID and generation: a recreated or changed control plane is another Coder to ask. */
function controlPlaneKey(cp: CoderControlPlane): string {
  return `${cp.metadata.namespace}/${cp.metadata.name}/${cp.metadata.uid ?? ''}/${cp.metadata.generation ?? 0}`;
}
