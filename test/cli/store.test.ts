/** Which store a command opens, and what it may create. */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempDir } from './in-process.js';

describe('the session store', () => {
  it('is never created by a command that only reads or changes stored sessions', async () => {
    const directory = tempDir();
    const db = join(directory, 'typo', 'orrery.db');
    const commands = [
      ['sessions', 'list'],
      ['sessions', 'show', 's1'],
      ['sessions', 'export', 's1'],
      ['sessions', 'delete', 's1'],
      ['view', 's1'],
      ['view', 's1', '--json'],
      ['compact', 's1'],
    ];
    for (const command of commands) {
      for (const [args, env] of [
        [[...command, '--db', db], {}],
        [command, { ORRERY_DB: db }],
      ] as const) {
        const result = await cli([...args], { env });
        expect(result.code).toBe(1);
        expect(result.stdout).toBe('');
        expect(result.stderr).toBe(
          `orrery: SessionStoreError: no session store at ${db}: nothing was imported or run there yet (check --db or ORRERY_DB)\n`,
        );
      }
    }
    expect(existsSync(join(directory, 'typo'))).toBe(false);
  });

  it('is created by import, which the read commands then find', async () => {
    const directory = tempDir();
    const db = join(directory, 'new', 'orrery.db');
    const file = join(directory, 'chat.json');
    writeFileSync(file, JSON.stringify([{ role: 'user', content: 'hi' }]));
    expect((await cli(['import', file, '--db', db, '--session', 's1'])).code).toBe(0);
    const list = await cli(['sessions', 'list', '--db', db, '--json']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ sessionId: 's1' })]);
  });
});
