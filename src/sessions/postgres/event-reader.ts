/**
 * The PostgreSQL store's read path: rows as events (a corrupt one thrown or left out, as
 * `onCorruptEvent` says), the view's header + checkpoint + tail, and the checkpoint rule with
 * its skips (docs/architecture.md, Storage).
 */
import type { PoolClient } from 'pg';
import type { ViewWarning } from '../../compaction/view.js';
import type { Event, Session, SessionKey } from '../../events/types.js';
import { SessionStoreError } from '../errors.js';
import { mergeState } from '../store-helpers.js';
import { skippedCheckpointWarning } from '../stored-row-rules.js';
import type { PostgresConnection } from './connection.js';
import { keyParams } from './key-and-errors.js';
import type { PostgresSessionServiceOptions } from './options.js';
import type { Queries } from './queries.js';
import { checkpointRowProblem, type EventRow, rowToEvent } from './rows.js';

export interface ViewRow extends EventRow {
  part: number;
}

interface Header {
  state: Record<string, unknown>;
  app: Record<string, unknown>;
  user: Record<string, unknown>;
  updatedAt: number;
  createdAt?: number;
}

/** The session's identity in the view cache: its creation time, from a view's header row. */
export function headerStamp(row: ViewRow): number {
  return Number((row.event as Header | undefined)?.createdAt);
}

export class PostgresEventReader {
  constructor(
    private readonly connection: PostgresConnection,
    private readonly queries: Queries,
    private readonly options: Pick<PostgresSessionServiceOptions, 'onCorruptEvent' | 'logger'>,
  ) {}

  /**
   * Header + checkpoint + tail. A checkpoint that cannot be one (stored-row-rules.ts) is passed
   * over with a warning; a corrupt one too unless `onCorruptEvent` throws.
   */
  async readViewRows(
    key: SessionKey,
    signal: AbortSignal | undefined,
    operation: string,
    warnings: ViewWarning[] = [],
  ): Promise<ViewRow[]> {
    const skipped: number[] = [];
    for (;;) {
      const rows = await this.connection.query<ViewRow>(
        key,
        signal,
        this.queries.view,
        [...keyParams(key), `{${skipped.join(',')}}`],
        { operation },
      );
      const checkpoint = rows[1]?.part === 1 ? rows[1] : undefined;
      const problem = checkpoint && this.checkpointProblem(checkpoint, key, Number(rows[0]?.seq));
      if (!checkpoint || !problem) return rows;
      warnings.push(
        skippedCheckpointWarning({ key, seq: Number(checkpoint.seq), reason: problem }),
      );
      skipped.push(Number(checkpoint.seq));
    }
  }

  /** The checkpoint the view would use now (same rule, same skips), inside a transaction. */
  async currentCheckpointSeq(client: PoolClient, key: SessionKey): Promise<number | null> {
    const skipped: number[] = [];
    for (;;) {
      const result = await client.query<EventRow>(this.queries.checkpointSeq, [
        ...keyParams(key),
        `{${skipped.join(',')}}`,
      ]);
      const row = result.rows[0];
      if (!row) return null;
      if (!this.checkpointProblem(row, key, Number.MAX_SAFE_INTEGER)) return Number(row.seq);
      skipped.push(Number(row.seq));
    }
  }

  /** Rows as events; a corrupt row throws or is left out, as `onCorruptEvent` says. */
  parseRows(rows: EventRow[], key: SessionKey): Event[] {
    const events: Event[] = [];
    const mode = this.options.onCorruptEvent ?? 'throw';
    for (const row of rows) {
      try {
        events.push(rowToEvent(row, key));
      } catch (error) {
        if (mode === 'throw' || !SessionStoreError.isInstance(error)) throw error;
        if (mode === 'skip') {
          this.options.logger?.warn({ ...key, seq: error.seq }, `${error.message}; skipped`);
        } else {
          mode(error);
        }
      }
    }
    return events;
  }

  /** The session's state (session, user, app merged) and update time from the header row. */
  readHeader(row: ViewRow | undefined): Pick<Session, 'state' | 'lastUpdateTime'> {
    const header = row?.event as Header | undefined;
    if (!header) throw new SessionStoreError({ message: 'Session header missing' });
    return {
      state: mergeState({ session: header.state, app: header.app, user: header.user }),
      lastUpdateTime: header.updatedAt,
    };
  }

  /** Why a checkpoint candidate cannot be used (a corrupt row throws in `throw` mode). */
  private checkpointProblem(row: EventRow, key: SessionKey, lastSeq: number): string | undefined {
    const event = this.parseRows([row], key)[0];
    const problem = event ? checkpointRowProblem(row, event, lastSeq) : 'its row is corrupt';
    if (problem)
      this.options.logger?.warn({ ...key, seq: Number(row.seq) }, `checkpoint skipped: ${problem}`);
    return problem;
  }
}
