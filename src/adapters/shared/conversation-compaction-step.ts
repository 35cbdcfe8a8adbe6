/**
 * The guard's compaction for an adapter that keeps a ConversationLog (AI SDK, LangChain, the
 * gateway): one attempt that never throws into the host's call, the appended record noted in the
 * log's cursor, then the report (log line, span, `onCompaction`).
 */
import type { Logger } from 'pino';
import type { CompactionReport, Compactor } from '../../runtime/compaction/compactor.js';
import type { GuardCompactOptions } from '../../runtime/compaction/context-guard.js';
import { attemptCompaction, reportCompaction } from './adapter-compaction.js';
import type { AdapterTelemetry } from './adapter-telemetry.js';
import type { ConversationLog } from './conversation-log.js';
import { appendedRecord } from './view-change.js';

export async function compactLoggedConversation(options: {
  request: GuardCompactOptions;
  compactor: Compactor;
  log: ConversationLog;
  logger: Logger;
  telemetry: AdapterTelemetry;
  onCompaction?: (report: CompactionReport) => void;
}): Promise<CompactionReport> {
  const { key, ...rest } = options.request;
  const report = await attemptCompaction({
    sessionId: key.sessionId,
    trigger: rest.trigger,
    signal: rest.signal,
    attempt: () => options.compactor.compact({ ...key, ...rest }),
  });
  const appended = appendedRecord(report);
  if (appended) options.log.noteAppended(key, appended.seq);
  await reportCompaction({
    report,
    key,
    logger: options.logger,
    telemetry: options.telemetry,
    onCompaction: options.onCompaction,
  });
  return report;
}
