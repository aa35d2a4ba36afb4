// How many followed logs may be open at once, on this server and per user: past either
// count a follow is refused with 429 and Retry-After: 5. A followed log is long-running, so it is not
// counted in flight (max-in-flight.ts) but here.
import { ApiStatusError } from '../../status.ts';

export const followRetryAfterSeconds = 5;

/** Open follows, counted per server and per user. */
export class FollowSlots {
  private open = 0;
  private readonly byUser = new Map<string, number>();
  private readonly perServer: number;
  private readonly perUser: number;

  constructor(perServer = 64, perUser = 4) {
    this.perServer = perServer;
    this.perUser = perUser;
  }

  /** Takes a slot for `user` and returns its release (idempotent); a 429 when the server or the user has none left. */
  take(user: string): () => void {
    const mine = this.byUser.get(user) ?? 0;
    if (this.open >= this.perServer) throw tooMany(`this server already streams ${this.perServer} followed logs`);
    if (mine >= this.perUser) throw tooMany(`user "${user}" already follows ${this.perUser} logs`);
    this.open++;
    this.byUser.set(user, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open--;
      const left = (this.byUser.get(user) ?? 1) - 1;
      if (left > 0) this.byUser.set(user, left);
      else this.byUser.delete(user);
    };
  }
}

function tooMany(why: string): ApiStatusError {
  return new ApiStatusError(429, 'TooManyRequests', `too many followed logs: ${why}; try again later`, {
    retryAfterSeconds: followRetryAfterSeconds,
  });
}
