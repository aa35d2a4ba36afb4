// The in-flight limit (as kube-apiserver's, k8s.io/apiserver pkg/server/filters/maxinflight.go): at most so many reads (get,
// list) and so many writes at once, else 429 with Retry-After: 1. Long-running requests (watches, followed
// logs) are not counted here: a followed log has its own limit (log-follow-limit.ts). As in kube-apiserver, a
// member of system:masters is never turned away: it takes a free slot when there is one and is served
// without one when there is not.
import { privilegedGroup } from '../../auth/authenticate.ts';
import { ApiStatusError } from '../../status.ts';

export interface InFlightLimits {
  reads: number;
  writes: number;
}

export class MaxInFlight {
  private readonly limits: InFlightLimits;
  private readonly inFlight = { reads: 0, writes: 0 };

  constructor(limits: InFlightLimits) {
    this.limits = limits;
  }

  /** Serves `serve` in a slot of the verb's kind; a 429 when none is free, unless `groups` holds system:masters. */
  async run(verb: string, groups: readonly string[], serve: () => Promise<void>): Promise<void> {
    const kind = ['get', 'list'].includes(verb) ? 'reads' : 'writes';
    if (this.inFlight[kind] >= this.limits[kind]) {
      if (groups.includes(privilegedGroup)) return serve();
      throw new ApiStatusError(429, 'TooManyRequests', 'too many requests in flight; try again later', { retryAfterSeconds: 1 });
    }
    this.inFlight[kind]++;
    try {
      await serve();
    } finally {
      this.inFlight[kind]--;
    }
  }
}
