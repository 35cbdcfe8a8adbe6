/**
 * A locked database (another connection in `BEGIN IMMEDIATE`) is waited for without blocking
 * the event loop, ends on the deadline with a typed retryable error or at once on abort, and
 * SQLite's own errors leave the store typed.
 */
import { mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { userTextEvent } from '../../testing/event-builders.js';
import { SessionAlreadyExistsError, SessionStoreError } from '../errors.js';
import { toSqliteStoreError } from './sqlite-errors.js';
import { SqliteSessionService } from './sqlite-session-service.js';

const key = { appName: 'app', userId: 'user', sessionId: 'session' };
let folder: string;
let path: string;
const closers: Array<() => unknown> = [];

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'orrery-sqlite-busy-'));
  path = join(folder, 'orrery.db');
});

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  rmSync(folder, { recursive: true, force: true });
});

async function openService(busyTimeoutMs: number): Promise<SqliteSessionService> {
  const service = new SqliteSessionService({ path, busyTimeoutMs });
  closers.push(() => service.close());
  await service.createSession(key);
  return service;
}

/** Another connection holding the write lock until `release()`. */
function holdWriteLock(): { release: () => void } {
  const other = new Database(path);
  closers.push(() => other.close());
  other.exec('BEGIN IMMEDIATE');
  return { release: () => other.exec('COMMIT') };
}

/** Settles to its outcome, and tells whether it has settled yet. */
function track<T>(promise: Promise<T>) {
  const state: { settled: boolean; outcome?: { value?: T; error?: unknown } } = { settled: false };
  promise.then(
    (value) => {
      state.settled = true;
      state.outcome = { value };
    },
    (error: unknown) => {
      state.settled = true;
      state.outcome = { error };
    },
  );
  return state;
}

/** Resolves after `turns` event-loop turns: only possible while nothing blocks the loop. */
async function loopTurns(turns: number): Promise<void> {
  for (let turn = 0; turn < turns; turn++) {
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

describe('SqliteSessionService on a locked database', () => {
  it('waits without blocking the event loop and succeeds once the lock is released', async () => {
    const service = await openService(60_000);
    const lock = holdWriteLock();
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 1);
    closers.push(() => clearInterval(ticker));
    const append = track(service.appendEvent({ ...key, event: userTextEvent({ text: 'hi' }) }));
    await loopTurns(20);
    // The loop ran 20 timer turns while the append waited (a synchronous busy wait would have
    // held the loop for the whole busy timeout, and settled before these turns).
    expect(append.settled).toBe(false);
    expect(ticks).toBeGreaterThan(0);
    // Another session's read runs meanwhile (WAL readers do not wait for the writer).
    await expect(service.loadView(key)).resolves.toMatchObject({ lastSeq: 0 });
    lock.release();
    await expect(
      (async () => {
        while (!append.settled) await loopTurns(1);
        return append.outcome;
      })(),
    ).resolves.toMatchObject({ value: { seq: 1 } });
  });

  it('gives up past its deadline with a retryable SessionStoreError and stores nothing', async () => {
    const service = await openService(30);
    holdWriteLock();
    const error = await service
      .appendEvent({ ...key, event: userTextEvent({ text: 'hi' }) })
      .catch((caught: unknown) => caught);
    expect(SessionStoreError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ retryable: true, sessionId: 'session' });
    expect((error as Error).message).toMatch(
      /appendEvent of session 'session' gave up after \d+ ms/,
    );
  });

  it('ends the wait at once when the caller aborts', async () => {
    const service = await openService(60_000);
    const lock = holdWriteLock();
    const controller = new AbortController();
    const append = track(
      service.appendEvent({
        ...key,
        event: userTextEvent({ text: 'hi' }),
        signal: controller.signal,
      }),
    );
    await loopTurns(5);
    expect(append.settled).toBe(false);
    controller.abort(new Error('caller gave up'));
    while (!append.settled) await loopTurns(1);
    expect(append.outcome?.error).toMatchObject({ message: 'caller gave up' });
    lock.release();
    expect((await service.loadView(key)).lastSeq).toBe(0);
  });
});

describe('SQLite errors are typed', () => {
  it('maps busy, corrupt and duplicate-key driver errors', () => {
    const driverError = (code: string) => Object.assign(new Error(code.toLowerCase()), { code });
    const busy = toSqliteStoreError(driverError('SQLITE_BUSY'), { operation: 'append', key });
    expect(busy).toMatchObject({
      name: 'SessionStoreError',
      retryable: true,
      sessionId: 'session',
    });
    const corrupt = toSqliteStoreError(driverError('SQLITE_CORRUPT'), { operation: 'read', key });
    expect(corrupt).toMatchObject({ name: 'SessionStoreError', retryable: false });
    expect((corrupt as Error).message).toContain('the database file is corrupt');
    const duplicate = toSqliteStoreError(driverError('SQLITE_CONSTRAINT_PRIMARYKEY'), {
      operation: 'createSession',
      key,
      creating: true,
    });
    expect(SessionAlreadyExistsError.isInstance(duplicate)).toBe(true);
  });

  it('reports a corrupt database file as a non-retryable SessionStoreError', async () => {
    const service = await openService(1000);
    for (let index = 0; index < 200; index++) {
      await service.appendEvent({ ...key, event: userTextEvent({ text: 'x'.repeat(500) }) });
    }
    await service.close();
    // Garbage over the pages after the first (the header stays, so the file still opens).
    const handle = openSync(path, 'r+');
    writeSync(handle, Buffer.alloc(64 * 1024, 0x5a), 0, 64 * 1024, 4096);
    // The WAL may hold the pages too: it was checkpointed into the file on close.
    const again = new SqliteSessionService({ path });
    closers.push(() => again.close());
    const error = await again.listEvents(key).catch((caught: unknown) => caught);
    expect(SessionStoreError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ retryable: false });
    expect((error as Error).message).toMatch(/corrupt|not a database/);
  });
});
