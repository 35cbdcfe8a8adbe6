/**
 * The summarizer cool-down (docs/resilience.md#summarizer-cool-down): after a summarizer fails
 * or times out, it is not called again for a while, so a hung summarizer costs one timeout,
 * not one per turn. The wait grows with each consecutive failure (`baseMs`, doubled, at most
 * `maxMs`) and a success ends it. While a summarizer cools down, or while another attempt is
 * already probing it after a cool-down, or when it already failed in the same turn, the
 * Compactor does not call it: an optional compaction (the request still fits) is skipped, a
 * required one (overflow, manual) goes to the fallback or to the ceilings without waiting.
 * State is per summarizer object, shared by every session of one Runner or adapter.
 */
import type { EventsSummarizer } from '../../compaction/types.js';

/** What a report says of a cool-down (`CompactionReport.coolDown`). */
export interface SummarizerCoolDownReport {
  /** The summarizer cooling down. */
  summarizer: string;
  /** Consecutive failures so far. */
  failures: number;
  /** When the cool-down ends (epoch milliseconds). */
  untilMs: number;
  /** Attempts on this summarizer skipped since its first consecutive failure (this one included). */
  skipped: number;
  /** Why it is not called now. */
  cause: 'cooling_down' | 'failed_this_turn' | 'probe_in_flight';
}

export interface SummarizerCoolDownOptions {
  /** The first cool-down after a failure; 0 turns the cool-down off. */
  baseMs: number;
  /** The longest cool-down, however many failures in a row. */
  maxMs: number;
  /** The clock (default `Date.now`, which fake timers replace in tests). */
  now?: () => number;
}

interface CoolDownState {
  failures: number;
  untilMs: number;
  skipped: number;
  /** The turn of the last failure: never a second wait in it. */
  failedTurn?: string;
  /** An attempt after the cool-down is running: the others do not join it. */
  probing: boolean;
}

/**
 * A permit to call a summarizer: `settle` with the outcome when the call ends (`aborted`: the
 * caller gave up, which says nothing of the summarizer).
 */
export interface SummarizerPermit {
  settle(outcome: 'answered' | 'failed' | 'aborted'): void;
}

export class SummarizerCoolDown {
  private readonly baseMs: number;
  private readonly maxMs: number;
  private readonly now: () => number;
  private readonly states = new Map<EventsSummarizer, CoolDownState>();

  constructor(options: SummarizerCoolDownOptions) {
    this.baseMs = options.baseMs;
    this.maxMs = Math.max(options.baseMs, options.maxMs);
    this.now = options.now ?? (() => Date.now());
  }

  /**
   * A permit to call `summarizer` now, or the cool-down that forbids it (the skip is counted).
   * `turnId` names the turn the attempt runs in (a Runner invocation, an adapter's call).
   */
  acquire(options: {
    summarizer: EventsSummarizer;
    turnId?: string;
  }): { permit: SummarizerPermit } | { coolDown: SummarizerCoolDownReport } {
    const { summarizer, turnId } = options;
    const state = this.baseMs > 0 ? this.states.get(summarizer) : undefined;
    if (!state) return { permit: this.permit(summarizer, turnId, false) };
    const cause =
      turnId !== undefined && state.failedTurn === turnId
        ? 'failed_this_turn'
        : this.now() < state.untilMs
          ? 'cooling_down'
          : state.probing
            ? 'probe_in_flight'
            : undefined;
    if (cause === undefined) {
      state.probing = true;
      return { permit: this.permit(summarizer, turnId, true) };
    }
    state.skipped++;
    return {
      coolDown: {
        summarizer: summarizer.name,
        failures: state.failures,
        untilMs: state.untilMs,
        skipped: state.skipped,
        cause,
      },
    };
  }

  /** The cool-down of `summarizer` now, if any (for a report after a failure). */
  describe(summarizer: EventsSummarizer): Omit<SummarizerCoolDownReport, 'cause'> | undefined {
    const state = this.states.get(summarizer);
    if (!state) return undefined;
    return {
      summarizer: summarizer.name,
      failures: state.failures,
      untilMs: state.untilMs,
      skipped: state.skipped,
    };
  }

  private permit(
    summarizer: EventsSummarizer,
    turnId: string | undefined,
    probe: boolean,
  ): SummarizerPermit {
    let settled = false;
    return {
      settle: (outcome) => {
        if (settled) return;
        settled = true;
        const state = this.states.get(summarizer);
        if (probe && state) state.probing = false;
        if (outcome === 'aborted') return;
        if (outcome === 'answered') {
          this.states.delete(summarizer);
          return;
        }
        if (this.baseMs <= 0) return;
        const failures = (state?.failures ?? 0) + 1;
        const waitMs = Math.min(this.maxMs, this.baseMs * 2 ** Math.min(failures - 1, 40));
        this.states.set(summarizer, {
          failures,
          untilMs: this.now() + waitMs,
          skipped: state?.skipped ?? 0,
          failedTurn: turnId,
          probing: false,
        });
      },
    };
  }
}
