/**
 * `exclusive: true`: the store's connection keeps the file to itself (SQLite's exclusive
 * locking mode), so leases are taken in process, with no lease row written.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createEvent } from '../../events/event-helpers.js';
import { SessionBusyError, SessionStoreError } from '../errors.js';
import { SqliteSessionService } from './sqlite-session-service.js';

const key = { appName: 'app', userId: 'user', sessionId: 'session' };
let folder: string;
let path: string;
let service: SqliteSessionService;

beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'orrery-sqlite-exclusive-'));
  path = join(folder, 'orrery.db');
  service = new SqliteSessionService({ path, exclusive: true });
  await service.createSession(key);
});

afterEach(async () => {
  await service.close();
  rmSync(folder, { recursive: true, force: true });
});

it('keeps every other connection out, in this process and in another', async () => {
  const other = new Database(path);
  other.pragma('busy_timeout = 0');
  try {
    expect(() => other.prepare('SELECT count(*) FROM sessions').get()).toThrow(/locked/);
    expect(() => other.exec("DELETE FROM sessions WHERE id = 'session'")).toThrow(/locked/);
  } finally {
    other.close();
  }
  const child = execFileSync(process.execPath, [
    '-e',
    `const D = require('better-sqlite3'); const c = new D(${JSON.stringify(path)});
     c.pragma('busy_timeout = 0');
     try { c.prepare('SELECT count(*) FROM sessions').get(); console.log('read'); }
     catch (error) { console.log(error.code); }`,
  ]).toString();
  expect(child.trim()).toBe('SQLITE_BUSY');
  // A second store on the file cannot open it.
  const second = new SqliteSessionService({ path, busyTimeoutMs: 20 });
  await expect(second.getSession(key)).rejects.toBeInstanceOf(SessionStoreError);
  await second.close();
});

it('takes leases in process: one holder per session, no lease row', async () => {
  const first = await service.acquireLease({ ...key, waitMs: 0 });
  await expect(service.acquireLease({ ...key, waitMs: 20 })).rejects.toBeInstanceOf(
    SessionBusyError,
  );
  // Another session is not held up.
  const elsewhere = await service.acquireLease({ ...key, sessionId: 'elsewhere', waitMs: 0 });
  const database = await service.getDatabase();
  expect(database.prepare('SELECT count(*) AS rows FROM session_leases').get()).toEqual({
    rows: 0,
  });
  await elsewhere.release();
  const waiting = service.acquireLease({ ...key, waitMs: 5_000 });
  await first.release();
  const second = await waiting;
  expect(second.signal.aborted).toBe(false);
  await second.release();
});

it('lets the file be opened by others once closed, with what it wrote', async () => {
  await service.appendEvent({
    ...key,
    event: createEvent({
      author: 'user',
      invocationId: 'turn',
      content: { role: 'user', parts: [{ text: 'hi' }] },
    }),
  });
  await service.close();
  const reader = new SqliteSessionService({ path });
  try {
    const session = await reader.getSession({ ...key, events: 'full' });
    expect(session?.events.map((event) => event.seq)).toEqual([1]);
  } finally {
    await reader.close();
  }
});
