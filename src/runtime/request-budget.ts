// The client-side request budget to the API server, as client-go's --kube-api-qps/--kube-api-burst: a
// token bucket that makes a request wait for its token instead of failing. The API server protects itself
// with Priority and Fairness (a 429 with Retry-After, which KubeHttp waits out); this keeps one operator
// from flooding it to begin with.
import { abortableSleep } from './abortable-sleep.ts';

export interface RequestBudgetOptions {
  /** Sustained requests per second. */
  qps: number;
  /** Requests that may go at once after a quiet spell. */
  burst: number;
  now?: () => number;
}

// At its default concurrency the operator's writes run at about 150 a second on a 2-core control plane
// (npm run bench:scale): the default must not be what holds it back; the API server's own limit is Priority
// and Fairness.
export const defaultKubeApiQps = 200;
export const defaultKubeApiBurst = 400;

export class RequestBudget {
  private tokens: number;
  private last: number;
  private readonly qps: number;
  private readonly burst: number;
  private readonly now: () => number;

  constructor({ qps, burst, now = () => performance.now() }: RequestBudgetOptions) {
    if (!(qps > 0) || !(burst >= 1)) throw new Error(`request budget: qps must be above 0 and burst at least 1 (got ${qps}, ${burst})`);
    this.qps = qps;
    this.burst = burst;
    this.now = now;
    this.tokens = burst;
    this.last = now();
  }

  /**
   * Reserves the next token; returns how many milliseconds until it is due (0: at once). Reservations
   * are served in order, so waiters leave the bucket as fast as it refills, never faster.
   */
  reserve(): number {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  /** Waits for a token (cut short when `signal` aborts). */
  async take(signal?: AbortSignal): Promise<void> {
    const waitMs = this.reserve();
    if (waitMs <= 0) return;
    if (signal) await abortableSleep(waitMs, signal);
    else await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
}
