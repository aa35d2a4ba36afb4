// Whether a namespace is being deleted, looked up before any Coder call: in a terminating namespace lists
// are empty and deletes refused, so deleting a namespace never deletes what Coder holds. "active" is
// never reused (the namespace controller lists right after the deletion starts); the other states are
// kept 5 s, as a terminating namespace does not come back.
import type { KubeHttp } from '../../runtime/kube-http.ts';
import { isNotFound } from '../../runtime/kube-http.ts';
import { isTerminating } from '../../runtime/namespace-terminating.ts';

export type NamespaceState = 'active' | 'terminating' | 'missing';

const cacheMs = 5_000;

export class NamespaceStates {
  private readonly http: KubeHttp;
  private readonly cache = new Map<string, { at: number; state: NamespaceState }>();

  constructor(http: KubeHttp) {
    this.http = http;
  }

  async state(namespace: string): Promise<NamespaceState> {
    const cached = this.cache.get(namespace);
    if (cached && Date.now() - cached.at < cacheMs) return cached.state;
    this.cache.delete(namespace);
    let state: NamespaceState;
    try {
      const ns = await this.http.json<{ metadata?: { deletionTimestamp?: string }; status?: { phase?: string } }>(
        'GET',
        `/api/v1/namespaces/${encodeURIComponent(namespace)}`,
        { timeoutMs: 10_000 },
      );
      state = isTerminating(ns as never) ? 'terminating' : 'active';
    } catch (err) {
      if (!isNotFound(err)) throw err;
      state = 'missing';
    }
    if (state !== 'active') this.cache.set(namespace, { at: Date.now(), state });
    return state;
  }
}
