/**
 * Writes a large Claude Code JSONL transcript for the memory bench, streamed (never held whole):
 * cycles of a user request, an assistant `tool_use`, its `tool_result` (`resultBytes` of log
 * lines) and an assistant answer, four events a cycle. Deterministic: the same file every run.
 */

import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

export interface TranscriptFileOptions {
  path: string;
  /** Stop once this many events are written (a multiple of 4). */
  events?: number;
  /** Stop once at least this many bytes are written. */
  bytes?: number;
  /** Size of each tool result's text. */
  resultBytes: number;
}

const sessionId = '6c1f2e0a-4b7d-4f1e-9a3c-2d8e5b7a9c10';

function uuid(index: number): string {
  return `95813533-2b3b-4307-a9cb-${String(index).padStart(12, '0')}`;
}

function logText(cycle: number, bytes: number): string {
  const lines: string[] = [];
  let length = 0;
  for (let line = 0; length < bytes; line++) {
    const text = `2025-06-11T14:${String(line % 60).padStart(2, '0')}:00Z svc-${cycle} WARN retrying request ${line} after 503 from upstream`;
    lines.push(text);
    length += text.length + 1;
  }
  return lines.join('\n').slice(0, bytes);
}

/** The four records of one cycle, as Claude Code writes them. */
function cycleRecords(cycle: number, resultBytes: number): string[] {
  const first = cycle * 4;
  const timestamp = (offset: number) =>
    new Date(Date.UTC(2025, 5, 11, 14) + (first + offset) * 1_000).toISOString();
  const common = (offset: number) => ({
    parentUuid: first + offset === 0 ? null : uuid(first + offset - 1),
    userType: 'external',
    cwd: '/home/oncall/checkout',
    sessionId,
    version: '1.0.83',
    type: offset % 2 === 0 ? 'user' : 'assistant',
    timestamp: timestamp(offset),
    isSidechain: false,
    uuid: uuid(first + offset),
  });
  const toolId = `toolu_${String(cycle).padStart(20, '0')}`;
  const assistant = (offset: number, content: unknown[]) => ({
    ...common(offset),
    message: {
      id: `msg_${String(first + offset).padStart(20, '0')}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content,
      stop_reason: null,
      usage: { input_tokens: 4, cache_read_input_tokens: 18_400, output_tokens: 120 },
    },
  });
  return [
    {
      ...common(0),
      message: { role: 'user', content: `Check service ${cycle} and summarize its deploy errors.` },
    },
    assistant(1, [
      {
        type: 'tool_use',
        id: toolId,
        name: 'Bash',
        input: { command: `kubectl logs deploy/svc-${cycle} --tail=200` },
      },
    ]),
    {
      ...common(2),
      message: {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: toolId, content: logText(cycle, resultBytes) },
        ],
      },
    },
    assistant(3, [
      {
        type: 'text',
        text: `Service ${cycle}: retried 503s from its upstream, no failed requests.`,
      },
    ]),
  ].map((record) => `${JSON.stringify(record)}\n`);
}

/** Writes the file; returns the events and bytes written. */
export async function writeTranscriptFile(
  options: TranscriptFileOptions,
): Promise<{ events: number; bytes: number }> {
  const stream = createWriteStream(options.path);
  let bytes = 0;
  let events = 0;
  const done = () =>
    (options.events !== undefined && events >= options.events) ||
    (options.bytes !== undefined && bytes >= options.bytes);
  for (let cycle = 0; !done(); cycle++) {
    for (const line of cycleRecords(cycle, options.resultBytes)) {
      bytes += Buffer.byteLength(line);
      events++;
      if (!stream.write(line)) await once(stream, 'drain');
    }
  }
  stream.end();
  await once(stream, 'finish');
  return { events, bytes };
}
