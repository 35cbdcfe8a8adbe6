/**
 * The SQL of the PostgreSQL store, built once per schema. Every statement is scoped by app and
 * user ($1, $2): no session is reachable from another user.
 */
import { createHash } from 'node:crypto';
import { minuteOf } from './append-checks-migration.js';
import { quoteIdentifier } from './migrations.js';
import { LISTED } from './session-lookup-migration.js';

/**
 * A hot statement: with a `name`, pg parses it once per connection (a named prepared statement)
 * and later runs send only Bind/Execute, so the server skips parse and plan. The name is a hash
 * of the text (two schemas sharing a pool get two names), short enough for PostgreSQL's 63-byte
 * identifiers.
 */
export interface Statement {
  readonly name?: string;
  readonly text: string;
}

/** The statement, named unless `prepared` is off (a transaction-mode pooler without support). */
export function statement(text: string, prepared: boolean): Statement {
  if (!prepared) return { text };
  return { name: `orrery_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`, text };
}

/** `{ name, text, values }` for `client.query`: a fresh object each call (pg keeps `values`). */
export function withValues(query: Statement, values: unknown[]) {
  return { name: query.name, text: query.text, values };
}

/** Columns an event row is read with (see `EventRow`). */
const eventColumns = 'seq, is_compaction, compaction_start_seq, compaction_end_seq, event';

/**
 * The range part of `isValidCompaction` (compaction/view.ts: `1 <= startSeq <= endSeq < seq`) as
 * SQL; matches the partial index. `ORDER BY compaction_end_seq DESC, seq DESC` below is
 * `isBetterCheckpoint`. Change them together (and the index in migrations.ts).
 */
const validCompaction =
  'is_compaction AND compaction_start_seq >= 1 AND compaction_start_seq <= compaction_end_seq AND compaction_end_seq < seq';

export interface Queries {
  createSession: string;
  upsertAppState: string;
  upsertUserState: string;
  /** The session header: state (session, app, user), last seq, update time. */
  header: string;
  /** Header (part 0), checkpoint (part 1) and tail (part 2) in one statement, one snapshot. */
  view: Statement;
  /** Header (part 0) and every event (part 2) in one statement. */
  full: string;
  /** Header (part 0) and every row after $4 (part 2): a turn's read on a cached view. */
  viewSince: Statement;
  /**
   * The lease taken (part -1 when taken: $5 holder, $6 ttl ms) and, when taken, `viewSince`'s
   * header and rows ($4; NULL: none) in the statement's snapshot, plus part 3: the session's
   * `last_seq` and creation time read after the take (a locking read sees the latest commit),
   * which tell whether a writer committed between the snapshot and the take.
   */
  leaseAndViewSince: Statement;
  /**
   * `leaseAndViewSince` that also appends an event when the lease is taken (lease-and-append.ts):
   * $7.. are `appendEvent`'s $4.. ($18: the commit mode, in `...WithCommitMode`). Part 3 is the
   * append's own RETURNING (the appended seq, the creation time), absent when nothing was
   * appended; the header and rows are the statement's snapshot, before the append.
   */
  leaseAndAppend: Statement;
  leaseAndAppendWithCommitMode: Statement;
  listEventsAsc: string;
  listEventsDesc: string;
  sessionExists: string;
  lockSession: string;
  /** The checkpoint candidate's row ($4: seqs passed over). */
  checkpointSeq: string;
  /** Assigns the next seq (row-locks the session) and inserts the event, in one statement. */
  appendEvent: Statement;
  /** `appendEvent` that first sets `synchronous_commit` ($15) for its own transaction only. */
  appendEventWithCommitMode: Statement;
  /**
   * `appendEvent` that first releases the lease of holder $15 (append-and-release.ts; $16: the
   * commit mode, in `...WithCommitMode`); its row also says whether it released (`released`).
   */
  appendAndRelease: Statement;
  appendAndReleaseWithCommitMode: Statement;
  /** Sets `synchronous_commit` ($1) until the end of the open transaction. */
  setCommitMode: string;
  listSessions: string;
  deleteSession: string;
}

