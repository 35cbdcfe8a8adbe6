/**
 * A summarizer that falls back (e.g. model summarizer -> digest) so a compaction can still happen
 * when the model is down. A caller's abort is never masked by the fallback.
 */

import type { EventsSummarizer, SummarizeOptions, Summary } from '../compaction/types.js';
import { SummarizerError } from './errors.js';
import { fallbackReason } from './fallback-reason.js';

/** A summary that says which summarizer wrote it, and why the primary did not. */
export interface FallbackSummary extends Summary {
  /** Name of the summarizer that produced it (record it as the compaction's `summarizer`). */
  summarizer: string;
  /** The primary's failure, when the fallback wrote the summary. */
  primaryError?: unknown;
}

export interface FallbackSummarizer extends EventsSummarizer {
  readonly primary: EventsSummarizer;
  readonly fallback: EventsSummarizer;
  summarize(options: SummarizeOptions): Promise<FallbackSummary | null>;
}

export function withFallback(options: {
  primary: EventsSummarizer;
  fallback: EventsSummarizer;
  /** Called when the primary failed and the fallback is tried (log and count it). */
  onFallback?: (details: { error: unknown; primary: string; fallback: string }) => void;
  name?: string;
}): FallbackSummarizer {
  const { primary, fallback, onFallback } = options;
  return {
    name: options.name ?? primary.name,
    primary,
    fallback,
    async summarize(summarizeOptions) {
      let primaryError: unknown;
      try {
        const summary = await primary.summarize(summarizeOptions);
        return summary ? { ...summary, summarizer: summary.summarizer ?? primary.name } : null;
      } catch (error) {
        const aborted =
          summarizeOptions.signal?.aborted ||
          (SummarizerError.isInstance(error) && error.reason === 'aborted');
        if (aborted) throw error;
        primaryError = error;
      }
      onFallback?.({ error: primaryError, primary: primary.name, fallback: fallback.name });
      const summary = await fallback.summarize(summarizeOptions);
      if (!summary) return null;
      // Recorded on the compaction event: the fallback wrote it, and why the primary did not.
      return {
        ...summary,
        summarizer: summary.summarizer ?? fallback.name,
        fallback: summary.fallback ?? { from: primary.name, reason: fallbackReason(primaryError) },
        primaryError,
      };
    },
  };
}
