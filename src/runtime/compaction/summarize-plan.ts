/**
 * The summary of one compaction plan: the main summarizer, then the fallback, each call bounded
 * by `summarizerTimeoutMs` and the caller's signal, and neither called while it cools down after
 * a failure (docs/resilience.md#summarizer-cool-down).
 */
import type { CompactionPlan, EventsSummarizer, Summary } from '../../compaction/types.js';
import type { SummaryRequestNote } from '../../events/types.js';
import { fallbackReason } from '../../summarizers/fallback-reason.js';
import { errorMessage } from '../../util/error-message.js';
import { type ChunkProgress, summarizeInChunks } from './chunked-summary.js';
import type {
  SummarizerCoolDown,
  SummarizerCoolDownReport,
  SummarizerPermit,
} from './summarizer-cool-down.js';

/** A cool-down as a report shows it: why a call was skipped, or the one a failure started. */
export type CoolDownDetails = SummarizerCoolDownReport | Omit<SummarizerCoolDownReport, 'cause'>;

/** What a summarizer call gave. */
export interface Summarized {
  summary: Summary | null;
  /** Who wrote the summary (a wrapper may say it was its own fallback). */
  name: string;
  usedFallback: boolean;
  /** Why the fallback ran. */
  fallback?: { from: string; reason: string };
  /** The main summarizer was cooling down: the fallback wrote without waiting for it. */
  coolDown?: SummarizerCoolDownReport;
  /** Set when the summary was asked for on the agent's cached prefix. */
  summaryRequest?: SummaryRequestNote;
}

/** No summarizer was called: the one needed is cooling down. */
export interface CoolingDown {
  coolingDown: SummarizerCoolDownReport;
}

/** Every summarizer called failed. */
export interface SummarizeFailure {
  error: unknown;
  name: string;
  coolDown?: CoolDownDetails;
}

/** Why the summarizer was not called, for a report and its log line. */
export function coolDownReason(coolDown: SummarizerCoolDownReport): string {
  const why =
    coolDown.cause === 'failed_this_turn'
      ? 'it already failed in this turn'
      : coolDown.cause === 'probe_in_flight'
        ? 'another attempt is probing it'
        : `cooling down until ${new Date(coolDown.untilMs).toISOString()}`;
  return `summarizer '${coolDown.summarizer}' not called: ${why} (${coolDown.failures} failure(s) in a row, ${coolDown.skipped} attempt(s) skipped)`;
}

export interface SummarizePlanOptions {
  plan: CompactionPlan;
  summarizer: EventsSummarizer;
  fallbackSummarizer?: EventsSummarizer;
  coolDown: SummarizerCoolDown;
  timeoutMs: number;
  /** The turn the attempt runs in: a summarizer that failed in it is not called again. */
  turnId?: string;
  /**
   * The request does not fit without a compaction (overflow, manual): a summarizer cooling down
   * is passed over for the fallback instead of skipping the attempt.
   */
  required: boolean;
  /** Each call that failed or timed out (not a caller's abort). Must not throw. */
  onFailure?: (details: { summarizer: string; error: unknown }) => void;
  /** After each chunk of a backlog summarized chunk by chunk. Must not throw. */
  onProgress?: (progress: ChunkProgress) => void;
  signal?: AbortSignal;
}

/**
 * Main summarizer, then the fallback; an empty summary is a failure, never written in. A
 * summarizer cooling down is not called: an optional attempt is skipped (`CoolingDown`), a
 * required one goes to the fallback at once. At most one summarizer waits per attempt once the
 * main one is cooling down, and none in the turn it failed in.
 */
export async function summarizePlan(
  options: SummarizePlanOptions,
): Promise<Summarized | SummarizeFailure | CoolingDown> {
  const { plan, summarizer, coolDown, turnId, signal } = options;
  const run = async (current: EventsSummarizer, permit: SummarizerPermit) => {
    try {
      // A long backlog (the first compaction after an import) goes chunk by chunk; an empty
      // summary is refused there.
      const summary = await summarizeInChunks({
        summarizer: current,
        events: plan.events,
        previousSummary: plan.previousSummary,
        timeoutMs: options.timeoutMs,
        signal,
        onProgress: options.onProgress,
      });
      permit.settle('answered');
      return summary;
    } catch (error) {
      permit.settle(signal?.aborted ? 'aborted' : 'failed');
      if (!signal?.aborted) options.onFailure?.({ summarizer: current.name, error });
      throw error;
    }
  };
  const written = (summary: Summary | null, writer: EventsSummarizer) => ({
    summary,
    name: summary?.summarizer ?? writer.name,
    ...(summary?.fallback ? { fallback: summary.fallback } : {}),
  });
  const fallback = options.fallbackSummarizer;
  const main = coolDown.acquire({ summarizer, turnId });
  if ('coolDown' in main) {
    const cooling = main.coolDown;
    if (!options.required || !fallback) return { coolingDown: cooling };
    const second = coolDown.acquire({ summarizer: fallback, turnId });
    if ('coolDown' in second) return { coolingDown: cooling };
    try {
      const summary = await run(fallback, second.permit);
      return {
        ...written(summary, fallback),
        usedFallback: true,
        fallback: { from: summarizer.name, reason: coolDownReason(cooling) },
        coolDown: cooling,
      };
    } catch (error) {
      return { error, name: fallback.name, coolDown: cooling };
    }
  }
  try {
    const summary = await run(summarizer, main.permit);
    const result = written(summary, summarizer);
    return { ...result, usedFallback: result.fallback !== undefined };
  } catch (error) {
    const started = coolDown.describe(summarizer);
    const withCoolDown = started ? { coolDown: started } : {};
    if (!fallback || signal?.aborted) return { error, name: summarizer.name, ...withCoolDown };
    const second = coolDown.acquire({ summarizer: fallback, turnId });
    if ('coolDown' in second) return { error, name: summarizer.name, coolDown: second.coolDown };
    try {
      const summary = await run(fallback, second.permit);
      return {
        ...written(summary, fallback),
        usedFallback: true,
        fallback: { from: summarizer.name, reason: fallbackReason(error) },
      };
    } catch (fallbackError) {
      if (signal?.aborted) return { error: fallbackError, name: fallback.name };
      return {
        error: new AggregateError(
          [error, fallbackError],
          `Summarizers failed: ${errorMessage(error)}; fallback: ${errorMessage(fallbackError)}`,
        ),
        name: fallback.name,
        ...withCoolDown,
      };
    }
  }
}
