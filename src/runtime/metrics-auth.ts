// Who may read /metrics: the caller's bearer token is checked with a TokenReview and the user it names
// with a SubjectAccessReview for `get` on the non-resource URL /metrics, as controller-runtime's
// secure metrics (and kube-rbac-proxy) do. Verdicts are cached briefly so a scrape costs no API calls.
import { createHash } from 'node:crypto';
import { reviewAccess, reviewToken } from './access-review.ts';
import { BoundedCache } from './bounded-cache.ts';
import type { KubeHttp } from './kube-http.ts';

export type MetricsVerdict = { status: 200 } | { status: 401 | 403 | 500; reason: string };

export interface MetricsAuthorizerOptions {
  /** How long an allowed or denied verdict for a token is reused; default 1 min. */
  cacheTtlMs?: number;
  now?: () => number;
}

const maxCachedTokens = 256;

export class MetricsAuthorizer {
  private readonly http: KubeHttp;
  private readonly cache: BoundedCache<MetricsVerdict>;

  constructor(http: KubeHttp, options: MetricsAuthorizerOptions = {}) {
    this.http = http;
    this.cache = new BoundedCache({ maxEntries: maxCachedTokens, ttlMs: options.cacheTtlMs ?? 60_000, now: options.now });
  }

  /** The verdict on a request carrying `authorization` (its Authorization header). */
  async check(authorization: string | undefined): Promise<MetricsVerdict> {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (!token) return { status: 401, reason: 'a bearer token is required' };
    const key = createHash('sha256').update(token).digest('hex');
    const cached = this.cache.get(key);
    if (cached) return cached;
    let verdict: MetricsVerdict;
    try {
      verdict = await this.review(token);
    } catch (err) {
      // Not cached: the API server may answer the next scrape.
      return { status: 500, reason: `cannot check the caller: ${(err as Error).message}` };
    }
    this.cache.set(key, verdict);
    return verdict;
  }

  private async review(token: string): Promise<MetricsVerdict> {
    const user = await reviewToken(this.http, token);
    if (!user) return { status: 401, reason: 'the token is not valid' };
    const access = await reviewAccess(this.http, user, { nonResourceAttributes: { path: '/metrics', verb: 'get' } });
    if (!access.allowed) return { status: 403, reason: `${user.username} may not get /metrics` };
    return { status: 200 };
  }
}
