/**
 * Transcripts the importers used to refuse or mangle, and import flags that were ignored or
 * misnamed: every refusal names the file and line (or the flag), before anything is written.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cli, tempDir } from './in-process.js';

const line = (record: object) => JSON.stringify(record);
const question = {
  type: 'user',
  sessionId: 's',
  timestamp: '2025-06-01T10:00:00.000Z',
  message: { role: 'user', content: 'Is checkout up?' },
};
const answer = {
  type: 'assistant',
  timestamp: '2025-06-01T10:00:01.000Z',
  message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'Yes.' }] },
};
const chat = [
  { role: 'user', content: 'Is checkout up?' },
  { role: 'assistant', content: 'Yes.' },
];

function write(directory: string, name: string, content: string | Buffer): string {
  const file = join(directory, name);
  writeFileSync(file, content);
  return file;
}

/** `[question, unknown block nesting `depth` levels]` as Claude Code JSONL. */
function deeplyNested(depth: number): string {
  const nested = `${'['.repeat(depth)}1${']'.repeat(depth)}`;
  const block = line({ ...answer, message: { ...answer.message, content: [{ type: 'x', d: 0 }] } });
  return `${line(question)}\n${block.replace('"d":0', `"d":${nested}`)}\n`;
}

describe('orrery import: inputs', () => {
  it('accepts a UTF-8 byte-order mark, in JSONL and in JSON', async () => {
    const directory = tempDir();
    const db = join(directory, 'o.db');
    for (const [name, text] of [
      ['bom.jsonl', `${line(question)}\n${line(answer)}\n`],
      ['bom.json', JSON.stringify(chat)],
    ] as const) {
      const file = write(directory, name, `\uFEFF${text}`);
      const result = await cli(['import', file, '--db', db, '--json']);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ events: 2, modelCalls: 1 });
    }
  });

  it('refuses nesting deeper than events hold with an ImportError naming file and line', async () => {
    const directory = tempDir();
    const file = write(directory, 'deep.jsonl', deeplyNested(100_000));
    for (const command of ['import', 'replay']) {
      const result = await cli([command, file, '--db', join(directory, 'o.db')]);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        'orrery: ImportError: deep.jsonl, line 2: nests objects and arrays deeper than 528 levels (events hold at most 512)\n',
      );
    }
    expect(existsSync(join(directory, 'o.db'))).toBe(false);
  });

  it('names the file and line of a timestamp past any date (1e308), for import and replay', async () => {
    const directory = tempDir();
    const file = write(
      directory,
      'far.jsonl',
      `${line(question)}\n${line({ ...answer, timestamp: 1e308 })}\n`,
    );
    const expected =
      'orrery: ImportError: far.jsonl, line 2: timestamp out of range: it reads as 1e+305 epoch seconds, past the last date there is (8640000000000, year 275760)\n';
    const imported = await cli(['import', file, '--db', join(directory, 'o.db')]);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toBe(expected);
    expect(existsSync(join(directory, 'o.db'))).toBe(false);
    const good = write(directory, 'good.jsonl', `${line(question)}\n${line(answer)}\n`);
    const replayed = await cli(['replay', good, file]);
    expect(replayed.code).toBe(1);
    expect(replayed.stderr).toBe(expected);
  });

  it('names the file of a bad transcript among several given to replay', async () => {
    const directory = tempDir();
    const good = write(directory, 'good.jsonl', `${line(question)}\n${line(answer)}\n`);
    const bad = write(directory, 'second.jsonl', `${line(question)}\n{"type": "user", oops\n`);
    const result = await cli(['replay', good, bad]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^orrery: ImportError: second\.jsonl, line 2: not valid JSON/);
  });

  it('reports bytes that are not UTF-8 as a repair naming the line', async () => {
    const directory = tempDir();
    const text = Buffer.from(`${line(question)}\n${line(answer).replace('Yes.', 'Yes__')}\n`);
    const at = text.indexOf('__');
    text[at] = 0xff;
    text[at + 1] = 0xfe;
    const file = write(directory, 'latin.jsonl', text);
    const result = await cli(['import', file, '--db', join(directory, 'o.db'), '--verbose']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      '  repairs: 1 lines with invalid UTF-8 replaced (U+FFFD)\n    line 2: bytes that are not UTF-8 were replaced with U+FFFD (the replacement character)\n',
    );
    const json = await cli(['import', file, '--db', join(directory, 'o.db'), '--json']);
    expect(JSON.parse(json.stdout).repairs).toEqual([
      {
        kind: 'invalid_utf8_replaced',
        message: 'bytes that are not UTF-8 were replaced with U+FFFD (the replacement character)',
        location: 'line 2',
      },
    ]);
  });

  it('replays parallel tool calls of one streamed Claude Code message as one model call', async () => {
    const fixture = fileURLToPath(
      new URL('../../src/importers/fixtures/claude-code-parallel-tools.jsonl', import.meta.url),
    );
    const result = await cli(['replay', fixture, '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ events: 8, modelCalls: 3, orphans: 0 });
  });
});

describe('orrery import: flags', () => {
  async function importWith(args: string[], env: Record<string, string> = {}) {
    const directory = tempDir();
    const file = write(directory, 'chat.jsonl', `${line(question)}\n${line(answer)}\n`);
    const db = join(directory, 'o.db');
    const result = await cli(['import', file, ...args], { env: { ORRERY_DB: db, ...env } });
    return { ...result, stored: existsSync(db) };
  }

  it('refuses --run N on a single-run file, naming --run and the run count', async () => {
    const result = await importWith(['--run', '3']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'orrery: ImportError: run 3 (--run 3) does not exist: chat.jsonl holds a single run (only --run 0; leave --run out)\n',
    );
    expect(result.stored).toBe(false);
  });

  it('refuses an empty --db or ORRERY_DB as a usage error, storing nothing', async () => {
    const flag = await importWith(['--db', '']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/^orrery: CliUsageError: --db is empty/);
    const variable = await importWith([], { ORRERY_DB: '' });
    expect(variable.code).toBe(2);
    expect(variable.stderr).toMatch(/^orrery: CliUsageError: ORRERY_DB is empty/);
  });

  it('exits 2 for an unknown --format, an empty --agent or --session, naming the flag', async () => {
    const format = await importWith(['--format', 'xml']);
    expect(format.code).toBe(2);
    expect(format.stderr).toBe(
      'orrery: CliUsageError: --format: unknown format "xml" (expected auto, adk, openai-chat, claude-code, swe-agent, ai-sdk)\n',
    );
    const agent = await importWith(['--agent', '']);
    expect(agent.code).toBe(2);
    expect(agent.stderr).toBe(
      'orrery: CliUsageError: --agent must name the agent (the author of the model events), got ""\n',
    );
    const session = await importWith(['--session', '']);
    expect(session.code).toBe(2);
    expect(session.stderr).toBe(
      'orrery: CliUsageError: --session must be a non-empty string, got ""\n',
    );
    for (const result of [format, agent, session]) expect(result.stored).toBe(false);
  });
});
