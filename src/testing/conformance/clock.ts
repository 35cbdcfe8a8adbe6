/**
 * The clock the stores stamp `lastUpdateTime` with (`Date.now()`), moved on explicitly when a
 * test needs a strictly later stamp, instead of sleeping until it ticks: Vitest's fake `Date`
 * (timers untouched, and the fake clock still runs with real time), stepped by `stepClock`,
 * restored by `restoreClock` (in an `afterEach`). A store that reads another clock (a database
 * server's) gets later stamps from the real time its round trips take.
 */
import { vi } from 'vitest';

let installed = false;

/** Moves `Date.now()` on by `milliseconds` (faking `Date` on first use). */
export function stepClock(milliseconds = 1): void {
  if (!vi.isFakeTimers()) {
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    installed = true;
  }
  vi.setSystemTime(Date.now() + milliseconds);
}

/** The real `Date` again, if `stepClock` faked it. */
export function restoreClock(): void {
  if (!installed) return;
  vi.useRealTimers();
  installed = false;
}
