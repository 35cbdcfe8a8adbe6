import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../events/types.js';
import { ImportError } from './errors.js';
import { importTranscriptFile } from './import-file.js';
import { importTranscripts } from './import-transcript.js';
import { JsonStreamError, RecordTooLargeError } from './stream-errors.js';
import type { StreamedImport } from './streamed-import.js';
import type { ImportFormat, ImportResult } from './types.js';

const fixture = fileURLToPath(
  new URL('./fixtures/claude-code-parallel-tools.jsonl', import.meta.url),
);
const line = (record: object) => JSON.stringify(record);
const at = (second: number) => `2025-06-01T10:00:${String(second).padStart(2, '0')}.000Z`;

const claudeCode = [
  line({ type: 'summary', summary: 'Earlier work' }),
  line({
    type: 'user',
    sessionId: 's-1',
    timestamp: at(0),
    message: { role: 'user', content: 'Why?' },
  }),
  line({
    type: 'assistant',
    timestamp: at(1),
    message: {
      id: 'm1',
      role: 'assistant',
      model: 'claude-x',
      content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }],
    },
  }),
  line({
    type: 'user',
    timestamp: at(2),
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
  }),
  line({
    type: 'assistant',
    timestamp: at(1),
    message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'and then' }] },
  }),
  line({
    type: 'assistant',
    message: {
      id: 'm2',
      role: 'assistant',
      content: [{ type: 'tool_use', name: 'Read', input: {} }],
    },
  }),
  line({ type: 'user', message: { role: 'user', content: 'next question' } }),
];

const chat = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Is [checkout] up? "yes" \\ no' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: 'c1',
        type: 'function',
        function: { name: 'status', arguments: '{"service":"checkout"}' },
      },
    ],
  },
  { role: 'tool', tool_call_id: 'c1', content: 'up' },
  { role: 'tool', content: 'orphan result' },
  { role: 'system', content: 'Mid-conversation rule.' },
  { role: 'assistant', content: 'It is up.' },
];

const runs = [0, 1, 2].map((index) => ({
  task_id: index,
  trial: 0,
  traj: [
    { role: 'user', content: `task ${index}` },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'c', content: 'done' },
  ],
}));

function file(name: string, content: string | Uint8Array): string {
  const path = join(mkdtempSync(join(tmpdir(), 'orrery-import-file-')), name);
  writeFileSync(path, content);
  return path;
}

async function collect(imported: StreamedImport): Promise<NewEvent[]> {
  const events: NewEvent[] = [];
  for await (const event of imported.events()) events.push(event);
  return events;
}

/** Ids are random per pass: numbered in order of first use, so two imports compare. */
function normalize(events: NewEvent[]): unknown[] {
  const ids = new Map<string, number>();
  const number = (id: string) => {
    if (!ids.has(id)) ids.set(id, ids.size);
    return ids.get(id);
  };
  return events.map((event) => ({
    ...event,
    id: number(event.id),
    invocationId: number(event.invocationId),
  }));
}

/** The streamed import and the whole-text one give the same sessions. */
async function expectSame(
  path: string,
  options: { format?: ImportFormat | 'auto'; run?: number; source?: 'file' | 'memory' } = {},
): Promise<StreamedImport[]> {
  const startTime = 1_700_000_000;
  const streamed = await importTranscriptFile({ path, fileName: 'input', startTime, ...options });
  const { source: _source, ...whole } = options;
  const expected: ImportResult[] = importTranscripts({
    text: readFileSync(path),
    fileName: 'input',
    startTime,
    ...whole,
  });
  expect(streamed).toHaveLength(expected.length);
  for (const [index, result] of expected.entries()) {
    const imported = streamed[index] as StreamedImport;
    if (options.source) expect(imported.source).toBe(options.source);
    expect(imported.meta).toEqual(result.meta);
    expect(imported.repairs).toEqual(result.repairs);
    const events = await collect(imported);
    expect(normalize(events)).toEqual(normalize(result.events));
    expect(imported.stats.events).toBe(result.events.length);
    expect(imported.stats.modelCalls).toBe(
      result.events.filter((event) => event.content?.role === 'model').length,
    );
    expect(imported.stats.invocations).toBe(
      new Set(result.events.map((event) => event.invocationId)).size,
    );
  }
  return streamed;
}

