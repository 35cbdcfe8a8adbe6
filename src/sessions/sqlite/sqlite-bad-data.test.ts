import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidEventError } from '../../events/errors.js';
import { compactionEvent, userTextEvent } from '../../testing/event-builders.js';
import { SessionNotFoundError, SessionStoreError } from '../errors.js';
import { loadSqliteDriver } from './load-driver.js';
import { SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION } from './migrations.js';
import { SqliteSessionService } from './sqlite-session-service.js';

const key = { appName: 'app', userId: 'user', sessionId: 'session' };
let folder: string;
let path: string;
const services: SqliteSessionService[] = [];

function open(options: ConstructorParameters<typeof SqliteSessionService>[0] = {}) {
  const service = new SqliteSessionService({ path, ...options });
  services.push(service);
  return service;
}

async function seed(service: SqliteSessionService, count: number): Promise<void> {
  await service.createSession(key);
  for (let index = 1; index <= count; index++) {
    await service.appendEvent({ ...key, event: userTextEvent({ text: `m${index}` }) });
  }
}

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'orrery-sqlite-bad-'));
  path = join(folder, 'nested', 'orrery.db');
});

afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('SqliteSessionService storage', () => {
  it('creates the directory, uses WAL and records the schema version', async () => {
    const service = open();
    await seed(service, 1);
    const database = await service.getDatabase();
    expect(existsSync(path)).toBe(true);
    expect(database.pragma('journal_mode', { simple: true })).toBe('wal');
    const versions = database.prepare('SELECT version FROM schema_migrations').pluck().all();
    expect(versions).toEqual(SQLITE_MIGRATIONS.map((migration) => migration.version));
    expect(versions.at(-1)).toBe(SQLITE_SCHEMA_VERSION);
  });

  it('reopens an existing file without reapplying migrations', async () => {
    await seed(open(), 2);
    const again = open();
    expect((await again.loadView(key)).lastSeq).toBe(2);
    const database = await again.getDatabase();
    expect(database.prepare('SELECT COUNT(*) FROM schema_migrations').pluck().get()).toBe(
      SQLITE_MIGRATIONS.length,
    );
  });

  it('uses a database passed in and leaves it open on close', async () => {
    const database = new Database(':memory:');
    const service = new SqliteSessionService({ database });
    await seed(service, 1);
    await service.close();
    expect(database.open).toBe(true);
    expect(database.prepare('SELECT COUNT(*) FROM events').pluck().get()).toBe(1);
    database.close();
  });

  it('loads the view with one index probe and one range scan', async () => {
    const service = open();
    await seed(service, 3);
    const database = await service.getDatabase();
    const plan = (sql: string) =>
      (
        database.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('app', 'user', 'session') as {
          detail: string;
        }[]
      )
        .map((row) => row.detail)
        .join('\n');
    const checkpointPlan = plan(
      `SELECT seq, event FROM events WHERE app_name = ? AND user_id = ? AND session_id = ? AND is_compaction = 1 AND compaction_start_seq >= 1 AND compaction_start_seq <= compaction_end_seq AND compaction_end_seq < seq ORDER BY compaction_end_seq DESC, seq DESC LIMIT 1`,
    );
    expect(checkpointPlan).toContain('events_checkpoints');
    expect(checkpointPlan).not.toContain('TEMP B-TREE');
    const tailPlan = (
      database
        .prepare(
          'EXPLAIN QUERY PLAN SELECT seq, event FROM events WHERE app_name = ? AND user_id = ? AND session_id = ? AND seq > ? AND is_compaction = 0 ORDER BY seq',
        )
        .all('app', 'user', 'session', 0) as { detail: string }[]
    )
      .map((row) => row.detail)
      .join('\n');
    expect(tailPlan).toMatch(/SEARCH events USING INDEX sqlite_autoindex_events_1 \(.*seq>\?\)/);
    expect(tailPlan).not.toContain('TEMP B-TREE');
  });

  it('ignores compactions with malformed ranges already in storage', async () => {
    const service = open();
    await seed(service, 4);
    const good = await service.appendCompaction({
      ...key,
      event: compactionEvent({ startSeq: 1, endSeq: 2 }),
      expectedCheckpointSeq: null,
    });
    const database = await service.getDatabase();
    // Legacy rows written around the API: end beyond own seq, start after end.
    const insert = database.prepare(
      `INSERT INTO events (app_name, user_id, session_id, seq, id, invocation_id, author, timestamp, is_compaction,
         compaction_start_seq, compaction_end_seq, event) VALUES ('app', 'user', 'session', ?, ?, 'i', 'user', 1, 1, ?, ?, ?)`,
    );
    insert.run(6, 'bad-end', 1, 9, JSON.stringify(compactionEvent({ startSeq: 1, endSeq: 9 })));
    insert.run(7, 'bad-start', 4, 3, JSON.stringify(compactionEvent({ startSeq: 4, endSeq: 3 })));
    database.prepare("UPDATE sessions SET last_seq = 7 WHERE id = 'session'").run();
    const view = await service.loadView(key);
    expect(view.checkpoint?.seq).toBe(good.seq);
    expect(view.tail.map((event) => event.seq)).toEqual([3, 4]);
    await expect(
      service.appendCompaction({
        ...key,
        event: compactionEvent({ startSeq: 1, endSeq: 4 }),
        expectedCheckpointSeq: good.seq,
      }),
    ).resolves.toMatchObject({ seq: 8 });
  });
});

