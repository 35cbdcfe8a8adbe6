import { describe, expect, it } from 'vitest';
import type { EventsSummarizer, SummarizeOptions, Summary } from '../../compaction/types.js';
import type { Content, Event } from '../../events/types.js';
import { type ChunkProgress, summarizeInChunks } from './chunked-summary.js';

function events(count: number): Event[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `event-${index + 1}`,
    invocationId: 'invocation',
    author: 'user',
    timestamp: index,
    seq: index + 1,
    content: { role: 'user', parts: [{ text: `m${index + 1}` }] },
    actions: {},
  }));
}

/** Records each call; its summary names the last seq it read. */
function recording(answer?: (call: number) => Summary | null) {
  const calls: { seqs: number[]; previous?: string }[] = [];
  const summarizer: EventsSummarizer = {
    name: 'recording',
    summarize: async (options: SummarizeOptions) => {
      calls.push({
        seqs: options.events.map((event) => event.seq),
        previous: options.previousSummary?.parts[0]?.text,
      });
      const custom = answer?.(calls.length);
      if (custom !== undefined) return custom;
      const last = options.events.at(-1)?.seq;
      return {
        content: { role: 'model', parts: [{ text: `through ${last}` }] },
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2, totalTokenCount: 12 },
      };
    },
  };
  return { summarizer, calls };
}

const previousSummary: Content = { role: 'model', parts: [{ text: 'earlier' }] };

describe('summarizeInChunks', () => {
  it('summarizes a long window chunk by chunk, each seeded with the summary so far', async () => {
    const { summarizer, calls } = recording();
    const progress: ChunkProgress[] = [];
    const summary = await summarizeInChunks({
      summarizer,
      events: events(12_000),
      previousSummary,
      timeoutMs: 10_000,
      chunkEvents: 5_000,
      onProgress: (step) => progress.push(step),
    });
    expect(calls.map((call) => [call.seqs[0], call.seqs.at(-1), call.previous])).toEqual([
      [1, 5_000, 'earlier'],
      [5_001, 10_000, 'through 5000'],
      [10_001, 12_000, 'through 10000'],
    ]);
    expect(summary?.content.parts[0]?.text).toBe('through 12000');
    expect(summary?.usageMetadata).toEqual({
      promptTokenCount: 30,
      candidatesTokenCount: 6,
      totalTokenCount: 36,
    });
    expect(progress.map((step) => [step.chunk, step.chunks, step.eventsDone, step.events])).toEqual(
      [
        [1, 3, 5_000, 12_000],
        [2, 3, 10_000, 12_000],
        [3, 3, 12_000, 12_000],
      ],
    );
  });

  it('makes one call, with no progress, for a window within one chunk', async () => {
    const { summarizer, calls } = recording();
    const progress: ChunkProgress[] = [];
    await summarizeInChunks({
      summarizer,
      events: events(5_000),
      timeoutMs: 10_000,
      chunkEvents: 5_000,
      onProgress: (step) => progress.push(step),
    });
    expect(calls).toHaveLength(1);
    expect(progress).toEqual([]);
  });

  it('carries the summary so far over a chunk the summarizer skips', async () => {
    const { summarizer, calls } = recording((call) => (call === 2 ? null : undefined) as never);
    const summary = await summarizeInChunks({
      summarizer,
      events: events(30),
      timeoutMs: 10_000,
      chunkEvents: 10,
    });
    expect(calls.map((call) => call.previous)).toEqual([undefined, 'through 10', 'through 10']);
    expect(summary?.content.parts[0]?.text).toBe('through 30');
  });

  it('stops between chunks when the signal aborts', async () => {
    const controller = new AbortController();
    const { summarizer, calls } = recording();
    const pending = summarizeInChunks({
      summarizer,
      events: events(30),
      timeoutMs: 10_000,
      chunkEvents: 10,
      signal: controller.signal,
      onProgress: () => controller.abort(new Error('stop')),
    });
    await expect(pending).rejects.toThrow('stop');
    expect(calls).toHaveLength(1);
  });

  it('refuses an empty summary', async () => {
    const { summarizer } = recording(() => ({
      content: { role: 'model', parts: [{ text: ' ' }] },
    }));
    await expect(
      summarizeInChunks({ summarizer, events: events(3), timeoutMs: 10_000 }),
    ).rejects.toThrow('empty summary');
  });
});

describe('the first compaction of a long backlog, through the Runner', () => {
  it('logs its progress chunk by chunk', async () => {
    const { default: pino } = await import('pino');
    const { InMemorySessionService } = await import('../../sessions/in-memory-session-service.js');
    const { DigestSummarizer } = await import('../../summarizers/digest-summarizer.js');
    const { ScriptedModel, textResponse } = await import('../../testing/scripted-model.js');
    const { LlmAgent } = await import('../agents/llm-agent.js');
    const { Runner } = await import('../turn/runner.js');
    const service = new InMemorySessionService();
    const key = { appName: 'app', userId: 'user', sessionId: 'imported' };
    await service.importSession?.({
      ...key,
      events: events(12_000).map(({ seq: _seq, ...event }) => ({
        ...event,
        invocationId: `invocation-${event.timestamp}`,
      })),
    });
    const lines: string[] = [];
    const runner = new Runner({
      appName: key.appName,
      agent: new LlmAgent({
        name: 'agent',
        model: new ScriptedModel({ script: [textResponse('ok')] }),
      }),
      sessionService: service,
      compaction: { tokenThreshold: 1_000, eventRetentionSize: 10 },
      summarizer: new DigestSummarizer(),
      logger: pino({ level: 'info' }, { write: (line: string) => lines.push(line) }),
    });
    for await (const _event of runner.run({ ...key, newMessage: 'next' })) {
      // drained
    }
    const progress = lines
      .map((line) => JSON.parse(line))
      .filter((line) => line.msgType === 'compaction_progress');
    expect(progress.map((line) => [line.chunk, line.chunks])).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    expect(progress.at(-1)).toMatchObject({
      summarizer: 'digest',
      eventsDone: progress.at(-1)?.events,
    });
    expect((await service.loadView(key)).checkpoint).toBeDefined();
  });
});
