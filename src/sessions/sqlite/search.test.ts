import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { userTextEvent } from '../../testing/event-builders.js';
import { migrateSqlite, SQLITE_MIGRATIONS } from './migrations.js';
import { rebuildSqliteSearch, SQLITE_SEARCH_BATCH } from './search.js';
import { SqliteSessionService } from './sqlite-session-service.js';

const folder = mkdtempSync(join(tmpdir(), 'orrery-sqlite-search-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
const key = { appName: 'a', userId: 'u', sessionId: 's' };
const user = { appName: 'a', userId: 'u' };

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

  it(`indexes appends in batches of ${SQLITE_SEARCH_BATCH} and the rest before a search`, async () => {
    const service = new SqliteSessionService({ path: join(folder, 'batches.db') });
    const database = await service.getDatabase();
    const pending = () =>
      (database.prepare('SELECT count(*) AS n FROM events_search_pending').get() as { n: number })
        .n;
    const indexed = () =>
      (database.prepare('SELECT count(*) AS n FROM events_search_docsize').get() as { n: number })
        .n;
    await service.createSession(key);
    const total = SQLITE_SEARCH_BATCH + 3;
    for (let index = 1; index <= total; index++) {
      await service.appendEvent({
        ...key,
        event: userTextEvent({ text: `otter number ${index}` }),
      });
    }
    // Rowids 1..total: the batch at rowid SQLITE_SEARCH_BATCH indexed the first ones.
    expect([indexed(), pending()]).toEqual([SQLITE_SEARCH_BATCH, 3]);
    const hits = await service.searchEvents({ ...key, query: `otter ${total}`, limit: 1 });
    expect(hits.map((hit) => hit.seq)).toEqual([total]);
    expect([indexed(), pending()]).toEqual([total, 0]);
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
    database.exec(`INSERT INTO events_search (events_search, rank) VALUES ('integrity-check', 0)`);
    await service.createSession(key);
    await service.appendEvent({ ...key, event: userTextEvent({ text: 'a new seal' }) });
    const hits = await service.searchEvents({ ...key, query: 'seal' });
    expect(hits.map((hit) => hit.event.content?.parts?.[0]?.text)).toEqual(['a new seal']);
    database.exec(`INSERT INTO events_search (events_search, rank) VALUES ('integrity-check', 0)`);
    await service.close();
  });
});
