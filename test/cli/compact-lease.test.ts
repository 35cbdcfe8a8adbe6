/** `orrery compact` takes the session's lease: it never compacts under a running invocation. */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { SqliteSessionService } from '../../src/sessions/sqlite/index.js';
import { userTextEvent } from '../../src/testing/index.js';
import { cli, tempDir } from './in-process.js';

const key = { appName: 'orrery', userId: 'local', sessionId: 'busy' };

it('waits for the lease an invocation holds, compacts after it, and releases it', async () => {
  const db = join(tempDir(), 'orrery.db');
  const service = new SqliteSessionService({ path: db });
  try {
    await service.createSession(key);
    for (let index = 0; index < 6; index++) {
      await service.appendEvent({ ...key, event: userTextEvent({ text: `message ${index}` }) });
    }
    // A holder that stopped renewing: the session is free again only once its ttl has passed.
    const ttlMs = 3_000;
    const takenFrom = Date.now();
    const held = await service.acquireLease({ ...key, ttlMs, renew: false });
    const result = await cli(['compact', key.sessionId, '--db', db, '--retention', '1']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const events = (await service.getSession({ ...key, events: 'full' }))!.events;
    const compaction = events.find((event) => event.actions.compaction);
    expect(compaction?.actions.compaction?.endSeq).toBe(5);
    // Stored only after the holder's lease ended.
    expect(compaction!.timestamp * 1000).toBeGreaterThanOrEqual(takenFrom + ttlMs - 1);
    await held.release();
    // The command released its own lease.
    const next = await service.acquireLease({ ...key, waitMs: 0 });
    await next.release();
  } finally {
    await service.close();
  }
});
