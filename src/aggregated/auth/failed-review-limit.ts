// How many bearer tokens that kube-apiserver does not know one source may have reviewed: each failed
// TokenReview takes one from the source's bucket (10, refilled one every 6 s), and a source with none left
// gets 429 for a token not reviewed recently, without a review. Otherwise a caller sending distinct bogus
// tokens makes one TokenReview each, on the operator's own share of kube-apiserver.
import { BoundedCache } from '../../runtime/bounded-cache.ts';
import { ApiStatusError } from '../status.ts';

const burst = 10;
const refillMs = 6_000;
const maxSources = 4096;

export class FailedReviewLimit {
  private readonly buckets = new BoundedCache<{ tokens: number; at: number }>({ maxEntries: maxSources });
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** Throws a 429 when `source` has no failed review left. */
  check(source: string): void {
    const bucket = this.refilled(source);
    if (bucket && bucket.tokens < 1)
      throw new ApiStatusError(
        429,
        'TooManyRequests',
        'too many requests with bearer tokens kube-apiserver does not know came from this address; try again later',
        { retryAfterSeconds: Math.ceil(((1 - bucket.tokens) * refillMs) / 1000) },
      );
  }

  /** Takes one from `source`'s bucket for a token kube-apiserver did not authenticate. */
  failed(source: string): void {
    const bucket = this.refilled(source) ?? { tokens: burst, at: this.now() };
    bucket.tokens -= 1;
    this.buckets.set(source, bucket);
  }

  private refilled(source: string): { tokens: number; at: number } | undefined {
    const bucket = this.buckets.get(source);
    if (!bucket) return undefined;
    const now = this.now();
    bucket.tokens = Math.min(burst, bucket.tokens + (now - bucket.at) / refillMs);
    bucket.at = now;
    return bucket;
  }
}
