/**
 * How many replays run at once: a bound for the whole server and one for each caller (a
 * bearer token; every caller is one when the server has no tokens). A replay over either bound
 * is refused at once (429 with `Retry-After`), never queued: a queue would hold its body.
 */

export interface ReplayLimits {
  /** Replays running at once on this server. */
  maxConcurrent: number;
  /** Replays running at once for one caller. */
  maxConcurrentPerUser: number;
}

/** A held slot; `release` is idempotent. */
export interface ReplaySlot {
  release(): void;
}

export type ReplayRefusal = { scope: 'server' | 'user'; limit: number };

export class ReplayLimiter {
  private readonly limits: ReplayLimits;
  private running = 0;
  private readonly perUser = new Map<string, number>();

  constructor(limits: ReplayLimits) {
    this.limits = limits;
  }

  /** Replays running now. */
  get size(): number {
    return this.running;
  }

  /** A slot for `user`, or which bound refused it. */
  acquire(user: string): ReplaySlot | ReplayRefusal {
    const { maxConcurrent, maxConcurrentPerUser } = this.limits;
    const mine = this.perUser.get(user) ?? 0;
    if (mine >= maxConcurrentPerUser) return { scope: 'user', limit: maxConcurrentPerUser };
    if (this.running >= maxConcurrent) return { scope: 'server', limit: maxConcurrent };
    this.running++;
    this.perUser.set(user, mine + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.running--;
        const left = (this.perUser.get(user) ?? 1) - 1;
        if (left === 0) this.perUser.delete(user);
        else this.perUser.set(user, left);
      },
    };
  }
}

export function isRefusal(result: ReplaySlot | ReplayRefusal): result is ReplayRefusal {
  return 'scope' in result;
}
