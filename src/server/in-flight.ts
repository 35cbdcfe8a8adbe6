/**
 * Runs the server is serving now, so a shutdown can let them finish, then abort what is left.
 * Each run gets a signal that aborts when its client goes away or the shutdown gives up on it.
 */

export interface TrackedRun {
  readonly signal: AbortSignal;
  /** Aborts the run (its client went away: the `node:http` route has no client signal). */
  abort(reason: unknown): void;
  /** Call once the run has ended (however it ended). */
  finish(): void;
}

export class InFlightRuns {
  private readonly runs = new Set<AbortController>();
  private idleWaiters: Array<() => void> = [];

  get size(): number {
    return this.runs.size;
  }

  /** A new run, aborted too when `clientSignal` aborts (the client disconnected). */
  start(clientSignal?: AbortSignal): TrackedRun {
    const controller = new AbortController();
    const onClientAbort = () =>
      controller.abort(clientSignal?.reason ?? new Error('the client disconnected'));
    if (clientSignal?.aborted) onClientAbort();
    else clientSignal?.addEventListener('abort', onClientAbort, { once: true });
    this.runs.add(controller);
    let finished = false;
    return {
      signal: controller.signal,
      abort: (reason) => controller.abort(reason),
      finish: () => {
        if (finished) return;
        finished = true;
        clientSignal?.removeEventListener('abort', onClientAbort);
        this.runs.delete(controller);
        if (this.runs.size === 0) this.wakeIdle();
      },
    };
  }

  /** Aborts every run in flight with `reason`. */
  abortAll(reason: unknown): void {
    for (const controller of this.runs) controller.abort(reason);
  }

  /** Resolves when no run is in flight, or `false` once `signal` aborts first. */
  idle(signal?: AbortSignal): Promise<boolean> {
    if (this.runs.size === 0) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = () => {
        this.idleWaiters = this.idleWaiters.filter((waiter) => waiter !== onIdle);
        resolve(false);
      };
      const onIdle = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      };
      this.idleWaiters.push(onIdle);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private wakeIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const waiter of waiters) waiter();
  }
}
