import { EventEmitter } from 'node:events';
import type { Pool, PoolClient } from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withClient } from './pg-checkout.js';

/** A pool with one idle client, handed over on the next tick as pg-pool does. */
function idlePool() {
  const client = Object.assign(new EventEmitter(), {
    query: async () => ({ rows: [{ one: 1 }] }),
    release: vi.fn(),
  });
  const pool = {
    idleCount: 1,
    waitingCount: 0,
    connect: () => new Promise((resolve) => process.nextTick(() => resolve(client))),
  };
  return { client, pool: pool as unknown as Pool };
}

describe('withClient', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('takes an idle client without arming the connection deadline', async () => {
    const { client, pool } = idlePool();
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const rows = await withClient(
      { pool, queryTimeoutMs: 0, connectionTimeoutMs: 10_000 },
      async (guarded: PoolClient) => (await guarded.query('SELECT 1')).rows,
    );
    expect(rows).toEqual([{ one: 1 }]);
    expect(timers.mock.calls.filter((call) => call[1] === 10_000)).toEqual([]);
    expect(client.release).toHaveBeenCalledWith(undefined);
  });

  it('hands an idle client back unused when the signal aborts during the handover', async () => {
    const { client, pool } = idlePool();
    const controller = new AbortController();
    const work = vi.fn();
    const running = withClient(
      { pool, signal: controller.signal, queryTimeoutMs: 0, connectionTimeoutMs: 10_000 },
      work,
    );
    controller.abort(new Error('gone'));
    await expect(running).rejects.toThrow('gone');
    expect(work).not.toHaveBeenCalled();
    // Released without an error: the pool keeps the healthy connection.
    expect(client.release).toHaveBeenCalledWith();
  });
});
