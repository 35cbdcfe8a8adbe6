import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { compactionEvent, userTextEvent } from '../../testing/event-builders.js';
import { migrateSqlite, SQLITE_MIGRATIONS } from './migrations.js';
import {
  SQLITE_SEARCH_BATCH,
  SQLITE_SEARCH_IDLE_MS,
  SQLITE_SEARCH_MAX_BACKLOG,
} from './search-backlog.js';
import { rebuildSqliteSearch } from './search-index.js';
import { SqliteSessionService } from './sqlite-session-service.js';

const folder = mkdtempSync(join(tmpdir(), 'orrery-sqlite-search-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
const key = { appName: 'a', userId: 'u', sessionId: 's' };
const user = { appName: 'a', userId: 'u' };

afterEach(() => {
  vi.useRealTimers();
});

function count(database: Database.Database, sql: string): number {
  return (database.prepare(sql).get() as { n: number }).n;
}

/** Events waiting to be indexed (above the watermark) and events in the index. */
function backlog(database: Database.Database): { pending: number; indexed: number } {
  return {
    pending: count(
      database,
      'SELECT count(*) AS n FROM events WHERE rowid > (SELECT indexed_through FROM events_search_state)',
    ),
    indexed: count(database, 'SELECT count(*) AS n FROM events_search_docsize'),
  };
}

/**
 * The index holds exactly the words of every event up to the watermark, and nothing else: its
 * entries (term, event, offset) against an index built afresh from the events' text. (FTS5's own
 * check against the content, rank 1, cannot read the source view: json_tree, see search-index.ts.)
 */
function checkIndex(database: Database.Database): void {
  database.exec(`INSERT INTO events_search (events_search, rank) VALUES ('integrity-check', 0)`);
  database.exec(`
    CREATE VIRTUAL TABLE temp.reference USING fts5(body, tokenize = 'unicode61 remove_diacritics 2');
    INSERT INTO temp.reference (rowid, body) SELECT event_rowid, body FROM events_search_source
      WHERE event_rowid <= (SELECT indexed_through FROM events_search_state);
    CREATE VIRTUAL TABLE temp.reference_terms USING fts5vocab(temp, reference, instance);
    CREATE VIRTUAL TABLE temp.index_terms USING fts5vocab(main, events_search, instance);`);
  const entries = (table: string) =>
    database
      .prepare(`SELECT term, doc, offset FROM temp.${table} ORDER BY term, doc, offset`)
      .all();
  try {
    expect(entries('index_terms')).toEqual(entries('reference_terms'));
  } finally {
    database.exec(`DROP TABLE temp.index_terms; DROP TABLE temp.reference_terms;
      DROP TABLE temp.reference;`);
  }
}

function oldEvent(seq: number, text: string) {
  const { seq: _seq, ...body } = {
    ...userTextEvent({ id: `e${seq}`, invocationId: 'i', timestamp: 1_700_000_000 + seq, text }),
    seq,
  };
  return body;
}

describe('SQLite history search', () => {
  it('indexes the events of a database created before search existed (schema version 2)', async () => {
    const path = join(folder, 'v2.db');
    const database = new Database(path);
    migrateSqlite(
      database,
      SQLITE_MIGRATIONS.filter((migration) => migration.version <= 2),
    );
    database
      .prepare(
        'INSERT INTO sessions (app_name, user_id, id, last_seq, event_count, created_at, updated_at) VALUES (?, ?, ?, 2, 2, 0, 0)',
      )
      .run('a', 'u', 's');
    const insert = database.prepare(
      `INSERT INTO events (app_name, user_id, session_id, seq, id, invocation_id, author, timestamp, is_compaction, event)
       VALUES ('a', 'u', 's', ?, ?, 'i', 'user', ?, 0, ?)`,
    );
    insert.run(1, 'e1', 1_700_000_001, JSON.stringify(oldEvent(1, 'the old pelican fact')));
    insert.run(2, 'e2', 1_700_000_002, JSON.stringify(oldEvent(2, 'something else')));
    database.close();

    const service = new SqliteSessionService({ path });
    const hits = await service.searchEvents({ ...key, query: 'pelican' });
    expect(hits.map((hit) => hit.seq)).toEqual([1]);
    expect(hits[0]?.event).toEqual({ ...oldEvent(1, 'the old pelican fact'), seq: 1 });
    // Appends after the migration are indexed by the triggers.
    await service.appendEvent({ ...key, event: userTextEvent({ text: 'a new pelican' }) });
    expect(
      (await service.searchEvents({ ...key, query: 'pelican' })).map((hit) => hit.seq).sort(),
    ).toEqual([1, 3]);
    await service.close();
  });

  it('drops a deleted session from the index and survives a VACUUM with a rebuild', async () => {
    const service = new SqliteSessionService({ path: join(folder, 'delete.db') });
    for (const sessionId of ['one', 'two']) {
      await service.createSession({ ...key, sessionId });
      await service.appendEvent({
        ...key,
        sessionId,
        event: userTextEvent({ text: `walrus ${sessionId}` }),
      });
    }
    await service.deleteSession({ ...key, sessionId: 'one' });
    expect(
      (await service.searchEvents({ ...user, query: 'walrus' })).map((hit) => hit.sessionId),
    ).toEqual(['two']);
    const database = await service.getDatabase();
    database.exec('VACUUM');
    rebuildSqliteSearch(database);
    const hits = await service.searchEvents({ ...user, query: 'walrus two' });
    expect(hits.map((hit) => [hit.sessionId, hit.seq])).toEqual([['two', 1]]);
    await service.close();
  });

  it('indexes a whole imported session (its own connection, batch inserts)', async () => {
    const service = new SqliteSessionService({ path: join(folder, 'import.db') });
    await service.importSession({
      ...key,
      events: [userTextEvent({ text: 'imported narwhal' }), userTextEvent({ text: 'other' })],
    });
    expect(
      (await service.searchEvents({ ...key, query: 'narwhal' })).map((hit) => hit.seq),
    ).toEqual([1]);
    await service.close();
  });

  it("finds the user's event when many of another user's events rank above it", async () => {
    const service = new SqliteSessionService({ path: join(folder, 'crowded.db') });
    const other = { appName: 'a', userId: 'someone-else', sessionId: 'x' };
    await service.importSession({
      ...other,
      events: Array.from({ length: 300 }, () => userTextEvent({ text: 'ibex ibex ibex' })),
    });
    await service.createSession(key);
    const mine = await service.appendEvent({
      ...key,
      event: userTextEvent({ text: `ibex ${'and a long unrelated sentence '.repeat(20)}` }),
    });
    const hits = await service.searchEvents({ ...user, query: 'ibex' });
    expect(hits.map((hit) => [hit.sessionId, hit.seq])).toEqual([['s', mine.seq]]);
    await service.close();
  });

  it('an append indexes nothing; idle time indexes in batches, a search the rest first', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const service = new SqliteSessionService({ path: join(folder, 'batches.db') });
    const database = await service.getDatabase();
    await service.createSession(key);
    const total = SQLITE_SEARCH_BATCH * 2 + 3;
    for (let index = 1; index <= total; index++) {
      await service.appendEvent({
        ...key,
        event: userTextEvent({ text: `otter number ${index}` }),
      });
    }
    expect(backlog(database)).toEqual({ pending: total, indexed: 0 });
    // Appends came after the timer was set: it waits for a moment without any.
    vi.advanceTimersByTime(SQLITE_SEARCH_IDLE_MS);
    expect(backlog(database)).toEqual({ pending: total, indexed: 0 });
    // Idle: one batch a transaction, one transaction per timer turn.
    vi.advanceTimersByTime(SQLITE_SEARCH_IDLE_MS);
    expect(backlog(database)).toEqual({
      pending: total - SQLITE_SEARCH_BATCH,
      indexed: SQLITE_SEARCH_BATCH,
    });
    await service.appendEvent({ ...key, event: userTextEvent({ text: 'otter late' }) });
    const hits = await service.searchEvents({ ...key, query: `otter ${total}`, limit: 1 });
    expect(hits.map((hit) => hit.seq)).toEqual([total]);
    expect(backlog(database)).toEqual({ pending: 0, indexed: total + 1 });
    checkIndex(database);
    vi.runAllTimers(); // nothing left: the timer stops
    expect(vi.getTimerCount()).toBe(0);
    await service.close();
  });

  it('never chases appends a few at a time; a backlog of SQLITE_SEARCH_MAX_BACKLOG is indexed in full batches', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const service = new SqliteSessionService({ path: join(folder, 'steady.db') });
    const database = await service.getDatabase();
    await service.createSession(key);
    const append = (index: number) =>
      service.appendEvent({ ...key, event: userTextEvent({ text: `plover ${index}` }) });
    // A steady stream: an append every half idle period, so the store is never idle.
    for (let index = 1; index < SQLITE_SEARCH_MAX_BACKLOG; index++) {
      await append(index);
      vi.advanceTimersByTime(SQLITE_SEARCH_IDLE_MS / 2);
    }
    expect(backlog(database).indexed).toBe(0);
    await append(SQLITE_SEARCH_MAX_BACKLOG);
    vi.advanceTimersByTime(SQLITE_SEARCH_IDLE_MS);
    // Full batches only, until fewer than the cap wait.
    expect(backlog(database).indexed % SQLITE_SEARCH_BATCH).toBe(0);
    expect(backlog(database).indexed).toBeGreaterThan(0);
    vi.runAllTimers();
    expect(backlog(database)).toEqual({ pending: 0, indexed: SQLITE_SEARCH_MAX_BACKLOG });
    checkIndex(database);
    await service.close();
  });

  it('indexes when idle until none wait, never inside a transaction of the caller, then checkpoints', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const service = new SqliteSessionService({ path: join(folder, 'idle.db') });
    const database = await service.getDatabase();
    await service.createSession(key);
    for (let index = 1; index <= SQLITE_SEARCH_BATCH + 1; index++) {
      await service.appendEvent({ ...key, event: userTextEvent({ text: `heron ${index}` }) });
    }
    database.exec('BEGIN');
    vi.advanceTimersByTime(SQLITE_SEARCH_IDLE_MS * 3);
    expect(backlog(database).indexed).toBe(0);
    database.exec('COMMIT');
    const pragma = vi.spyOn(database, 'pragma');
    const checkpoints = () =>
      pragma.mock.calls.filter(([text]) => text === 'wal_checkpoint(PASSIVE)').length;
    vi.advanceTimersByTime(SQLITE_SEARCH_IDLE_MS);
    // One batch indexed, one waiting: no checkpoint yet.
    expect(backlog(database).indexed).toBe(SQLITE_SEARCH_BATCH);
    expect(checkpoints()).toBe(0);
    vi.runAllTimers();
    expect(backlog(database)).toEqual({ pending: 0, indexed: SQLITE_SEARCH_BATCH + 1 });
    // None waiting: the index's pages copied from the WAL once, while idle, not by the appends.
    expect(checkpoints()).toBe(1);
    checkIndex(database);
    pragma.mockRestore();
    await service.close();
  });

  it('waits while another connection holds the write lock, then indexes', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const path = join(folder, 'idle-busy.db');
    const service = new SqliteSessionService({ path });
    const database = await service.getDatabase();
    await service.createSession(key);
    await service.appendEvent({ ...key, event: userTextEvent({ text: 'a patient crane' }) });
    const other = new Database(path);
    other.exec('BEGIN IMMEDIATE');
    vi.advanceTimersByTime(SQLITE_SEARCH_IDLE_MS * 3);
    expect(backlog(database)).toEqual({ pending: 1, indexed: 0 });
    other.exec('COMMIT');
    other.close();
    vi.advanceTimersByTime(SQLITE_SEARCH_IDLE_MS);
    expect(backlog(database)).toEqual({ pending: 0, indexed: 1 });
    await service.close();
  });

  it('moves the watermark past compactions without indexing them', async () => {
    const service = new SqliteSessionService({ path: join(folder, 'compaction.db') });
    const database = await service.getDatabase();
    await service.createSession(key);
    await service.appendEvent({ ...key, event: userTextEvent({ text: 'an early wren' }) });
    await service.appendCompaction({
      ...key,
      expectedCheckpointSeq: null,
      event: compactionEvent({ startSeq: 1, endSeq: 1, text: 'summary of the wren' }),
    });
    await service.appendEvent({ ...key, event: userTextEvent({ text: 'a late wren' }) });
    const hits = await service.searchEvents({ ...key, query: 'wren' });
    expect(hits.map((hit) => hit.seq).sort()).toEqual([1, 3]);
    expect(backlog(database)).toEqual({ pending: 0, indexed: 2 });
    checkIndex(database);
    await service.close();
  });

  it('keeps what close() left for the next store to index', async () => {
    const path = join(folder, 'close.db');
    const service = new SqliteSessionService({ path });
    await service.createSession(key);
    await service.appendEvent({ ...key, event: userTextEvent({ text: 'a closing puffin' }) });
    await service.close();
    const reopened = new SqliteSessionService({ path });
    const database = await reopened.getDatabase();
    expect(backlog(database)).toEqual({ pending: 1, indexed: 0 });
    const hits = await reopened.searchEvents({ ...key, query: 'puffin' });
    expect(hits.map((hit) => hit.seq)).toEqual([1]);
    await reopened.close();
  });

  it('finds events another connection appended and has not indexed', async () => {
    const path = join(folder, 'two-connections.db');
    const writer = new SqliteSessionService({ path });
    const reader = new SqliteSessionService({ path });
    await writer.createSession(key);
    await reader.searchEvents({ ...user, query: 'anything' });
    await writer.appendEvent({ ...key, event: userTextEvent({ text: 'the lynx moved' }) });
    const hits = await reader.searchEvents({ ...key, query: 'lynx' });
    expect(hits.map((hit) => hit.seq)).toEqual([1]);
    await writer.close();
    await reader.close();
  });

  it('indexes an import in its transaction', async () => {
    const service = new SqliteSessionService({ path: join(folder, 'import-indexed.db') });
    const database = await service.getDatabase();
    await service.importSession({
      ...key,
      events: Array.from({ length: 300 }, (_, index) => userTextEvent({ text: `gnu ${index}` })),
    });
    expect(backlog(database)).toEqual({ pending: 0, indexed: 300 });
    checkIndex(database);
    await service.close();
  });

  it('deletes events not indexed yet without touching the index', async () => {
    const service = new SqliteSessionService({ path: join(folder, 'pending-delete.db') });
    const database = await service.getDatabase();
    await service.createSession(key);
    await service.appendEvent({ ...key, event: userTextEvent({ text: 'indexed seal' }) });
    await service.searchEvents({ ...key, query: 'seal' });
    await service.appendEvent({ ...key, event: userTextEvent({ text: 'pending seal' }) });
    await service.deleteSession(key);
    // An FTS5 'delete' of a row it never had would corrupt the index: integrity-check fails.
    checkIndex(database);
    await service.createSession(key);
    await service.appendEvent({ ...key, event: userTextEvent({ text: 'a new seal' }) });
    const hits = await service.searchEvents({ ...key, query: 'seal' });
    expect(hits.map((hit) => hit.event.content?.parts?.[0]?.text)).toEqual(['a new seal']);
    checkIndex(database);
    await service.close();
  });

  it('indexes an event that reuses the rowid of a deleted, indexed one', async () => {
    const service = new SqliteSessionService({ path: join(folder, 'rowid-reuse.db') });
    const database = await service.getDatabase();
    const other = { ...key, sessionId: 'other' };
    await service.createSession(key);
    await service.createSession(other);
    await service.appendEvent({ ...key, event: userTextEvent({ text: 'first yak' }) });
    await service.appendEvent({ ...other, event: userTextEvent({ text: 'second yak' }) });
    await service.appendEvent({ ...other, event: userTextEvent({ text: 'third yak' }) });
    await service.searchEvents({ ...user, query: 'yak' });
    // The last rows (rowids 2 and 3, indexed) go: the next append takes rowid 2 again.
    await service.deleteSession(other);
    await service.appendEvent({ ...key, event: userTextEvent({ text: 'reborn yak' }) });
    const rowid = database.prepare('SELECT max(rowid) FROM events').pluck().get();
    expect(rowid).toBe(2);
    const hits = await service.searchEvents({ ...user, query: 'reborn yak' });
    expect(hits.map((hit) => [hit.sessionId, hit.seq])).toEqual([
      ['s', 2],
      ['s', 1],
    ]);
    checkIndex(database);
    await service.close();
  });

  it('keeps the index exact when a row is updated, indexed or not', async () => {
    const service = new SqliteSessionService({ path: join(folder, 'update.db') });
    const database = await service.getDatabase();
    await service.createSession(key);
    await service.appendEvent({ ...key, event: userTextEvent({ text: 'old indexed koala' }) });
    await service.searchEvents({ ...key, query: 'koala' });
    await service.appendEvent({ ...key, event: userTextEvent({ text: 'old pending koala' }) });
    const rewrite = database.prepare(
      "UPDATE events SET event = replace(event, 'old', 'new') WHERE session_id = 's'",
    );
    rewrite.run();
    const texts = async (query: string) =>
      (await service.searchEvents({ ...key, query })).map(
        (hit) => hit.event.content?.parts?.[0]?.text,
      );
    expect(await texts('old')).toEqual([]);
    expect((await texts('new koala')).sort()).toEqual(['new indexed koala', 'new pending koala']);
    checkIndex(database);
    await service.close();
  });

  it('upgrades a database with events pending from migration 5', async () => {
    const path = join(folder, 'v5.db');
    const database = new Database(path);
    migrateSqlite(
      database,
      SQLITE_MIGRATIONS.filter((migration) => migration.version <= 5),
    );
    database
      .prepare(
        'INSERT INTO sessions (app_name, user_id, id, last_seq, event_count, created_at, updated_at) VALUES (?, ?, ?, 300, 300, 0, 0)',
      )
      .run('a', 'u', 's');
    const insert = database.prepare(
      `INSERT INTO events (app_name, user_id, session_id, seq, id, invocation_id, author, timestamp, is_compaction, event)
       VALUES ('a', 'u', 's', ?, ?, 'i', 'user', ?, 0, ?)`,
    );
    database.transaction(() => {
      for (let seq = 1; seq <= 300; seq++) {
        insert.run(
          seq,
          `e${seq}`,
          1_700_000_000 + seq,
          JSON.stringify(oldEvent(seq, `mole ${seq}`)),
        );
      }
    })();
    // Rowid 7 updated: pending again, below rowids already indexed.
    database.exec(`UPDATE events SET event = replace(event, 'mole 7', 'vole 7') WHERE seq = 7`);
    expect(count(database, 'SELECT count(*) AS n FROM events_search_pending')).toBe(45);
    database.close();

    const service = new SqliteSessionService({ path });
    const upgraded = await service.getDatabase();
    expect(backlog(upgraded)).toEqual({ pending: 0, indexed: 300 });
    checkIndex(upgraded);
    const tables = upgraded
      .prepare("SELECT name FROM sqlite_master WHERE name LIKE 'events_search_pending%'")
      .all();
    expect(tables).toEqual([]);
    expect((await service.searchEvents({ ...key, query: 'vole' })).map((hit) => hit.seq)).toEqual([
      7,
    ]);
    expect(
      (await service.searchEvents({ ...key, query: 'mole 299' })).map((hit) => hit.seq)[0],
    ).toBe(299);
    await service.close();
  });
});
