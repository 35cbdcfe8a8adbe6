/**
 * `SqliteSessionService.importSession`: a whole session in one `BEGIN IMMEDIATE` transaction,
 * so no reader sees it before `COMMIT` and a failure, an abort or a killed process leaves
 * nothing (SQLite drops an uncommitted transaction when the file is next opened).
 *
 * The transaction stays open while the events arrive (they may be an async stream), so it runs
 * on a connection of its own: the service's connection may serve other calls meanwhile, and
 * they must not join it. An in-memory database (`:memory:`) has no second connection, nor has a
 * store opened `exclusive`: there the events are read and checked first and written in one
 * synchronous transaction.
 *
 * The import holds the file's write lock until it commits: other writers wait (busy timeout).
 * Taking that lock waits as the store's writes do, without blocking the event loop.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { Event, Session, SessionKey } from '../../events/types.js';
import { SessionAlreadyExistsError, SessionStoreError } from '../errors.js';
import { prepareImport, storedEventBatches } from '../import-events.js';
import type { ImportSessionOptions, ImportSessionResult } from '../session-service.js';
import { mergeState, type StateDeltaParts } from '../store-helpers.js';
import { runWhileBusy } from './busy-wait.js';
import type { SqliteDriver } from './load-driver.js';
import { indexPendingSearchEvents } from './search-index.js';
import { insertEventRow } from './session-rows.js';
import { toSqliteStoreError } from './sqlite-errors.js';
import { prepareStatements, type SqliteStatements } from './statements.js';

export interface SqliteImportOptions {
  /** The service's connection (open and migrated). */
  database: BetterSqlite3.Database;
  busyTimeoutMs: number;
  synchronous: 'normal' | 'full';
  /** The service holds the file's lock (`exclusive`): no second connection can open it. */
  exclusive?: boolean;
  import: ImportSessionOptions;
}

interface Writer {
  database: BetterSqlite3.Database;
  statements: SqliteStatements;
  finish: BetterSqlite3.Statement;
}

function now(): number {
  return Date.now() / 1000;
}

export async function importSqliteSession(
  options: SqliteImportOptions,
): Promise<ImportSessionResult> {
  const { signal } = options.import;
  signal?.throwIfAborted();
  const { key, state } = prepareImport(options.import);
  // Fails fast on a taken id; checked again under the write lock.
  const taken = options.database
    .prepare('SELECT 1 FROM sessions WHERE app_name = ? AND user_id = ? AND id = ?')
    .get(key.appName, key.userId, key.sessionId);
  if (taken) throw new SessionAlreadyExistsError(key);
  if (options.database.memory || options.exclusive)
    return importInOneStep(options.database, key, state, options);
  // The same driver that opened the service's connection opens the import's.
  const Driver = options.database.constructor as SqliteDriver;
  const database = new Driver(options.database.name, { fileMustExist: true });
  try {
    database.pragma('busy_timeout = 0');
    database.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    const writer = prepareWriter(database);
    await runWhileBusy(() => database.exec('BEGIN IMMEDIATE'), {
      operation: 'importSession',
      key,
      waitMs: options.busyTimeoutMs,
      signal,
    });
    try {
      begin(writer, key);
      let count = 0;
      for await (const batch of storedEventBatches({
        events: options.import.events,
        state,
        signal,
      })) {
        insertBatch(writer, key, batch);
        count += batch.length;
      }
      const session = finish(writer, key, state, count);
      database.exec('COMMIT');
      return { session, eventCount: count };
    } catch (error) {
      if (database.inTransaction) database.exec('ROLLBACK');
      throw wrap(error, key);
    }
  } finally {
    database.close();
  }
}

/** `:memory:`: the events are checked first, then written without yielding (see the file comment). */
async function importInOneStep(
  database: BetterSqlite3.Database,
  key: SessionKey,
  state: StateDeltaParts,
  options: SqliteImportOptions,
): Promise<ImportSessionResult> {
  const batches: Event[][] = [];
  for await (const batch of storedEventBatches({
    events: options.import.events,
    state,
    signal: options.import.signal,
  })) {
    batches.push(batch);
  }
  const writer = prepareWriter(database);
  try {
    return database
      .transaction(() => {
        begin(writer, key);
        let count = 0;
        for (const batch of batches) {
          insertBatch(writer, key, batch);
          count += batch.length;
        }
        return { session: finish(writer, key, state, count), eventCount: count };
      })
      .immediate();
  } catch (error) {
    throw wrap(error, key);
  }
}

function prepareWriter(database: BetterSqlite3.Database): Writer {
  return {
    database,
    statements: prepareStatements(database),
    finish: database.prepare(
      'UPDATE sessions SET state = ?, last_seq = ?, event_count = ?, updated_at = ? WHERE app_name = ? AND user_id = ? AND id = ?',
    ),
  };
}

/** Claims the id (the row stays invisible until commit). */
function begin(writer: Writer, key: SessionKey): void {
  if (writer.statements.selectSession.get(key.appName, key.userId, key.sessionId)) {
    throw new SessionAlreadyExistsError(key);
  }
  const time = now();
  writer.statements.insertSession.run(key.appName, key.userId, key.sessionId, '{}', time, time);
}

function insertBatch(writer: Writer, key: SessionKey, batch: Event[]): void {
  for (const event of batch) {
    const { seq: _seq, ...body } = event;
    insertEventRow({ statements: writer.statements, key, event, json: JSON.stringify(body) });
  }
}

/**
 * Session state and counters, shared state merged as appends merge it; the session as read. The
 * events are indexed for search in the import's transaction: searchable once it commits.
 */
function finish(writer: Writer, key: SessionKey, state: StateDeltaParts, count: number): Session {
  const { statements } = writer;
  indexPendingSearchEvents(writer.database);
  const time = now();
  writer.finish.run(
    JSON.stringify(state.session),
    count,
    count,
    time,
    key.appName,
    key.userId,
    key.sessionId,
  );
  const app = {
    ...readState(statements.selectAppState.get(key.appName)?.state, key, 'app'),
    ...state.app,
  };
  const user = {
    ...readState(statements.selectUserState.get(key.appName, key.userId)?.state, key, 'user'),
    ...state.user,
  };
  if (Object.keys(state.app).length > 0) {
    statements.upsertAppState.run(key.appName, JSON.stringify(app), time);
  }
  if (Object.keys(state.user).length > 0) {
    statements.upsertUserState.run(key.appName, key.userId, JSON.stringify(user), time);
  }
  return {
    ...key,
    state: mergeState({ session: state.session, app, user }),
    lastUpdateTime: time,
    events: [],
  };
}

function readState(
  text: string | undefined,
  key: SessionKey,
  scope: string,
): Record<string, unknown> {
  if (text === undefined) return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      return parsed as Record<string, unknown>;
    }
  } catch {
    // reported below
  }
  throw new SessionStoreError({
    message: `Corrupted ${scope} state (app '${key.appName}', user '${key.userId}'): not a JSON object`,
    sessionId: key.sessionId,
  });
}

function wrap(error: unknown, key: SessionKey): unknown {
  return toSqliteStoreError(error, { operation: 'importSession', key, creating: true });
}
