/**
 * The compaction every adapter runs (docs/architecture.md#when-compaction-runs): a Compactor
 * with the adapter's summarizers, one attempt that never throws into the framework's call, its
 * report logged and handed to `onCompaction`, and the view warnings logged.
 */
import type { Logger } from 'pino';
import type { EventsCompactionConfig, EventsSummarizer } from '../../compaction/types.js';
import type { ViewWarning } from '../../compaction/view.js';
import type { CompactionTrigger, SessionKey } from '../../events/types.js';
import { knownContextWindowTokens } from '../../models/context-windows.js';
import type { Model } from '../../models/types.js';
import { logCompaction } from '../../observability/compaction-log.js';
import {
  failedCompactionReport,
  fallbackSummarizerFor,
} from '../../runtime/compaction/compaction-setup.js';
import { type CompactionReport, Compactor } from '../../runtime/compaction/compactor.js';
import type { SummarizerCoolDown } from '../../runtime/compaction/summarizer-cool-down.js';
import type { SessionService } from '../../sessions/session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import type { AdapterTelemetry } from './adapter-telemetry.js';

/** The summarizer an adapter writes with and the one tried when it fails. */
export interface AdapterSummarizers {
  summarizer: EventsSummarizer;
  fallbackSummarizer?: EventsSummarizer;
}

/**
 * `summarizer`, else `config.summarizer`, else a `DigestSummarizer`; the fallback is the one
 * given, else a `DigestSummarizer` (none when `null`, or when the summarizer is one already).
 */
export function adapterSummarizers(options: {
  config: EventsCompactionConfig;
  summarizer?: EventsSummarizer;
  fallbackSummarizer?: EventsSummarizer | null;
}): AdapterSummarizers {
  const summarizer = options.summarizer ?? options.config.summarizer ?? new DigestSummarizer();
  return {
    summarizer,
    fallbackSummarizer: fallbackSummarizerFor({
      summarizer,
      fallbackSummarizer: options.fallbackSummarizer,
    }),
  };
}

/** A Compactor over `sessionService` writing with the adapter's summarizers. */
export function createAdapterCompactor(options: {
  sessionService: SessionService;
  config: EventsCompactionConfig;
  summarizers: AdapterSummarizers;
  /** Shared by the adapter's Compactors when it builds more than one (default: its own). */
  coolDown?: SummarizerCoolDown;
}): Compactor {
  return new Compactor({
    sessionService: options.sessionService,
    config: { ...options.config, summarizer: options.summarizers.summarizer },
    fallbackSummarizer: options.summarizers.fallbackSummarizer,
    ...(options.coolDown ? { coolDown: options.coolDown } : {}),
  });
}

/**
 * One attempt (`attempt`): whatever it throws becomes a `failed` report, except the caller's
 * own abort, so a compaction failure never fails the framework's call.
 */
export async function attemptCompaction(options: {
  sessionId: string;
  trigger: CompactionTrigger;
  signal?: AbortSignal;
  attempt: () => Promise<CompactionReport>;
}): Promise<CompactionReport> {
  try {
    return await options.attempt();
  } catch (error) {
    if (options.signal?.aborted) throw error;
    return failedCompactionReport({
      sessionId: options.sessionId,
      trigger: options.trigger,
      error,
    });
  }
}

/** The compaction log line, its span (under the host's active span), then `onCompaction`. */
export async function reportCompaction(options: {
  report: CompactionReport;
  key: SessionKey;
  logger: Logger;
  telemetry: AdapterTelemetry;
  onCompaction?: (report: CompactionReport) => void;
}): Promise<void> {
  const { report, key, logger } = options;
  logCompaction({ logger, report, appName: key.appName, userId: key.userId });
  await options.telemetry.traceCompaction(report);
  options.onCompaction?.(report);
}

/** The guard's `onViewWarnings` for an adapter: one warning line per repair in the view. */
export function logViewWarnings(logger: Logger) {
  return ({ key, warnings }: { key: SessionKey; warnings: ViewWarning[] }): void => {
    for (const warning of warnings) {
      logger.warn(
        { msgType: 'view_warning', sessionId: key.sessionId, kind: warning.kind, seq: warning.seq },
        warning.message,
      );
    }
  };
}

/** The triggers after a framework's turn: the token threshold, then the sliding window. */
export function afterTurnTriggers(config: EventsCompactionConfig): CompactionTrigger[] {
  return [
    ...(config.tokenThreshold ? (['token_threshold'] as const) : []),
    ...(config.compactionInterval ? (['sliding_window'] as const) : []),
  ];
}

/**
 * The model as the guard sizes it: an id and a context window (`contextWindowTokens`, else the
 * window orrery knows for `name`). The guard never calls it.
 */
export function sizingModel(options: {
  modelId: string;
  name: string;
  contextWindowTokens?: number;
}): Model {
  const { modelId } = options;
  return {
    modelId,
    contextWindowTokens: options.contextWindowTokens ?? knownContextWindowTokens(options.name),
    generate: () => Promise.reject(new Error(`the compaction guard does not call '${modelId}'`)),
  };
}
