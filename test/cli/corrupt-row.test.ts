/** Reading commands on a store holding a corrupt row: one clear line naming session and seq. */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteSessionService } from '../../src/sessions/sqlite/index.js';
import { modelTextEvent, userTextEvent } from '../../src/testing/index.js';
import { cli, tempDir } from './in-process.js';

const key = { appName: 'orrery', userId: 'local', sessionId: 's1' };

async function storeWithCorruptRow(json: object): Promise<string> {
  const db = join(tempDir(), 'orrery.db');
  const service = new SqliteSessionService({ path: db });
  await service.createSession(key);
  await service.appendEvent({ ...key, event: userTextEvent({ text: 'hello' }) });
  await service.appendEvent({ ...key, event: modelTextEvent({ text: 'hi there' }) });
  await service.close();
  const database = new Database(db);
  database.prepare('UPDATE events SET event = ? WHERE seq = 2').run(JSON.stringify(json));
  database.close();
  return db;
}

describe('a corrupt stored row', () => {
  it.each([
    ['a part without text', { role: 'model', parts: [{}] }, "field 'content.parts[0]'"],
    ['a role the model has not', { role: 'tool', parts: [{ text: 'x' }] }, "field 'content.role'"],
  ])(
    'view, sessions show and export print one line for %s and exit 1',
    async (_, content, field) => {
      const db = await storeWithCorruptRow({
        id: 'e2',
        invocationId: 'i',
        author: 'agent',
        timestamp: 1,
        actions: {},
        content,
      });
      for (const command of [
        ['view', 's1'],
        ['view', 's1', '--json'],
        ['sessions', 'show', 's1'],
        ['sessions', 'export', 's1'],
      ]) {
        const result = await cli([...command, '--db', db]);
        expect(result.code).toBe(1);
        expect(result.stdout).toBe('');
        const lines = result.stderr.trimEnd().split('\n');
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(
          /^orrery: SessionStoreError: Corrupted event at seq 2 in session 's1'/,
        );
        expect(lines[0]).toContain(field);
      }
    },
  );
});
