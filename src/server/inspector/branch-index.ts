/**
 * The workflow branches of recently inspected sessions (docs/workflows.md#branches), read
 * incrementally as `CompactionIndex` reads compactions: per stored event only its `seq`, its
 * branch and what decides who sees it, so a branch's filtered timeline is counted and paged
 * without reading the whole history again. Stored events never change
 * (docs/architecture.md#storage); a session deleted and created again is read anew.
 */
import {
  branchCompactionOf,
  branchOf,
  isBranchResult,
  isOnBranchPath,
} from '../../compaction/branch-view.js';
import type { ViewScope } from '../../compaction/types.js';
import type { Event, SessionKey } from '../../events/types.js';
import { sessionKeyString } from '../../runtime/turn/runner-telemetry.js';
import type { SessionService } from '../../sessions/session-service.js';
import type { BranchRow, CompactionSpan } from './api-types.js';
import { rememberRecent } from './remember-recent.js';
import { readHistory, stillKnown } from './session-history.js';
import { toCompactionSpan } from './timeline-event.js';

/** Sessions whose branch records are remembered. */
const CACHED_SESSIONS = 64;

/** What the branch rule needs of one stored event. */
export interface BranchRecord {
  seq: number;
  /** `undefined`: the trunk. */
  branch?: string;
  /** `trunk-summary`: `actions.compaction`; `branch-summary`: `actions.branchCompaction`;
   * `result`: a model answer with text and no call (what the agents above a branch read). */
  role: 'trunk-summary' | 'branch-summary' | 'result' | 'other';
  /** Set on summaries. */
  span?: CompactionSpan;
}

export function toBranchRecord(event: Event): BranchRecord {
  const branch = branchOf(event);
  const base = { seq: event.seq, ...(branch !== undefined && { branch }) };
  if (event.actions?.compaction) {
    return { ...base, role: 'trunk-summary', span: toCompactionSpan(event) };
  }
  if (branchCompactionOf(event)) {
    return { ...base, role: 'branch-summary', span: toCompactionSpan(event) };
  }
  return { ...base, role: isBranchResult(event) ? 'result' : 'other' };
}

/**
 * Whether `scope`'s branch sees the event: `eventsOnBranch`'s rule (its own and its ancestors'
 * events, the trunk's summaries, the summaries on its path, its descendants' results).
 */
export function isRecordOnBranch(record: BranchRecord, scope: ViewScope): boolean {
  if (record.role === 'trunk-summary') return true;
  if (record.role === 'branch-summary') return isOnBranchPath(record.branch, scope.branch);
  if (isOnBranchPath(record.branch, scope.branch)) return true;
  return (
    record.branch !== undefined &&
    isOnBranchPath(scope.branch, record.branch) &&
    record.role === 'result'
  );
}

/** Per branch (the trunk first as `''`, then sorted): events stored on it and its summaries. */
export function branchRows(records: readonly BranchRecord[]): BranchRow[] {
  const rows = new Map<string, BranchRow>([['', { branch: '', events: 0, compactions: 0 }]]);
  for (const record of records) {
    const name = record.branch ?? '';
    const row = rows.get(name) ?? { branch: name, events: 0, compactions: 0 };
    row.events++;
    if (record.role === 'trunk-summary' || record.role === 'branch-summary') row.compactions++;
    rows.set(name, row);
  }
  return [...rows.values()].sort((left, right) =>
    left.branch < right.branch ? -1 : left.branch > right.branch ? 1 : 0,
  );
}

interface KnownRecords {
  scannedSeq: number;
  scannedId?: string;
  records: BranchRecord[];
}

export class BranchIndex {
  private readonly known = new Map<string, KnownRecords>();

  constructor(private readonly sessionService: SessionService) {}

  /** Every stored event's record, in `seq` order; reads only what was appended since. */
  async read(options: { key: SessionKey; signal?: AbortSignal }): Promise<BranchRecord[]> {
    const { key, signal } = options;
    const id = sessionKeyString(key);
    const known = await stillKnown({
      sessionService: this.sessionService,
      key,
      known: this.known.get(id),
      signal,
    });
    const next: KnownRecords = known
      ? { ...known, records: [...known.records] }
      : { scannedSeq: 0, records: [] };
    if (!known) {
      // The existence check (a missing session throws `SessionNotFoundError`: a 404).
      await this.sessionService.listEvents({ ...key, limit: 1, signal });
    }
    for await (const page of readHistory({
      sessionService: this.sessionService,
      key,
      afterSeq: next.scannedSeq,
      signal,
    })) {
      for (const event of page) {
        next.records.push(toBranchRecord(event));
        next.scannedSeq = event.seq;
        next.scannedId = event.id;
      }
    }
    rememberRecent(this.known, id, next, CACHED_SESSIONS);
    return next.records;
  }
}
