/**
 * An imported transcript replayed (`orrery replay`, the inspector's replay): handed to
 * `replayTranscript` with the session state, system instruction and tool declarations the
 * import recorded.
 */
import type { EventsCompactionConfig, EventsSummarizer } from '../../compaction/types.js';
import type { SessionKey } from '../../events/types.js';
import { importedState } from '../../importers/imported-state.js';
import type { ImportResult } from '../../importers/types.js';
import type { SessionService } from '../../sessions/session-service.js';
import { type ReplayProgress, type ReplayReport, replayTranscript } from './replay.js';

export interface ReplayImportOptions {
  result: ImportResult;
  /** The transcript's file, recorded in the session state. */
  file: string;
  service: SessionService;
  key: SessionKey;
  config: EventsCompactionConfig;
  summarizer: EventsSummarizer;
  fallbackSummarizer?: EventsSummarizer;
  onProgress?: (progress: ReplayProgress) => void;
  signal?: AbortSignal;
}

/** Replays one imported transcript into `service` under `key`. */
export function replayImportedTranscript(options: ReplayImportOptions): Promise<ReplayReport> {
  const { result } = options;
  return replayTranscript({
    events: result.events,
    config: options.config,
    summarizer: options.summarizer,
    fallbackSummarizer: options.fallbackSummarizer,
    sessionService: options.service,
    ...options.key,
    state: importedState(result, options.file),
    systemInstruction: result.meta.systemInstruction,
    tools: result.meta.tools,
    onProgress: options.onProgress,
    signal: options.signal,
  });
}
