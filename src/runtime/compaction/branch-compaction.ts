/**
 * A branch's summary (docs/workflows.md): stored on the branch as `actions.branchCompaction`
 * with an ordinary append, so the store never takes it for the trunk's checkpoint. Conditional
 * in the runtime: the branch's checkpoint is read again first (one branch runs one agent at a
 * time and the session lease keeps other processes out, so nothing else writes a summary of
 * this branch in between). Returned as the compaction it is (`actions.compaction` set).
 */
import type { CompactionEvent, NewEvent, SessionKey } from '../../events/types.js';
import { CompactionConflictError } from '../../sessions/errors.js';
import type { SessionService } from '../../sessions/session-service.js';
import { loadActiveView } from '../view/active-view.js';

export async function appendBranchCompaction(options: {
  sessionService: SessionService;
  key: SessionKey;
  event: NewEvent;
  branch: string;
  expectedCheckpointSeq: number | null;
  signal: AbortSignal | undefined;
}): Promise<CompactionEvent> {
  const { sessionService, key, event, branch, signal } = options;
  const current = await loadActiveView({ sessionService, ...key, scope: { branch }, signal });
  const currentSeq = current.checkpoint?.seq ?? null;
  if (currentSeq !== options.expectedCheckpointSeq) {
    throw new CompactionConflictError({
      sessionId: key.sessionId,
      expectedCheckpointSeq: options.expectedCheckpointSeq,
      actualCheckpointSeq: currentSeq,
    });
  }
  const { compaction, ...actions } = event.actions;
  if (!compaction) throw new Error('appendBranchCompaction needs a compaction event');
  const appended = await sessionService.appendEvent({
    ...key,
    event: { ...event, branch, actions: { ...actions, branchCompaction: compaction } },
    signal,
  });
  return { ...appended, actions: { ...appended.actions, compaction } };
}
