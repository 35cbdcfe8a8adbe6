/**
 * `PostgresSessionService.importSession`: the session row and every event in one transaction,
 * run by the service's guarded connection, so nothing of it is visible before `COMMIT`, and a
 * failure, an abort (the connection is closed) or a killed process (the server sees the
 * connection drop) rolls all of it back. Events go in batches, one multi-row insert each: the
 * batch's columns as arrays, expanded by `unnest` (one statement, ten parameters, any size).
 */
import type { PoolClient } from 'pg';
import type { Session, SessionKey } from '../../events/types.js';
import { SessionAlreadyExistsError } from '../errors.js';
import { storedEventBatches } from '../import-events.js';
import type { ImportSessionOptions, ImportSessionResult } from '../session-service.js';
import { mergeState, type StateDeltaParts, splitState } from '../store-helpers.js';
import { minuteOf } from './append-checks-migration.js';
import { upsertScopedState } from './event-writer.js';
import { assertJsonbStorable } from './jsonb-state.js';
import { keyParams } from './key-and-errors.js';
import { quoteIdentifier } from './migrations.js';
import type { Queries } from './queries.js';
import { postgresSearchText } from './search-column.js';

export interface PostgresImportOptions {
  /** A client inside `BEGIN`; the caller commits or rolls back. */
  client: PoolClient;
  schema: string;
  queries: Queries;
  key: SessionKey;
  /** The initial state, split by scope (`prepareImport`). */
  state: StateDeltaParts;
  import: ImportSessionOptions;
}

interface Header {
  state: Record<string, unknown>;
  app: Record<string, unknown>;
  user: Record<string, unknown>;
  updatedAt: number;
}

export function importStatements(schemaName: string): { insertEvents: string; finish: string } {
  const schema = quoteIdentifier(schemaName);
  return {
    insertEvents: `INSERT INTO ${schema}.orrery_events (app_name, user_id, session_id, seq, event_id,
        invocation_id, author, timestamp, is_compaction, compaction_start_seq, compaction_end_seq,
        event, search)
      SELECT $1, $2, $3, seq, event_id, invocation_id, author, timestamp, is_compaction,
        start_seq, end_seq, event::json, to_tsvector('simple'::regconfig, search)
      FROM unnest($4::bigint[], $5::text[], $6::text[], $7::text[], $8::float8[], $9::boolean[],
        $10::bigint[], $11::bigint[], $12::text[], $13::text[])
        AS batch (seq, event_id, invocation_id, author, timestamp, is_compaction, start_seq,
          end_seq, event, search)`,
    finish: `UPDATE ${schema}.orrery_sessions SET state = $4::jsonb, last_seq = $5,
        event_count = $5, updated_at = $6, updated_minute = ${minuteOf('$6')}
      WHERE app_name = $1 AND user_id = $2 AND id = $3`,
  };
}

export async function importPostgresSession(
  options: PostgresImportOptions,
): Promise<ImportSessionResult> {
  const { client, queries, key, state } = options;
  const statements = importStatements(options.schema);
  assertJsonbStorable(state, 'state');
  const created = await client.query(queries.createSession, [...keyParams(key), '{}', now()]);
  if (created.rowCount === 0) throw new SessionAlreadyExistsError(key);
  let count = 0;
  for await (const batch of storedEventBatches({
    events: options.import.events,
    state,
    signal: options.import.signal,
    // jsonb state cannot hold NUL: refused per event, as appendEvent refuses it.
    checkEvent: (event, path) =>
      assertJsonbStorable(splitState(event.actions.stateDelta), `${path}.actions.stateDelta`),
  })) {
    const columns = {
      seq: [] as number[],
      id: [] as string[],
      invocationId: [] as string[],
      author: [] as string[],
      timestamp: [] as number[],
      isCompaction: [] as boolean[],
      startSeq: [] as Array<number | null>,
      endSeq: [] as Array<number | null>,
      json: [] as string[],
      search: [] as Array<string | null>,
    };
    for (const event of batch) {
      const { seq, ...body } = event;
      const compaction = event.actions.compaction;
      columns.seq.push(seq);
      columns.id.push(event.id);
      columns.invocationId.push(event.invocationId);
      columns.author.push(event.author);
      columns.timestamp.push(event.timestamp);
      columns.isCompaction.push(compaction !== undefined);
      columns.startSeq.push(compaction?.startSeq ?? null);
      columns.endSeq.push(compaction?.endSeq ?? null);
      const json = JSON.stringify(body);
      columns.json.push(json);
      columns.search.push(postgresSearchText(body, json));
    }
    await client.query(statements.insertEvents, [
      ...keyParams(key),
      columns.seq,
      columns.id,
      columns.invocationId,
      columns.author,
      columns.timestamp,
      columns.isCompaction,
      columns.startSeq,
      columns.endSeq,
      columns.json,
      columns.search,
    ]);
    count += batch.length;
  }
  const time = now();
  await client.query(statements.finish, [
    ...keyParams(key),
    JSON.stringify(state.session),
    count,
    time,
  ]);
  // Session row first, then app, then user: the lock order of every writer (no deadlock).
  await upsertScopedState({ client, queries, key, scoped: state, now: time });
  const header = (await client.query<{ event: Header }>(queries.header, keyParams(key))).rows[0]
    ?.event as Header;
  const session: Session = {
    ...key,
    state: mergeState({ session: header.state, app: header.app, user: header.user }),
    lastUpdateTime: header.updatedAt,
    events: [],
  };
  return { session, eventCount: count };
}

function now(): number {
  return Date.now() / 1000;
}
