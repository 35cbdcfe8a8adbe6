/**
 * Group commit: writes issued in one event-loop turn share one `BEGIN IMMEDIATE` transaction,
 * each keeps its own outcome (a failing one is rolled back alone), a write alone runs as before,
 * and a busy database is waited for per write.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { userTextEvent } from '../../testing/event-builders.js';
import { SessionNotFoundError, SessionStoreError } from '../errors.js';
import { SqliteSessionService } from './sqlite-session-service.js';
import { SqliteWriteQueue } from './write-queue.js';

let folder: string;
let path: string;
let database: Database.Database;
/** `BEGIN` statements run (one per transaction), counted from the driver's trace. */
let begins: number;

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'orrery-write-queue-'));
  path = join(folder, 'orrery.db');
  database = new Database(path, {
    verbose: (sql) => {
      if (String(sql).startsWith('BEGIN')) begins++;
    },
  });
  begins = 0;
});

afterEach(() => {
  database.close();
  rmSync(folder, { recursive: true, force: true });
});

const key = (sessionId: string) => ({ appName: 'app', userId: 'user', sessionId });

it('commits the appends of one turn to several sessions in one transaction, each with its seq', async () => {
  const service = new SqliteSessionService({ database });
  for (const id of ['a', 'b', 'c']) await service.createSession(key(id));
  begins = 0;
  const appended = await Promise.all(
    ['a', 'b', 'c', 'a'].map((id, index) =>
      service.appendEvent({ ...key(id), event: userTextEvent({ text: `message ${index}` }) }),
    ),
  );
  expect(begins).toBe(1);
  expect(appended.map((event) => event.seq)).toEqual([1, 1, 1, 2]);
  const a = await service.getSession({ ...key('a'), events: 'full' });
  expect(a?.events.map((event) => event.seq)).toEqual([1, 2]);
  await service.close();
});

it('rolls a failing write back alone: the others of its transaction are stored', async () => {
  const service = new SqliteSessionService({ database });
  await service.createSession(key('a'));
  const outcomes = await Promise.allSettled([
    service.appendEvent({ ...key('a'), event: userTextEvent({ text: 'first' }) }),
    service.appendEvent({ ...key('missing'), event: userTextEvent({ text: 'lost' }) }),
    service.appendEvent({ ...key('a'), event: userTextEvent({ text: 'second' }) }),
  ]);
  expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(SessionNotFoundError);
  const a = await service.getSession({ ...key('a'), events: 'full' });
  expect(a?.events.map((event) => event.seq)).toEqual([1, 2]);
  await service.close();
});

it('runs a write alone in its own transaction, and a statement alone without one', async () => {
  database.exec('CREATE TABLE t (n INTEGER)');
  const queue = new SqliteWriteQueue(database);
  const insert = database.prepare('INSERT INTO t (n) VALUES (?)');
  await queue.write(() => insert.run(1), { operation: 'test', waitMs: 0 });
  expect(begins).toBe(1);
  await queue.write(() => insert.run(2), { operation: 'test', waitMs: 0, statement: true });
  expect(begins).toBe(1);
  expect(database.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 2 });
});

it('waits while another connection holds the write lock, or answers whenBusy at once', async () => {
  database.pragma('journal_mode = WAL');
  database.pragma('busy_timeout = 0'); // as the store sets it: never wait synchronously
  database.exec('CREATE TABLE t (n INTEGER)');
  const queue = new SqliteWriteQueue(database);
  const insert = database.prepare('INSERT INTO t (n) VALUES (?)');
  const other = new Database(path);
  other.exec('BEGIN IMMEDIATE');
  try {
    const busy = await queue.write(() => insert.run(1).changes === 1, {
      operation: 'test',
      waitMs: 1_000,
      whenBusy: () => false,
    });
    expect(busy).toBe(false);
    const gaveUp = queue.write(() => insert.run(2), { operation: 'test', waitMs: 20 });
    await expect(gaveUp).rejects.toSatisfy(
      (error) => SessionStoreError.isInstance(error) && error.retryable === true,
    );
    const waited = queue.write(() => insert.run(3), { operation: 'test', waitMs: 5_000 });
    setTimeout(() => other.exec('COMMIT'), 30);
    await waited;
    expect(database.prepare('SELECT n FROM t').all()).toEqual([{ n: 3 }]);
  } finally {
    if (other.inTransaction) other.exec('COMMIT');
    other.close();
  }
});

it('stores what is queued when the store closes, and refuses writes after', async () => {
  const service = new SqliteSessionService({ database });
  await service.createSession(key('a'));
  const pending = service.appendEvent({ ...key('a'), event: userTextEvent({ text: 'last' }) });
  await Promise.resolve();
  await Promise.resolve();
  await service.close();
  await expect(pending).resolves.toMatchObject({ seq: 1 });
  const reader = new SqliteSessionService({ database });
  const a = await reader.getSession({ ...key('a'), events: 'full' });
  expect(a?.events).toHaveLength(1);
});
