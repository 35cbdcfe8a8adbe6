/** The SQLite lease on a busy file: another connection's write lock is waited out, not an error. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SqliteSessionService } from './sqlite-session-service.js';

const key = { appName: 'app', userId: 'user', sessionId: 'session' };
let folder: string;
let service: SqliteSessionService;
let other: Database.Database;

beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'orrery-sqlite-lease-'));
  const path = join(folder, 'orrery.db');
  service = new SqliteSessionService({ path });
  // No synchronous busy wait on the lease's connection: a locked file answers SQLITE_BUSY.
  (await service.getDatabase()).pragma('busy_timeout = 0');
  other = new Database(path);
});

afterEach(async () => {
  if (other.inTransaction) other.exec('ROLLBACK');
  other.close();
  await service.close();
  rmSync(folder, { recursive: true, force: true });
});

/** Resolves once `promise` settles or after `turns` timer turns, telling which. */
async function settledWithin(promise: Promise<unknown>, turns: number): Promise<boolean> {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  for (let turn = 0; turn < turns && !settled; turn++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return settled;
}

it('keeps polling while another connection holds the write lock, then takes the lease', async () => {
  other.exec('BEGIN IMMEDIATE');
  const acquiring = service.acquireLease({ ...key, waitMs: 60_000 });
  // Still waiting (not failed) while the lock is held.
  expect(await settledWithin(acquiring, 20)).toBe(false);
  other.exec('COMMIT');
  const lease = await acquiring;
  expect(lease.signal.aborted).toBe(false);

  other.exec('BEGIN IMMEDIATE');
  const releasing = lease.release();
  expect(await settledWithin(releasing, 20)).toBe(false);
  other.exec('COMMIT');
  await releasing;
  expect(other.prepare('SELECT COUNT(*) FROM session_leases').pluck().get()).toBe(0);
});
