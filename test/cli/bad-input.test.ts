/** Bad input fails with one clear line, the right exit code, and nothing written. */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempDir } from './in-process.js';

const conversation = [
  { type: 'user', message: { role: 'user', content: 'hi' } },
  { type: 'assistant', message: { id: 'm1', role: 'assistant', content: 'hello' } },
]
  .map((record) => JSON.stringify(record))
  .join('\n');

function file(directory: string, name: string, text: string): string {
  const path = join(directory, name);
  writeFileSync(path, text);
  return path;
}

function oneLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0] as string;
}

describe('bad transcript files', () => {
  it('refuses an empty file or one without a conversation, writing no session', async () => {
    const directory = tempDir();
    const db = join(directory, 'orrery.db');
    const cases = [
      [file(directory, 'empty.jsonl', ''), /empty\.jsonl is empty/],
      [file(directory, 'blank.json', '  \n\n'), /blank\.json is empty/],
      [
        file(directory, 'summary-only.jsonl', '{"type":"summary","summary":"x"}\n'),
        /summary-only\.jsonl holds no conversation to import \(1 record that is not a message was skipped\)/,
      ],
      [file(directory, 'no-messages.json', '[]'), /no-messages\.json holds no conversation/],
    ] as const;
    for (const [path, message] of cases) {
      for (const command of ['import', 'replay']) {
        const result = await cli([command, path, '--db', db]);
        expect(result.code).toBe(1);
        expect(oneLine(result.stderr)).toMatch(message);
        expect(result.stdout).toBe('');
      }
    }
    expect(existsSync(db)).toBe(false);
  });

  it('names a directory given as the file', async () => {
    const directory = tempDir();
    const folder = join(directory, 'folder');
    mkdirSync(folder);
    const result = await cli(['import', folder, '--db', join(directory, 'orrery.db')]);
    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toBe(
      `orrery: ImportError: ${folder} is a directory: pass a transcript file`,
    );
  });

  it('still imports a normal file', async () => {
    const directory = tempDir();
    const result = await cli([
      'import',
      file(directory, 'ok.jsonl', conversation),
      '--db',
      join(directory, 'orrery.db'),
    ]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('2 events');
  });
});

describe('a store that fails in the middle of an import', () => {
  it('keeps no half-imported session and loses nothing already stored', async () => {
    const directory = tempDir();
    const db = join(directory, 'orrery.db');
    const small = file(directory, 'small.jsonl', conversation);
    expect((await cli(['import', small, '--db', db, '--session', 'kept'])).code).toBe(0);
    const { default: Database } = await import('better-sqlite3');
    const database = new Database(db);
    // The third event of any session fails to store, as a full disk would.
    database.exec(
      "CREATE TRIGGER fail_third BEFORE INSERT ON events WHEN NEW.seq = 3 BEGIN SELECT RAISE(ABORT, 'disk is full'); END",
    );
    database.close();
    const longer = file(
      directory,
      'longer.jsonl',
      `${conversation}\n${conversation.replace('m1', 'm2')}`,
    );
    const failed = await cli(['import', longer, '--db', db, '--session', 'half']);
    expect(failed.code).toBe(1);
    expect(oneLine(failed.stderr)).toMatch(/disk is full/);
    const list = await cli(['sessions', 'list', '--db', db, '--json']);
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({ sessionId: 'kept', eventCount: 2 }),
    ]);
  });
});
