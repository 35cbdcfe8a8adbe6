/**
 * A runaway summarizer for tests (docs/resilience.md#summarizer-cool-down): it never answers and
 * ignores its signal, and counts its calls; and `timed`, which runs work under vitest's fake
 * timers, jumping from timer to timer, and returns the fake time it took (no sleeps).
 */
import { vi } from 'vitest';
import type { EventsSummarizer } from '../../compaction/types.js';

export function hungSummarizer(name = 'hung'): EventsSummarizer & { calls: number } {
  const summarizer = {
    name,
    calls: 0,
    summarize() {
      summarizer.calls++;
      return new Promise<never>(() => {});
    },
  };
  return summarizer;
}

/** Needs `vi.useFakeTimers()`. */
export async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = Date.now();
  let finished = false;
  const pending = work().finally(() => {
    finished = true;
  });
  for (let step = 0; step < 10_000 && !finished; step++) {
    await vi.advanceTimersToNextTimerAsync();
  }
  await pending;
  return Date.now() - started;
}
