/**
 * The Runner's background after-invocation compactions (`RunnerOptions.background`): at most one
 * per session that the next run on the session waits for, and `flush()` for all of them
 * (docs/architecture.md#the-runtime).
 */
import type { Logger } from 'pino';
import type { SessionKey } from '../../events/types.js';
import { raceAbort } from '../../util/abort.js';
import { sessionKeyString } from './runner-telemetry.js';

export class BackgroundCompactions {
  private readonly pending = new Map<string, Promise<void>>();
  private readonly logger: Logger;

  constructor(options: { logger: Logger }) {
    this.logger = options.logger;
  }

  /**
   * Waits for the session's background compaction, if one runs, so the next turn reads the view
   * it leaves; the caller may give up waiting through `signal` (the compaction goes on).
   */
  async waitFor(options: { key: SessionKey; signal?: AbortSignal }): Promise<void> {
    const pending = this.pending.get(sessionKeyString(options.key));
    // Giving up the wait is not a failure: the compaction goes on.
    if (pending) await raceAbort(pending, options.signal).catch(() => undefined);
  }

  /** Runs `work` for the session (a failure is logged), then `done`, whatever happened. */
  start(options: {
    key: SessionKey;
    work: () => Promise<void>;
    done: () => Promise<void> | void;
  }): void {
    const keyString = sessionKeyString(options.key);
    const task: Promise<void> = options
      .work()
      .catch((error) => this.logger.warn({ error: String(error) }, 'background compaction failed'))
      .finally(() => {
        if (this.pending.get(keyString) === task) this.pending.delete(keyString);
        return options.done();
      });
    this.pending.set(keyString, task);
  }

  /** Waits for every background compaction (e.g. before shutting down). */
  async flush(): Promise<void> {
    await Promise.all([...this.pending.values()]);
  }
}
