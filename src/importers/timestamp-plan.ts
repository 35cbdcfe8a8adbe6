/**
 * Imported timestamps, one event at a time: source times are kept when they increase, moved
 * forward by `SYNTHETIC_STEP` when not (reported), and events without one get the previous time
 * plus a step. Events before the first source time count back from it; with none at all, the
 * synthetic times end at the import. That needs the event count and the first source time up
 * front: a streamed import learns them in its first pass (`TimestampSurvey`) and assigns the
 * times in its second (`TimestampAssigner`), so no event is held for them.
 */

export const SYNTHETIC_STEP = 0.001;

/** What the times of a transcript depend on, learned by a first pass. */
export interface TimestampPlan {
  /** Events in the transcript. */
  count: number;
  /** Index of the first event with a source time, -1 when none has one. */
  firstKnownIndex: number;
  firstKnownTime?: number;
  /** Epoch seconds of the first synthetic time when no event has a source time. */
  startTime?: number;
}

/** One step of the rule: the time after `previous` for an event whose source time is `source`. */
function step(previous: number, source: number | undefined): { time: number; adjusted: boolean } {
  let time = source ?? previous + SYNTHETIC_STEP;
  let adjusted = false;
  if (time <= previous) {
    if (source !== undefined) adjusted = true;
    time = previous + SYNTHETIC_STEP;
  }
  // Rounded to the microsecond so float noise never makes two times equal or reversed.
  time = Math.round(time * 1e6) / 1e6;
  if (time <= previous) time = previous + 1e-6;
  return { time, adjusted };
}

/** The `previous` the rule starts from (before event 0). */
function initialPrevious(plan: TimestampPlan, now: number): number {
  if (plan.firstKnownIndex === -1 || plan.firstKnownTime === undefined) {
    const base = plan.startTime ?? now / 1000 - plan.count * SYNTHETIC_STEP;
    return base - SYNTHETIC_STEP;
  }
  return plan.firstKnownTime - (plan.firstKnownIndex + 1) * SYNTHETIC_STEP;
}

/** Assigns final times in order, given the plan. `adjusted`: source times moved forward. */
export class TimestampAssigner {
  adjusted = 0;
  private previous: number;

  constructor(plan: TimestampPlan, now = Date.now()) {
    this.previous = initialPrevious(plan, now);
  }

  next(source: number | undefined): number {
    const { time, adjusted } = step(this.previous, source);
    if (adjusted) this.adjusted++;
    this.previous = time;
    return time;
  }
}

/**
 * The first pass: counts events, finds the first source time, and counts the adjustments the
 * second pass will make (they start at the first source time, so they are known exactly here).
 * `add` returns a provisional time (the source time, or the last one known), for checks only.
 */
export class TimestampSurvey {
  count = 0;
  firstKnownIndex = -1;
  firstKnownTime?: number;
  private assigner?: TimestampAssigner;

  add(source: number | undefined): number {
    const index = this.count++;
    if (!this.assigner && source !== undefined) {
      this.firstKnownIndex = index;
      this.firstKnownTime = source;
      // Replays the synthetic times of the events before, as the second pass will make them.
      this.assigner = new TimestampAssigner({
        count: index + 1,
        firstKnownIndex: index,
        firstKnownTime: source,
      });
      for (let before = 0; before < index; before++) this.assigner.next(undefined);
    }
    return this.assigner ? this.assigner.next(source) : 0;
  }

  get adjusted(): number {
    return this.assigner?.adjusted ?? 0;
  }

  plan(startTime: number | undefined): TimestampPlan {
    return {
      count: this.count,
      firstKnownIndex: this.firstKnownIndex,
      firstKnownTime: this.firstKnownTime,
      startTime,
    };
  }
}
