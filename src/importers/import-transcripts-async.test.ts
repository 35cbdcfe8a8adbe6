import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importTranscripts } from './import-transcript.js';
import { type ImportTranscriptOptions, importTranscriptsAsync } from './index.js';

/** Ids and times each import draws afresh. */
const FRESH = new Set(['id', 'invocationId', 'timestamp']);

/** Results without what each import draws afresh. */
function comparable(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, field) => (FRESH.has(key) ? undefined : field)));
}

/** What the sync call throws, or `undefined`. */
function thrownBy(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  return undefined;
}

const tau = JSON.stringify([
  {
    task_id: 1,
    traj: [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
    ],
  },
  { task_id: 2, traj: [{ role: 'user', content: 'c' }] },
]);
const adk = JSON.stringify({
  id: 's1',
  appName: 'app',
  userId: 'u',
  events: [
    {
      id: 'e1',
      invocationId: 'i1',
      author: 'user',
      timestamp: 1,
      content: { role: 'user', parts: [{ text: 'hi' }] },
    },
  ],
});
const claudeCode = readFileSync(
  join(import.meta.dirname, 'fixtures', 'claude-code-parallel-tools.jsonl'),
);

const CASES: Array<[string, ImportTranscriptOptions]> = [
  ['OpenAI chat', { text: '[{"role":"user","content":"hi"}]', fileName: 'chat.json' }],
  ['tau-bench, every run', { text: tau, fileName: 'tau.json' }],
  ['tau-bench, one run', { text: tau, fileName: 'tau.json', run: 1 }],
  [
    'invalid UTF-8',
    {
      text: Buffer.concat([
        Buffer.from('[{"role":"user","content":"h'),
        Buffer.from([0xff]),
        Buffer.from('i"}]'),
      ]),
      fileName: 'chat.json',
    },
  ],
  ['Claude Code bytes', { text: claudeCode, fileName: 'session.jsonl' }],
  ['ADK', { text: adk, fileName: 'session.json' }],
  ['ADK named', { text: adk, format: 'adk' }],
  ['SWE-agent', { text: '{"history":[{"role":"user","content":"fix it"}]}', fileName: 'a.traj' }],
  ['empty', { text: '  \n', fileName: 'empty.json' }],
  ['run past the runs', { text: tau, fileName: 'tau.json', run: 5 }],
  ['run of a single-run file', { text: adk, fileName: 'session.json', run: 1 }],
  ['unknown shape', { text: '{"foo":1}', fileName: 'x.json' }],
  ['unknown format', { text: '[]', format: 'csv' as 'adk' }],
];

describe('importTranscriptsAsync', () => {
  it.each(CASES)('%s: the same results or error as importTranscripts', async (name, options) => {
    const error = thrownBy(() => importTranscripts(options));
    if (error === undefined) {
      const results = await importTranscriptsAsync(options);
      expect(results.length).toBeGreaterThan(0);
      if (name === 'invalid UTF-8') {
        expect(results[0]?.repairs.map((repair) => repair.kind)).toContain('invalid_utf8_replaced');
      }
      expect(comparable(results)).toEqual(comparable(importTranscripts(options)));
    } else {
      await expect(importTranscriptsAsync(options)).rejects.toThrow((error as Error).message);
      await expect(importTranscriptsAsync(options)).rejects.toHaveProperty(
        'name',
        (error as Error).name,
      );
    }
  });
});
