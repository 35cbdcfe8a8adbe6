/**
 * One call at a time per conversation: in this process a queue per conversation, across
 * processes the store's session lease when it has one (as the Runner holds it for a turn). A
 * streamed call holds it until its stream ends, so the next step sees the answer stored.
 */
import type { SessionKey } from '../../events/types.js';
import { acquireRunLease, type SessionLeaseOptions } from '../../runtime/turn/session-lease.js';
import type { SessionService } from '../../sessions/session-service.js';

export type Release = () => Promise<void>;

export class ConversationLock {
  private readonly sessionService: SessionService;
  private readonly lease: SessionLeaseOptions | false;
  private readonly queues = new Map<string, Promise<void>>();

  constructor(options: { sessionService: SessionService; lease: SessionLeaseOptions | false }) {
    this.sessionService = options.sessionService;
    this.lease = options.lease;
  }

  /** Waits for the conversation (the caller's signal ends the wait), then holds it. */
  async acquire(options: { key: SessionKey; signal?: AbortSignal }): Promise<Release> {
    const { key, signal } = options;
    const id = JSON.stringify([key.appName, key.userId, key.sessionId]);
    const previous = this.queues.get(id) ?? Promise.resolve();
    let unlock!: () => void;
    const mine = new Promise<void>((resolve) => {
      unlock = resolve;
    });
    const tail = previous.then(() => mine);
    this.queues.set(id, tail);
    const releaseLocal = () => {
      unlock();
      if (this.queues.get(id) === tail) this.queues.delete(id);
    };
    try {
      await waitFor(previous, signal);
      const lease = await acquireRunLease({
        sessionService: this.sessionService,
        key,
        lease: this.lease,
        signal,
      });
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        try {
          await lease?.release();
        } finally {
          releaseLocal();
        }
      };
    } catch (error) {
      releaseLocal();
      throw error;
    }
  }
}

function waitFor(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