describe('importTranscriptFile: the same sessions as the whole-text import', () => {
  it('Claude Code JSONL: merged records, interleaved results, repairs, meta', async () => {
    await expectSame(file('s.jsonl', `${claudeCode.join('\n')}\n`), { source: 'file' });
    await expectSame(fixture, { source: 'file' });
  });

  it('Claude Code JSONL with CRLF line ends, no final newline and no .jsonl name', async () => {
    await expectSame(file('s.log', claudeCode.join('\r\n')), { source: 'file' });
  });

  it('Claude Code without a main line (a sub-agent saved alone), and with bytes that are not UTF-8', async () => {
    const sidechain = claudeCode.map((text) =>
      text.replace('{"type"', '{"isSidechain":true,"type"'),
    );
    await expectSame(file('side.jsonl', sidechain.join('\n')), { source: 'file' });
    const bytes = Buffer.from(`${claudeCode.join('\n').replace('Why?', 'Why#')}\n`);
    bytes[bytes.indexOf('#')] = 0xff;
    const [bad] = await expectSame(file('bad.jsonl', bytes), { source: 'file' });
    expect(bad?.repairs[0]).toMatchObject({ kind: 'invalid_utf8_replaced', location: 'line 2' });
  });

  it('an OpenAI chat array, streamed element by element', async () => {
    await expectSame(file('chat.json', JSON.stringify(chat, null, 2)), { source: 'file' });
    await expectSame(file('chat.json', `\uFEFF${JSON.stringify(chat)}`), {
      format: 'openai-chat',
      source: 'file',
    });
  });

  it('tau-bench runs: every run, or the one picked', async () => {
    const path = file('runs.json', JSON.stringify(runs));
    const all = await expectSame(path, { source: 'file' });
    expect(all.map((imported) => imported.meta.run)).toEqual([0, 1, 2]);
    await expectSame(path, { run: 2, source: 'file' });
    await expect(importTranscriptFile({ path, fileName: 'runs.json', run: 3 })).rejects.toThrow(
      'run 3 (--run 3) does not exist: runs.json holds 3 runs (--run 0 to 2)',
    );
    await expectSame(file('one.json', JSON.stringify(runs.slice(0, 1))), { source: 'file' });
  });

  it('whole documents (ADK, objects with messages) are read whole', async () => {
    const adk = {
      id: 's',
      events: [
        {
          id: 'e1',
          invocationId: 'i',
          author: 'user',
          timestamp: 1,
          content: { role: 'user', parts: [{ text: 'hi' }] },
        },
      ],
    };
    await expectSame(file('adk.json', JSON.stringify(adk)), { source: 'memory' });
    await expectSame(file('o.json', JSON.stringify({ messages: chat })), { source: 'memory' });
  });
});

describe('importTranscriptFile: refusals', () => {
  it('a JSONL line over maxRecordBytes is a RecordTooLargeError naming file and line', async () => {
    const path = file(
      'big.jsonl',
      `${claudeCode[1]}\n${claudeCode[2]}\n${line({ type: 'user', message: { role: 'user', content: 'x'.repeat(5000) } })}\n`,
    );
    const error = await importTranscriptFile({
      path,
      fileName: 'big.jsonl',
      maxRecordBytes: 1000,
    }).catch((caught: unknown) => caught);
    expect(RecordTooLargeError.isInstance(error)).toBe(true);
    expect((error as RecordTooLargeError).message).toMatch(
      /^big\.jsonl, line 3: the record starting at byte \d+ is larger than 1000 bytes/,
    );
  });

  it('a truncated JSON array is a JsonStreamError naming the byte offset', async () => {
    const text = JSON.stringify(chat).slice(0, -20);
    const path = file('cut.json', text);
    const error = await importTranscriptFile({
      path,
      fileName: 'cut.json',
      format: 'openai-chat',
    }).catch((caught: unknown) => caught);
    expect(JsonStreamError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ offset: Buffer.byteLength(text), file: 'cut.json' });
  });

  it('a broken line is an ImportError naming the file and line', async () => {
    const path = file('broken.jsonl', `${claudeCode[1]}\n{"type":\n`);
    await expect(importTranscriptFile({ path, fileName: 'broken.jsonl' })).rejects.toSatisfy(
      (error: unknown) =>
        ImportError.isInstance(error) && error.line === 2 && error.file === 'broken.jsonl',
    );
  });

  it('an empty file and a missing one', async () => {
    await expect(
      importTranscriptFile({ path: file('e.jsonl', '\n \n'), fileName: 'e.jsonl' }),
    ).rejects.toThrow('e.jsonl is empty');
    await expect(importTranscriptFile({ path: '/nonexistent/x.jsonl' })).rejects.toThrow(
      'file not found: /nonexistent/x.jsonl',
    );
  });
});
