// May this user do this (reference R9, R10): a SubjectAccessReview for every request, allowed and
// denied answers cached 10 s; system:masters needs none (the aggregator's availability probe).
import { createHash } from 'node:crypto';
import type { KubeHttp } from '../runtime/kube-http.ts';
import type { UserInfo } from './authenticate.ts';

export type Attributes =
  | { resource: string; verb: string; namespace: string; name: string; group: string; version: string; subresource?: string }
  | { path: string; verb: string };

const cacheMs = 10_000;
const maxCached = 4096;

export class Authorizer {
  private readonly http: KubeHttp;
  private readonly cache = new Map<string, { at: number; allowed: boolean; reason: string }>();

  constructor(http: KubeHttp) {
    this.http = http;
  }

  /** Whether allowed, and the reviewer's reason when not; throws when the review itself fails. */
  async authorize(user: UserInfo, attributes: Attributes): Promise<{ allowed: boolean; reason: string }> {
    if (user.groups.includes('system:masters')) return { allowed: true, reason: '' };
    const key = createHash('sha256')
      .update(JSON.stringify([user, attributes]))
      .digest('hex');
    const cached = this.cache.get(key);
    if (cached && Date.now() - cached.at < cacheMs) return cached;
    const spec = {
      user: user.username,
      uid: user.uid,
      groups: user.groups,
      extra: user.extra,
      ...('resource' in attributes ? { resourceAttributes: attributes } : { nonResourceAttributes: attributes }),
    };
    const review = await this.http.json<{ status?: { allowed?: boolean; reason?: string } }>(
      'POST',
      '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      { timeoutMs: 10_000, body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec } },
    );
    const verdict = { at: Date.now(), allowed: review.status?.allowed === true, reason: review.status?.reason ?? '' };
    this.cache.set(key, verdict);
    if (this.cache.size > maxCached) this.cache.delete(this.cache.keys().next().value!);
    return verdict;
  }
}