/** `prepared` (default true): the hot statements are named prepared statements. */
export function buildQueries(schemaName: string, prepared = true): Queries {
  const schema = quoteIdentifier(schemaName);
  const leases = `${schema}.orrery_session_leases`;
  const sessions = `${schema}.orrery_sessions`;
  const events = `${schema}.orrery_events`;
  const appState = `${schema}.orrery_app_state`;
  const userState = `${schema}.orrery_user_state`;
  const sessionKey = 'app_name = $1 AND user_id = $2 AND session_id = $3';

  // Part 0 carries the session header in the `event` column so one statement reads everything.
  const header = `SELECT 0 AS part, s.last_seq AS seq, false AS is_compaction,
      NULL::bigint AS compaction_start_seq, NULL::bigint AS compaction_end_seq,
      json_build_object('state', s.state, 'app', coalesce(a.state, '{}'::jsonb),
        'user', coalesce(u.state, '{}'::jsonb), 'updatedAt', s.updated_at,
        'createdAt', s.created_at) AS event
    FROM ${sessions} s
    LEFT JOIN ${appState} a ON a.app_name = s.app_name
    LEFT JOIN ${userState} u ON u.app_name = s.app_name AND u.user_id = s.user_id
    WHERE s.app_name = $1 AND s.user_id = $2 AND s.id = $3`;

  // A row past the session's last seq is no candidate either; rows whose JSON disagrees are
  // passed over by the caller, which re-runs the statement with their seqs in $4.
  const checkpoint = `SELECT ${eventColumns} FROM ${events}
    WHERE ${sessionKey} AND ${validCompaction} AND NOT (seq = ANY($4::bigint[]))
      AND seq <= (SELECT last_seq FROM ${sessions} WHERE app_name = $1 AND user_id = $2 AND id = $3)
    ORDER BY compaction_end_seq DESC, seq DESC LIMIT 1`;

  // The seq is allocated by the UPDATE's row lock, the event inserted from its RETURNING.
  // $14 is the search text (search-column.ts; NULL for a compaction: a NULL tsvector).
  // `first` is the number of the first parameter ($4 in `appendEvent`).
  const appendParts = (first: number, guard: string) => {
    const p = (offset: number) => `$${first + offset}`;
    return {
      update: `UPDATE ${sessions} SET last_seq = last_seq + 1, event_count = event_count + 1,
          updated_at = greatest(updated_at, ${p(0)}),
          updated_minute = ${minuteOf(`greatest(updated_at, ${p(0)})`)}, state = state || ${p(1)}::jsonb
        WHERE app_name = $1 AND user_id = $2 AND id = $3${guard}
        RETURNING last_seq, created_at`,
      insert: `INSERT INTO ${events} (app_name, user_id, session_id, seq, event_id, invocation_id,
          author, timestamp, is_compaction, compaction_start_seq, compaction_end_seq, event, search)
        SELECT $1, $2, $3, s.last_seq, ${[2, 3, 4, 5, 6, 7, 8].map(p).join(', ')}, ${p(9)}::json,
          to_tsvector('simple'::regconfig, ${p(10)}::text) FROM s`,
    };
  };
  const appendEvent = (commitMode: string, guard: string) => {
    const parts = appendParts(4, guard);
    return `WITH ${commitMode}s AS (${parts.update})
      ${parts.insert}
      RETURNING seq, (SELECT created_at FROM s) AS created_at`;
  };

  // The lease released as lease.ts releases it, then the append, in one transaction: the
  // guard makes the release run first, so the lease row is locked before the session row, the
  // order of the take's statements (the other order could deadlock with a take).
  const appendAndRelease = (commitMode: string, guard: string) => {
    const parts = appendParts(4, ` AND (SELECT count(*) FROM released) >= 0${guard}`);
    return `WITH ${commitMode}released AS (UPDATE ${leases} SET holder = '', expires_at = '-infinity'
        WHERE ${sessionKey} AND holder = $15 RETURNING 1),
      s AS (${parts.update})
      ${parts.insert}
      RETURNING seq, (SELECT created_at FROM s) AS created_at,
        (SELECT count(*) FROM released) AS released`;
  };

  const rowsSince = (guard: string) => `SELECT 2, ${eventColumns} FROM ${events}
        WHERE ${sessionKey} AND seq > $4${guard}
          AND seq <= (SELECT last_seq FROM ${sessions}
            WHERE app_name = $1 AND user_id = $2 AND id = $3)`;
  const viewSince = `${header}
      UNION ALL ${rowsSince('')}
      ORDER BY part, seq`;
  const taken = ' AND EXISTS (SELECT 1 FROM taken)';
  // The lease take of both statements below: a free or expired lease row becomes this holder's.
  const takeLease = `taken AS (
        INSERT INTO ${leases} AS lease (app_name, user_id, session_id, holder, expires_at)
        VALUES ($1, $2, $3, $5, clock_timestamp() + $6::integer * interval '1 millisecond')
        ON CONFLICT (app_name, user_id, session_id) DO UPDATE
          SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
          WHERE lease.expires_at <= clock_timestamp()
        RETURNING holder)`;
  // Their rows: -1 when taken, 3 the session row's latest last_seq and creation time (read from
  // `latest`), then the header and the event rows since $4, both only when taken.
  const takenRows = (
    latest: string,
  ) => `SELECT -1 AS part, NULL::bigint AS seq, false AS is_compaction,
        NULL::bigint AS compaction_start_seq, NULL::bigint AS compaction_end_seq,
        NULL::json AS event FROM taken
      UNION ALL SELECT 3, last_seq, false, NULL, NULL, json_build_object('createdAt', created_at)
        FROM ${latest}
      UNION ALL ${header}${taken}
      UNION ALL ${rowsSince(taken)}
      ORDER BY part, seq`;
  // The CTEs share the statement's snapshot, so the header and rows may predate a writer
  // whose commit the take waited for (a holder's release); part 3 is read by a locking read
  // after the take (\`EXISTS ... taken\` runs the insert first), which returns the row's latest
  // version: the caller compares its last_seq and creation time with the header's.
  const leaseAndViewSince = `WITH ${takeLease},
      latest AS (SELECT s.last_seq, s.created_at FROM ${sessions} s
        WHERE s.app_name = $1 AND s.user_id = $2 AND s.id = $3${taken}
        FOR SHARE)
      ${takenRows('latest')}`;
  // The take, then (only when taken: the UPDATE's guard) the append, in one statement and one
  // transaction: a failed append leaves no lease, a lease not taken no event. The UPDATE waits
  // for a writer holding the session row and returns the row's latest version, so part 3 tells
  // whether the snapshot's header and rows are the session just before this append. The
  // snapshot does not see the appended row (one statement, one snapshot).
  const leaseAndAppend = (commitMode: string, guard: string) => {
    const parts = appendParts(7, `${taken}${guard}`);
    return `WITH ${takeLease},
      ${commitMode}s AS (${parts.update}),
      appended AS (${parts.insert} RETURNING seq)
      ${takenRows('s')}`;
  };
  const commitModeCte = (parameter: number) =>
    `commit_mode AS (SELECT set_config('synchronous_commit', $${parameter}, true) AS mode),
      `;
  const commitModeGuard = ' AND (SELECT mode FROM commit_mode) IS NOT NULL';

  return {
    createSession: `INSERT INTO ${sessions}
        (app_name, user_id, id, state, created_at, updated_at, updated_minute)
      VALUES ($1, $2, $3, $4::jsonb, $5, $5, ${minuteOf('$5')}) ON CONFLICT DO NOTHING RETURNING id`,
    upsertAppState: `INSERT INTO ${appState} AS t (app_name, state, updated_at)
      VALUES ($1, $2::jsonb, $3)
      ON CONFLICT (app_name) DO UPDATE SET state = t.state || excluded.state,
        updated_at = excluded.updated_at`,
    upsertUserState: `INSERT INTO ${userState} AS t (app_name, user_id, state, updated_at)
      VALUES ($1, $2, $3::jsonb, $4)
      ON CONFLICT (app_name, user_id) DO UPDATE SET state = t.state || excluded.state,
        updated_at = excluded.updated_at`,
    header,
    // The tail is a closed seq range (checkpoint end, last seq]: with both bounds the planner
    // always takes the primary-key range scan, whatever the statistics say about one bound.
    view: statement(
      `WITH cp AS (${checkpoint})
      ${header}
      UNION ALL SELECT 1, ${eventColumns} FROM cp
      UNION ALL SELECT 2, ${eventColumns} FROM ${events}
        WHERE ${sessionKey} AND NOT is_compaction
          AND seq > coalesce((SELECT compaction_end_seq FROM cp), 0)
          AND seq <= (SELECT last_seq FROM ${sessions}
            WHERE app_name = $1 AND user_id = $2 AND id = $3)
      ORDER BY part, seq`,
      prepared,
    ),
    full: `${header}
      UNION ALL SELECT 2, ${eventColumns} FROM ${events} WHERE ${sessionKey}
      ORDER BY part, seq`,
    // The header and every row (compactions too) after a view the store already holds
    // (view-cache.ts): one round trip that reads only what was appended since.
    viewSince: statement(viewSince, prepared),
    leaseAndViewSince: statement(leaseAndViewSince, prepared),
    leaseAndAppend: statement(leaseAndAppend('', ''), prepared),
    leaseAndAppendWithCommitMode: statement(
      leaseAndAppend(commitModeCte(18), commitModeGuard),
      prepared,
    ),
    listEventsAsc: `SELECT ${eventColumns} FROM ${events}
      WHERE ${sessionKey} AND seq > $4 AND seq < $5 ORDER BY seq ASC LIMIT $6`,
    listEventsDesc: `SELECT ${eventColumns} FROM ${events}
      WHERE ${sessionKey} AND seq > $4 AND seq < $5 ORDER BY seq DESC LIMIT $6`,
    sessionExists: `SELECT 1 FROM ${sessions} WHERE app_name = $1 AND user_id = $2 AND id = $3`,
    lockSession: `SELECT last_seq FROM ${sessions}
      WHERE app_name = $1 AND user_id = $2 AND id = $3 FOR UPDATE`,
    checkpointSeq: `SELECT ${eventColumns} FROM (${checkpoint}) c`,
    appendEvent: statement(appendEvent('', ''), prepared),
    // set_config(..., true) lasts until this statement's implicit transaction commits; the
    // UPDATE references it so the (volatile, never inlined) CTE runs before the commit.
    appendEventWithCommitMode: statement(appendEvent(commitModeCte(15), commitModeGuard), prepared),
    appendAndRelease: statement(appendAndRelease('', ''), prepared),
    appendAndReleaseWithCommitMode: statement(
      appendAndRelease(commitModeCte(16), commitModeGuard),
      prepared,
    ),
    setCommitMode: `SELECT set_config('synchronous_commit', $1, true)`,
    listSessions: `SELECT id, updated_at, event_count FROM ${sessions}
      WHERE app_name = $1 AND user_id = $2 AND ${LISTED}
      ORDER BY updated_minute DESC, updated_at DESC, id`,
    // A released lease keeps its row (lease.ts); it goes with its session. A held or unexpired
    // one stays: its holder still releases it.
    deleteSession: `WITH freed AS (DELETE FROM ${leases}
        WHERE ${sessionKey} AND expires_at <= clock_timestamp())
      DELETE FROM ${sessions} WHERE app_name = $1 AND user_id = $2 AND id = $3`,
  };
}
