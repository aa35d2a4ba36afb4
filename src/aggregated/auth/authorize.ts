// May this user do this: a SubjectAccessReview for every request, allowed and
// denied answers cached 10 s; system:masters needs none (the aggregator's availability probe).
import { createHash } from 'node:crypto';
import { reviewAccess, type AccessVerdict } from '../../runtime/access-review.ts';
import { BoundedCache } from '../../runtime/bounded-cache.ts';
import type { KubeHttp } from '../../runtime/kube-http.ts';
import { privilegedGroup, type UserInfo } from './authenticate.ts';

export type Attributes =
  | { resource: string; verb: string; namespace: string; name: string; group: string; version: string; subresource?: string }
  | { path: string; verb: string };

const cacheMs = 10_000;
const maxCached = 4096;

export class Authorizer {
  private readonly http: KubeHttp;
  private readonly cache = new BoundedCache<AccessVerdict>({ maxEntries: maxCached, ttlMs: cacheMs });

  constructor(http: KubeHttp) {
    this.http = http;
  }

  /** Whether allowed, and the reviewer's reason when not; throws when the review itself fails. */
  async authorize(user: UserInfo, attributes: Attributes): Promise<AccessVerdict> {
    if (user.groups.includes(privilegedGroup)) return { allowed: true, reason: '' };
    const key = createHash('sha256')
      .update(JSON.stringify([user, attributes]))
      .digest('hex');
    const cached = this.cache.get(key);
    if (cached) return cached;
    const verdict = await reviewAccess(
      this.http,
      user,
      'resource' in attributes ? { resourceAttributes: attributes } : { nonResourceAttributes: attributes },
    );
    this.cache.set(key, verdict);
    return verdict;
  }
}
