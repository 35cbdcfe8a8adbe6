/**
 * A long backlog summarized chunk by chunk (docs/performance.md#the-first-turn-after-an-import-item-1):
 * each chunk of at most `chunkEvents` events is one summarizer call seeded with the summary so
 * far, so the first compaction of an imported 100k-event session is many bounded calls (each
 * with its own timeout, the caller's signal checked between them) with progress reported after
 * each, instead of one call over everything. A window within one chunk is one call, as before.
 */
import type { EventsSummarizer, Summary } from '../../compaction/types.js';
import { getText } from '../../events/event-helpers.js';
import type { Content, Event, UsageMetadata } from '../../events/types.js';
import { summarizeWithin } from './summarize-within.js';

/** Events per summarizer call when a window is longer. */
export const SUMMARY_CHUNK_EVENTS = 5_000;

export interface ChunkProgress {
  summarizer: string;
  /** Chunks summarized so far, of `chunks`. */
  chunk: number;
  chunks: number;
  /** Events summarized so far, of `events`. */
  eventsDone: number;
  events: number;
}

const USAGE_COUNTS = [
  'promptTokenCount',
  'candidatesTokenCount',
  'totalTokenCount',
  'cachedContentTokenCount',
  'thoughtsTokenCount',
  'toolUsePromptTokenCount',
] as const;

/** The usage of every chunk's call added up (the compaction event records the summarizer's). */
function addUsage(total: UsageMetadata | undefined, usage: UsageMetadata | undefined) {
  if (!usage) return total;
  if (!total) return { ...usage };
  const sum: UsageMetadata = { ...total };
  for (const field of USAGE_COUNTS) {
    const value = usage[field];
    if (typeof value === 'number') sum[field] = (sum[field] ?? 0) + value;
  }
  return sum;
}

export async function summarizeInChunks(options: {
  summarizer: EventsSummarizer;
  events: Event[];
  previousSummary?: Content;
  timeoutMs: number;
  signal?: AbortSignal;
  chunkEvents?: number;
  onProgress?: (progress: ChunkProgress) => void;
}): Promise<Summary | null> {
  const { summarizer, events, timeoutMs, signal } = options;
  const size = Math.max(1, options.chunkEvents ?? SUMMARY_CHUNK_EVENTS);
  const chunks = Math.max(1, Math.ceil(events.length / size));
  let previousSummary = options.previousSummary;
  let written: Summary | null = null;
  let usage: UsageMetadata | undefined;
  for (let chunk = 0; chunk < chunks; chunk++) {
    signal?.throwIfAborted();
    const slice = chunks === 1 ? events : events.slice(chunk * size, (chunk + 1) * size);
    const summary = await summarizeWithin({
      summarizer,
      request: { events: slice, previousSummary },
      timeoutMs,
      signal,
    });
    if (summary !== null && getText(summary.content).trim() === '') {
      throw new Error(`Summarizer '${summarizer.name}' returned an empty summary`);
    }
    // `null` skips this chunk: the summary so far carries on.
    if (summary !== null) {
      usage = addUsage(usage, summary.usageMetadata);
      written = { ...summary, ...(usage ? { usageMetadata: usage } : {}) };
      previousSummary = summary.content;
    }
    if (chunks > 1) {
      options.onProgress?.({
        summarizer: summarizer.name,
        chunk: chunk + 1,
        chunks,
        eventsDone: Math.min(events.length, (chunk + 1) * size),
        events: events.length,
      });
    }
  }
  return written;
}
