import { destination, type Logger, pino } from 'pino';
import { errorMessage } from '../util/error-message.js';
import type { CompactionRecord } from './compaction-record.js';
import { maskingLogger } from './masked-logger.js';

export interface CreateLoggerOptions {
  /**
   * A pino logger to use, `false` for none, or `undefined` for a new one that writes warnings
   * and errors to stderr (a library prints nothing on stdout; the CLI passes its own).
   */
  logger?: Logger | false;
}

/**
 * A logger per Runner: the given one, a silent one, or a new pino logger at `warn` on stderr;
 * either way masked, so no line carries a credential (`maskingLogger`).
 */
export function createRuntimeLogger(options: CreateLoggerOptions = {}): Logger {
  if (options.logger === false) return pino({ enabled: false });
  return maskingLogger(
    options.logger ?? pino({ level: 'warn', name: 'orrery' }, destination({ fd: 2 })),
  );
}

function optionalErrorMessage(error: unknown): string | undefined {
  if (error === undefined) return undefined;
  return errorMessage(error);
}

function roundUsd(usd: number | undefined): number | undefined {
  return usd === undefined ? undefined : Math.round(usd * 1e6) / 1e6;
}

/** One structured line per compaction attempt (failures at `warn`, the rest at `info`). */
export function logCompaction(options: {
  logger: Logger;
  report: CompactionRecord;
  appName?: string;
  userId?: string;
}): void {
  const { logger, report } = options;
  const fields = {
    msgType: 'compaction',
    appName: options.appName,
    userId: options.userId,
    sessionId: report.sessionId,
    trigger: report.trigger,
    outcome: report.outcome,
    startSeq: report.startSeq,
    endSeq: report.endSeq,
    tokensBefore: report.tokensBefore,
    tokensAfter: report.tokensAfter,
    durationMs: Math.round(report.durationMs * 10) / 10,
    ineffective: report.ineffective || undefined,
    summarizer: report.summarizer,
    // Who failed first and why, when a fallback wrote the summary (already masked).
    fallbackFrom: report.fallback?.from,
    fallbackReason: report.fallback?.reason,
    // The agent's cached prefix reused for the summary, or why not (docs/cost.md).
    summaryVia: report.summaryRequest?.via,
    summaryViaReason: report.summaryRequest?.reason,
    reason: report.reason,
    // The summarizer not called (cause) or the cool-down a failure started (docs/resilience.md).
    coolDownSummarizer: report.coolDown?.summarizer,
    coolDownCause: report.coolDown?.cause,
    coolDownUntil:
      report.coolDown === undefined ? undefined : new Date(report.coolDown.untilMs).toISOString(),
    coolDownFailures: report.coolDown?.failures,
    coolDownSkipped: report.coolDown?.skipped,
    // Cost-aware compaction's choice (docs/cost.md#cost-aware-compaction).
    costChoice: report.costChoice?.reason,
    costRetainedTokens: report.costChoice?.retainedTokens,
    costExpectedUsd: roundUsd(report.costChoice?.expectedUsd),
    costThresholdOnlyUsd: roundUsd(report.costChoice?.thresholdOnlyUsd),
    error: optionalErrorMessage(report.error),
  };
  const message = `compaction ${report.outcome} (${report.trigger})`;
  if (report.outcome === 'failed') logger.warn(fields, message);
  else logger.info(fields, message);
}
