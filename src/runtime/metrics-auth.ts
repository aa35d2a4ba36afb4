// Who may read /metrics: the caller's bearer token is checked with a TokenReview and the user it names
// with a SubjectAccessReview for `get` on the non-resource URL /metrics, as controller-runtime's
// secure metrics (and kube-rbac-proxy) do. Verdicts are cached briefly so a scrape costs no API calls.
import { createHash } from 'node:crypto';
import type { KubeHttp } from './kube-http.ts';

export type MetricsVerdict = { status: 200 } | { status: 401 | 403 | 500; reason: string };

interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface MetricsAuthorizerOptions {
  /** How long an allowed or denied verdict for a token is reused; default 1 min. */
  cacheTtlMs?: number;
  /** Deadline of each review request; default 10 s. */
  timeoutMs?: number;
  now?: () => number;
}

const maxCachedTokens = 256;

export class MetricsAuthorizer {
  private readonly http: KubeHttp;
  private readonly options: MetricsAuthorizerOptions;
  private readonly cache = new Map<string, { verdict: MetricsVerdict; at: number }>();

  constructor(http: KubeHttp, options: MetricsAuthorizerOptions = {}) {
    this.http = http;
    this.options = options;
  }

  /** The verdict on a request carrying `authorization` (its Authorization header). */
  async check(authorization: string | undefined): Promise<MetricsVerdict> {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (!token) return { status: 401, reason: 'a bearer token is required' };
    const now = (this.options.now ?? Date.now)();
    const key = createHash('sha256').update(token).digest('hex');
    const cached = this.cache.get(key);
    if (cached && now - cached.at < (this.options.cacheTtlMs ?? 60_000)) return cached.verdict;
    let verdict: MetricsVerdict;
    try {
      verdict = await this.review(token);
    } catch (err) {
      // Not cached: the API server may answer the next scrape.
      return { status: 500, reason: `cannot check the caller: ${(err as Error).message}` };
    }
    this.cache.delete(key);
    this.cache.set(key, { verdict, at: now });
    if (this.cache.size > maxCachedTokens) this.cache.delete(this.cache.keys().next().value!);
    return verdict;
  }

  private async review(token: string): Promise<MetricsVerdict> {
    const timeoutMs = this.options.timeoutMs ?? 10_000;
    const tokenReview = await this.http.json<{ status?: { authenticated?: boolean; user?: UserInfo } }>(
      'POST',
      '/apis/authentication.k8s.io/v1/tokenreviews',
      { timeoutMs, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } } },
    );
    const user = tokenReview.status?.user;
    if (!tokenReview.status?.authenticated || !user?.username) return { status: 401, reason: 'the token is not valid' };
    const access = await this.http.json<{ status?: { allowed?: boolean } }>('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      timeoutMs,
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: user.username,
          uid: user.uid,
          groups: user.groups,
          extra: user.extra,
          nonResourceAttributes: { path: '/metrics', verb: 'get' },
        },
      },
    });
    if (!access.status?.allowed) return { status: 403, reason: `${user.username} may not get /metrics` };
    return { status: 200 };
  }
}
