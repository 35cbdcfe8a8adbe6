/**
 * Logs each view warning once (docs/architecture.md#the-view): the same orphan shows in every
 * request until it is compacted, and one line is enough.
 */
import type { Logger } from 'pino';
import type { ViewWarning } from '../../compaction/view.js';
import type { SessionKey } from '../../events/types.js';

/** View warnings remembered as logged (the set starts over past this). */
const LOGGED_WARNINGS_LIMIT = 10_000;

export class ViewWarningLog {
  private readonly logged = new Set<string>();
  private readonly logger: Logger;
  private readonly appName: string;

  constructor(options: { logger: Logger; appName: string }) {
    this.logger = options.logger;
    this.appName = options.appName;
  }

  log(key: SessionKey, warnings: ViewWarning[]): void {
    for (const warning of warnings) {
      const id = JSON.stringify([key.sessionId, warning.kind, warning.seq, warning.callId]);
      if (this.logged.has(id)) continue;
      if (this.logged.size >= LOGGED_WARNINGS_LIMIT) this.logged.clear();
      this.logged.add(id);
      this.logger.warn(
        {
          msgType: 'view_warning',
          appName: this.appName,
          userId: key.userId,
          sessionId: key.sessionId,
          kind: warning.kind,
          seq: warning.seq,
          callId: warning.callId,
        },
        warning.message,
      );
    }
  }
}