describe('SqliteSessionService bad data', () => {
  async function corrupt(
    service: SqliteSessionService,
    seq: number,
    json = '{"id": "broken", "act',
  ) {
    const database = await service.getDatabase();
    database
      .prepare("UPDATE events SET event = ? WHERE session_id = 'session' AND seq = ?")
      .run(json, seq);
  }

  it('names the session and seq of a corrupted row; the other rows stay readable', async () => {
    const service = open();
    await seed(service, 5);
    await corrupt(service, 3);
    for (const read of [
      () => service.loadView(key),
      () => service.getSession(key),
      () => service.getSession({ ...key, events: 'full' }),
      () => service.listEvents(key),
    ]) {
      const error = await read().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(SessionStoreError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ sessionId: 'session', seq: 3 });
      expect((error as Error).message).toContain("seq 3 in session 'session'");
    }
    const before = await service.listEvents({ ...key, beforeSeq: 3 });
    const after = await service.listEvents({ ...key, afterSeq: 3 });
    expect([...before.events, ...after.events].map((event) => event.seq)).toEqual([1, 2, 4, 5]);
    expect(after.events[0]?.content?.parts[0]?.text).toBe('m4');
  });

  it('skips a corrupted row and logs it in skip mode', async () => {
    const warnings: Record<string, unknown>[] = [];
    const service = open({
      onCorruptEvent: 'skip',
      logger: { warn: (fields) => warnings.push(fields) },
    });
    await seed(service, 4);
    await corrupt(service, 2, '[1, 2]');
    const full = await service.getSession({ ...key, events: 'full' });
    expect(full?.events.map((event) => event.seq)).toEqual([1, 3, 4]);
    expect(warnings[0]).toMatchObject({ sessionId: 'session', seq: 2 });
  });

  it('falls back to the next checkpoint when the best one is corrupted (skip mode)', async () => {
    const service = open({ onCorruptEvent: 'skip' });
    await seed(service, 4);
    const first = await service.appendCompaction({
      ...key,
      event: compactionEvent({ startSeq: 1, endSeq: 2 }),
      expectedCheckpointSeq: null,
    });
    const second = await service.appendCompaction({
      ...key,
      event: compactionEvent({ startSeq: 1, endSeq: 4 }),
      expectedCheckpointSeq: first.seq,
    });
    await corrupt(service, second.seq);
    const view = await service.loadView(key);
    expect(view.checkpoint?.seq).toBe(first.seq);
    expect(view.tail.map((event) => event.seq)).toEqual([3, 4]);
  });

  it('names the session when its state is corrupted', async () => {
    const service = open();
    await seed(service, 1);
    const database = await service.getDatabase();
    database.prepare("UPDATE sessions SET state = '{oops' WHERE id = 'session'").run();
    await expect(service.getSession(key)).rejects.toThrow(/state of session 'session'/);
  });

  it('refuses a database with a newer schema version, naming both versions', async () => {
    await seed(open(), 1);
    const database = new Database(path);
    database
      .prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', 0)")
      .run();
    database.close();
    const error = await open()
      .loadView(key)
      .catch((caught: unknown) => caught);
    expect(SessionStoreError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(
      `schema version 99, newer than version ${SQLITE_SCHEMA_VERSION}`,
    );
  });

  it('treats a wrong app or user as a missing session', async () => {
    const service = open();
    await seed(service, 2);
    const error = await service
      .listEvents({ ...key, userId: 'other' })
      .catch((caught: unknown) => caught);
    expect(SessionNotFoundError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("'session'");
    expect((await service.loadView(key)).tail).toHaveLength(2);
  });

  it('rejects an event that JSON cannot hold and stores nothing', async () => {
    const service = open();
    await seed(service, 1);
    const event = userTextEvent({ text: 'big' });
    event.customMetadata = { count: 10n };
    const error = await service.appendEvent({ ...key, event }).catch((caught: unknown) => caught);
    expect(InvalidEventError.isInstance(error)).toBe(true);
    expect((await service.loadView(key)).lastSeq).toBe(1);
  });

  it('explains a missing better-sqlite3', async () => {
    const missing = Object.assign(new Error("Cannot find package 'better-sqlite3'"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    await expect(loadSqliteDriver(() => Promise.reject(missing))).rejects.toThrow(
      /npm install better-sqlite3/,
    );
  });
});

describe('SqliteSessionService rows checked on read', () => {
  /** Events 1-4, compaction of 1-2 at seq 5, event 6, compaction of 1-4 at seq 7, event 8. */
  async function seedTwoCheckpoints(service: SqliteSessionService) {
    await seed(service, 4);
    const first = await service.appendCompaction({
      ...key,
      event: compactionEvent({ startSeq: 1, endSeq: 2, text: 'old summary' }),
      expectedCheckpointSeq: null,
    });
    await service.appendEvent({ ...key, event: userTextEvent({ text: 'm6' }) });
    const second = await service.appendCompaction({
      ...key,
      event: compactionEvent({ startSeq: 1, endSeq: 4, text: 'new summary' }),
      expectedCheckpointSeq: first.seq,
    });
    await service.appendEvent({ ...key, event: userTextEvent({ text: 'the new message' }) });
    return { first, second, database: await service.getDatabase() };
  }

  function setJson(database: Database.Database, seq: number, path: string, value: unknown) {
    database
      .prepare(
        "UPDATE events SET event = json_set(event, ?, json(?)) WHERE session_id = 'session' AND seq = ?",
      )
      .run(path, JSON.stringify(value), seq);
  }

  async function storeError(promise: Promise<unknown>): Promise<SessionStoreError> {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    if (!SessionStoreError.isInstance(error)) throw new Error(`expected a SessionStoreError`);
    return error;
  }

  it.each([
    ['a wrong digit (end 40)', 40],
    ['a range that disagrees with its row (end 3)', 3],
  ])('never uses a checkpoint whose JSON range is %s: falls back and says so', async (_, end) => {
    const warnings: Record<string, unknown>[] = [];
    const service = open({ logger: { warn: (fields) => warnings.push(fields) } });
    const { first, second, database } = await seedTwoCheckpoints(service);
    setJson(database, second.seq, '$.actions.compaction.endSeq', end);
    const view = await service.loadView(key);
    expect(view.checkpoint?.seq).toBe(first.seq);
    expect(view.tail.map((event) => event.seq)).toEqual([3, 4, 6, 8]);
    expect(view.tail.at(-1)?.content?.parts[0]?.text).toBe('the new message');
    expect(view.warnings).toEqual([
      expect.objectContaining({ kind: 'checkpoint_skipped', seq: second.seq }),
    ]);
    expect(view.warnings?.[0]?.message).toContain(`1..${end}`);
    expect(warnings).toEqual([expect.objectContaining({ sessionId: 'session', seq: 7 })]);
    const session = await service.getSession(key);
    expect(session?.events.map((event) => event.seq)).toEqual([5, 3, 4, 6, 8]);
    // A compaction planned from that view (expecting the fallback) is not a conflict.
    await expect(
      service.appendCompaction({
        ...key,
        event: compactionEvent({ startSeq: 1, endSeq: 6 }),
        expectedCheckpointSeq: first.seq,
      }),
    ).resolves.toMatchObject({ seq: 9 });
  });

  it('never uses a compaction row that lies past the session last seq', async () => {
    const service = open();
    const { first, database } = await seedTwoCheckpoints(service);
    database
      .prepare(
        `INSERT INTO events (app_name, user_id, session_id, seq, id, invocation_id, author, timestamp, is_compaction,
           compaction_start_seq, compaction_end_seq, event) VALUES ('app', 'user', 'session', 12, 'ghost', 'i', 'user', 1, 1, 1, 10, ?)`,
      )
      .run(JSON.stringify(compactionEvent({ startSeq: 1, endSeq: 10 })));
    database.prepare("DELETE FROM events WHERE session_id = 'session' AND seq = 7").run();
    const view = await service.loadView(key);
    expect(view.lastSeq).toBe(8);
    expect(view.checkpoint?.seq).toBe(first.seq);
    expect(view.tail.map((event) => event.seq)).toEqual([3, 4, 6, 8]);
  });

  it.each([
    ['a role the model has not', '$.content.role', 'tool', "field 'content.role'"],
    [
      'a call with no id',
      '$.content',
      { role: 'model', parts: [{ functionCall: { name: 'x', args: {} } }] },
      "field 'content.parts[0].functionCall.id'",
    ],
    ['a timestamp that is text', '$.timestamp', 'yesterday', "field 'timestamp'"],
    [
      'a compaction on a plain row',
      '$.actions.compaction',
      { startSeq: 1 },
      "field 'actions.compaction.endSeq' must be an integer >= 1",
    ],
  ])(
    'names session and seq of a row with %s, typed and not retryable',
    async (_, path, value, field) => {
      const service = open();
      const { database } = await seedTwoCheckpoints(service);
      setJson(database, 8, path, value);
      for (const read of [
        () => service.loadView(key),
        () => service.getSession(key),
        () => service.getSession({ ...key, events: 'full' }),
        () => service.listEvents({ ...key, afterSeq: 7 }),
      ]) {
        const error = await storeError(read());
        expect(error).toMatchObject({ sessionId: 'session', seq: 8, retryable: false });
        expect(error.message).toContain("seq 8 in session 'session'");
        expect(error.message).toContain(field);
      }
      expect((await service.listEvents({ ...key, beforeSeq: 8 })).events).toHaveLength(7);
    },
  );

  it('fails on a checkpoint row that is corrupt, and skips it with a warning in skip mode', async () => {
    const service = open();
    const { first, second, database } = await seedTwoCheckpoints(service);
    setJson(database, second.seq, '$.actions.compaction.compactedContent', 'oops');
    const error = await storeError(service.loadView(key));
    expect(error).toMatchObject({ seq: second.seq, retryable: false });
    expect(error.message).toContain("field 'actions.compaction.compactedContent'");
    const lenient = open({ onCorruptEvent: 'skip' });
    const view = await lenient.loadView(key);
    expect(view.checkpoint?.seq).toBe(first.seq);
    expect(view.warnings?.map((warning) => [warning.kind, warning.seq])).toEqual([
      ['checkpoint_skipped', second.seq],
    ]);
  });
});
