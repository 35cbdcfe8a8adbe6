import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { toAdkSessionJson } from '../events/adk-json.js';
import type { NewEvent } from '../events/types.js';
import { compactionEvent, modelTextEvent, userTextEvent } from '../testing/event-builders.js';
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

  it('ADK sessions (every dialect fixture, an orrery export, an array of events) stream', async () => {
    const folder = fileURLToPath(new URL('../events/fixtures/', import.meta.url));
    const names = readdirSync(folder).filter((name) => name.endsWith('.json'));
    expect(names.length).toBeGreaterThan(5);
    for (const name of names) {
      const path = join(folder, name);
      const whole = (() => {
        try {
          return importTranscripts({ text: readFileSync(path), fileName: 'input', format: 'adk' });
        } catch (error) {
          return error as Error;
        }
      })();
      if (whole instanceof Error) {
        await expect(
          importTranscriptFile({ path, fileName: 'input', format: 'adk' }),
        ).rejects.toThrow(whole.message);
      } else {
        await expectSame(path, { format: 'adk', source: 'file' });
      }
    }
    // Numbered 5, 6, 8, 9, then a compaction of 5-8: its range is renumbered as positions.
    const stored: Array<NewEvent & { seq: number }> = [
      { ...userTextEvent({ text: 'first', timestamp: 1 }), seq: 5 },
      { ...modelTextEvent({ text: 'answer', timestamp: 2 }), seq: 6 },
      { ...userTextEvent({ text: 'second', timestamp: 3 }), seq: 8 },
      { ...modelTextEvent({ text: 'answer 2', timestamp: 4 }), seq: 9 },
      { ...compactionEvent({ startSeq: 5, endSeq: 8, timestamp: 5 }), seq: 10 },
      { ...userTextEvent({ text: 'kept', timestamp: 6 }), seq: 11 },
    ];
    const adk = toAdkSessionJson({
      session: { sessionId: 's', state: { k: 1 } },
      events: stored,
      casing: 'snake',
    });
    const [renumbered] = await expectSame(file('adk.json', JSON.stringify(adk, null, 1)), {
      source: 'file',
    });
    expect(renumbered?.repairs).toEqual([
      expect.objectContaining({ kind: 'compaction_range_renumbered' }),
    ]);
    // orrery's own export: the session's fields after its events, events with `seq`.
    const orrery = {
      appName: 'a',
      userId: 'u',
      sessionId: 's',
      events: stored,
      state: { k: 2 },
      lastUpdateTime: 7,
    };
    await expectSame(file('orrery.json', JSON.stringify(orrery)), { source: 'file' });
    await expectSame(file('events.json', JSON.stringify(adk.events)), { source: 'file' });
  });

  it('other documents (SWE-agent, objects with messages) are read whole', async () => {
    await expectSame(file('o.json', JSON.stringify({ messages: chat })), { source: 'memory' });
    const swe = {
      history: [
        { role: 'user', content: 'fix it' },
        { role: 'assistant', content: 'done' },
      ],
    };
    await expectSame(file('t.json', JSON.stringify(swe)), { source: 'memory' });
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

  it('a broken array element is an ImportError naming the file, the element and its byte', async () => {
    // The splitter finds the element; parsing it (`parseJsonRecord`) refuses `tru`.
    const openAi = `[${JSON.stringify(chat[1])}, {"role": tru}]`;
    const adk = '{"appName": "a", "events": [{"id": tru}]}';
    for (const [name, text, format, path] of [
      ['chat.json', openAi, 'openai-chat', '[1]'],
      ['session.json', adk, 'adk', 'events[0]'],
    ] as const) {
      const error = await importTranscriptFile({ path: file(name, text), fileName: name, format })
        .then(() => undefined)
        .catch((caught: unknown) => caught);
      expect(ImportError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ file: name, path });
      const offset = Buffer.byteLength(text.slice(0, text.lastIndexOf('{')));
      expect((error as Error).message).toContain(`in the value starting at byte ${offset}`);
    }
  });

  it('an aborted signal stops the reading with its reason (streamed and whole)', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stopped by SIGINT'));
    // Streamed (Claude Code), and read whole (SWE-agent: no sniffing read first).
    for (const [name, content, format] of [
      ['s.jsonl', claudeCode.join('\n'), 'claude-code'],
      ['t.traj', JSON.stringify({ history: [] }), 'swe-agent'],
    ] as const) {
      await expect(
        importTranscriptFile({ path: file(name, content), format, signal: controller.signal }),
      ).rejects.toThrow('stopped by SIGINT');
    }
  });

  it('JSON lines of no known format: the same refusal as the whole-text sniffer', async () => {
    const text = `${line({ messages: chat })}\n${line({ messages: chat })}\n`;
    const path = file('ft.jsonl', text);
    expect(() => importTranscripts({ text, fileName: 'ft.jsonl' })).toThrow(
      'cannot tell the format of ft.jsonl: it is neither JSON nor JSON lines; pass --format',
    );
    await expect(importTranscriptFile({ path, fileName: 'ft.jsonl' })).rejects.toThrow(
      'cannot tell the format of ft.jsonl: it is neither JSON nor JSON lines; pass --format',
    );
    // One document written an object a line (an export) is still one document.
    const lines = JSON.stringify({ id: 's', events: [] }).replace(
      '[]',
      '[\n{"id":"e1","invocationId":"i","author":"user","timestamp":1},\n{"id":"e2","invocationId":"i","author":"user","timestamp":2}]',
    );
    await expectSame(file('lines.json', lines), { source: 'file' });
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
