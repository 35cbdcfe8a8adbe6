/**
 * Where a summary may end for ADK for TypeScript (docs/architecture.md#the-event-model). ADK-JS
 * 2.0's view (`getActiveEvents`) keeps its newest `CompactedEvent` and only the events timed
 * strictly after that event's `endTime`, while orrery decides what a summary covers by `seq`.
 * An event after the summarized range that shares the last summarized event's millisecond (fast
 * tools and models write several per ms), or one written with an earlier clock, would vanish
 * from ADK-JS's view; so the `endTime` ADK-JS reads is kept below every such event's time.
 */

export interface AdkJsSummaryEndOptions {
  /** The summary's `endTime` as ADK-JS reads it: the last summarized event's time. */
  endTime: number;
  /**
   * Timestamps, as ADK-JS reads them, of the events after the summarized range (higher `seq`,
   * compactions left out). Anything but a number is ignored.
   */
  laterTimestamps: Iterable<unknown>;
}

/**
 * `endTime`, or 1 below the earliest later timestamp when that is not strictly after `endTime`
 * (one millisecond in ADK-JS's epoch milliseconds).
 */
export function adkJsSummaryEnd(options: AdkJsSummaryEndOptions): number {
  let earliest = Number.POSITIVE_INFINITY;
  for (const timestamp of options.laterTimestamps) {
    if (typeof timestamp === 'number' && timestamp < earliest) earliest = timestamp;
  }
  return earliest <= options.endTime ? earliest - 1 : options.endTime;
}
