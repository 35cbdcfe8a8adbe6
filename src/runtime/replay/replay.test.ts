import { describe, expect, it } from 'vitest';
import { createEventsCompactionConfig } from '../../compaction/config.js';
import { estimateContentListTokens } from '../../compaction/token-estimate.js';
import { assembleView } from '../../compaction/view.js';
import { createEvent, isCompactionEvent } from '../../events/event-helpers.js';
import type { Content, Event, NewEvent } from '../../events/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import type { SessionService } from '../../sessions/session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { longTranscript } from '../../testing/long-transcript.js';
import { RunnerConfigError } from '../errors.js';
import { hasUnpaired, isRecordedModelCall, replayTranscript } from './replay.js';

/** `turns` invocations: a question, a tool call, a bulky tool result, an answer. */
function transcript(turns: number): NewEvent[] {
  const events: NewEvent[] = [];
  let time = 1_700_000_000;
  for (let turn = 1; turn <= turns; turn++) {
    const invocationId = `inv-${turn}`;
    const at = () => (time += 1);
    events.push(
      createEvent({
        author: 'user',
        invocationId,
        timestamp: at(),
        content: { role: 'user', parts: [{ text: `Check host ${turn}` }] },
      }),
      createEvent({
        author: 'agent',
        invocationId,
        timestamp: at(),
        content: {
          role: 'model',
          parts: [{ functionCall: { id: `call-${turn}`, name: 'read_log', args: { turn } } }],
        },
        // Recorded usage must not steer the replay's triggers.
        usageMetadata: { promptTokenCount: 1 },
      }),
      createEvent({
        author: 'agent',
        invocationId,
        timestamp: at(),
        content: {
          role: 'user',
          parts: [
            {
              functionResponse: {
                id: `call-${turn}`,
                name: 'read_log',
                response: { result: `log line ${turn} `.repeat(120) },
              },
            },
          ],
        },
      }),
      createEvent({
        author: 'agent',
        invocationId,
        timestamp: at(),
        content: { role: 'model', parts: [{ text: `Host ${turn} is healthy.` }] },
      }),
    );
  }
  return events;
}

const summarizer = new DigestSummarizer();

function tokenConfig(tokenThreshold: number) {
  const config = createEventsCompactionConfig({
    env: {},
    tokenThreshold,
    eventRetentionSize: 2,
    compactionInterval: 0,
    summarizer,
  });
  if (!config) throw new Error('expected a config');
  return config;
}

/** A store that rewrites the text of one appended event: replay must notice. */
function alteringStore(inner: SessionService, text: string): SessionService {
  return {
    createSession: (options) => inner.createSession(options),
    getSession: (options) => inner.getSession(options),
    loadView: (options) => inner.loadView(options),
    listEvents: (options) => inner.listEvents(options),
    appendEvent: (options) => {
      const parts = options.event.content?.parts;
      if (parts?.[0]?.text === text) {
        return inner.appendEvent({
          ...options,
          event: {
            ...options.event,
            content: { role: 'model', parts: [{ text: `${text} (edited)` }] },
          },
        });
      }
      return inner.appendEvent(options);
    },
    appendCompaction: (options) => inner.appendCompaction(options),
    listSessions: (options) => inner.listSessions(options),
    deleteSession: (options) => inner.deleteSession(options),
  };
}

describe('replayTranscript', () => {
  it('compacts at the threshold, keeps every request paired, and stores the history unchanged', async () => {
    const events = transcript(8);
    // 900, not 800: each digest item names its seq (`[seq N]`), which on these tiny items
    // (`Check host 3`) brings the view to 837 estimated tokens.
    const threshold = 900;
    const sessionService = new InMemorySessionService();
    const report = await replayTranscript({
      events,
      config: tokenConfig(threshold),
      sessionService,
      appName: 'app',
      userId: 'u',
      sessionId: 'replayed',
    });

    expect(report.sessionId).toBe('replayed');
    expect(report.events).toBe(events.length);
    // Two model-authored events per turn: the tool call and the answer.
    expect(report.modelCalls).toBe(16);
    expect(report.requests).toHaveLength(16);
    expect(report.compactions.length).toBeGreaterThan(0);
    for (const compaction of report.compactions) {
      expect(compaction.trigger).toBe('token_threshold');
      expect(compaction.tokensBefore).toBeGreaterThanOrEqual(threshold);
      expect(compaction.tokensAfter).toBeLessThan(compaction.tokensBefore);
      expect(compaction.endSeq).toBeLessThanOrEqual(events.length);
      expect(compaction.startSeq).toBeLessThanOrEqual(compaction.endSeq);
    }
    // The first compaction runs right before the first request that would reach the threshold.
    const first = report.compactions[0]!;
    const firstOver = report.requests.findIndex(
      (request) => request.withoutCompaction >= threshold,
    );
    expect(first.beforeCall).toBe(firstOver + 1);
    for (const request of report.requests.slice(0, first.beforeCall - 1)) {
      expect(request.withCompaction).toBe(request.withoutCompaction);
    }
    const largestWithout = Math.max(...report.requests.map((r) => r.withoutCompaction));
    expect(largestWithout).toBeGreaterThan(2 * threshold);
    expect(report.maxViewTokens).toBeLessThan(threshold);
    expect(report.tokens.withCompaction).toBeLessThan(report.tokens.withoutCompaction);
    expect(report.tokens.withCompaction).toBe(
      report.requests.reduce((total, request) => total + request.withCompaction, 0),
    );
    expect(report.orphans).toBe(0);
    expect(report.lossless).toBe(true);
    expect(report.failures).toEqual([]);

    // The compactions landed in the given store, next to every original event.
    const key = { appName: 'app', userId: 'u', sessionId: 'replayed' };
    const view = await sessionService.loadView(key);
    expect(view.checkpoint?.actions.compaction.summarizer).toBe(summarizer.name);
    const page = await sessionService.listEvents({ ...key, limit: 1000 });
    expect(page.events.filter((event) => !isCompactionEvent(event))).toHaveLength(events.length);
    expect(page.events.filter((event) => isCompactionEvent(event))).toHaveLength(
      report.compactions.length,
    );
  });

  it('does not compact under the threshold, and reports the system instruction as overhead', async () => {
    const events = transcript(2);
    const bare = await replayTranscript({ events, config: tokenConfig(1_000_000) });
    const instructed = await replayTranscript({
      events,
      config: tokenConfig(1_000_000),
      systemInstruction: 'You are an on-call assistant. '.repeat(20),
    });
    expect(bare.compactions).toEqual([]);
    for (const request of bare.requests) {
      expect(request.withCompaction).toBe(request.withoutCompaction);
    }
    expect(bare.overheadTokens).toBe(0);
    expect(instructed.overheadTokens).toBeGreaterThan(0);
    expect(instructed.requests[0]!.withCompaction).toBe(
      bare.requests[0]!.withCompaction + instructed.overheadTokens,
    );
    // Each call gets its own session by default.
    expect(instructed.sessionId).not.toBe(bare.sessionId);
  });

  it('runs the sliding window after invocations', async () => {
    const config = createEventsCompactionConfig({
      env: {},
      tokenThreshold: 0,
      compactionInterval: 2,
      overlapSize: 0,
      summarizer,
    });
    const report = await replayTranscript({ events: transcript(4), config: config! });
    expect(report.compactions.map((compaction) => compaction.trigger)).toEqual([
      'sliding_window',
      'sliding_window',
    ]);
    // The first window closes with invocation 2 (events 1-8), checked when invocation 3 starts.
    expect(report.compactions[0]).toMatchObject({ startSeq: 1, endSeq: 8, beforeCall: 5 });
    expect(report.compactions[1]).toMatchObject({ endSeq: 16, beforeCall: 9 });
    expect(report.orphans).toBe(0);
    expect(report.lossless).toBe(true);
  });

  it('reports lossless false when the store does not keep an event as given', async () => {
    const report = await replayTranscript({
      events: transcript(3),
      config: tokenConfig(1500),
      sessionService: alteringStore(new InMemorySessionService(), 'Host 2 is healthy.'),
    });
    expect(report.lossless).toBe(false);
    const control = await replayTranscript({
      events: transcript(3),
      config: tokenConfig(1500),
      sessionService: alteringStore(new InMemorySessionService(), 'no such text'),
    });
    expect(control.lossless).toBe(true);
  });

  it('leaves recorded compactions out, needs a summarizer, and stops on abort', async () => {
    const events = transcript(2);
    const recorded: NewEvent = createEvent({
      author: 'user',
      invocationId: 'old-compaction',
      actions: {
        compaction: {
          startSeq: 1,
          endSeq: 4,
          startTimestamp: 0,
          endTimestamp: 1,
          compactedContent: { role: 'model', parts: [{ text: 'old summary' }] },
          trigger: 'manual',
          tokensBefore: 100,
          tokensAfter: 10,
          summarizer: 'digest',
        },
      },
    });
    const report = await replayTranscript({
      events: [...events.slice(0, 4), recorded, ...events.slice(4)],
      config: tokenConfig(1_000_000),
    });
    expect(report.recordedCompactionsIgnored).toBe(1);
    expect(report.events).toBe(events.length);
    expect(report.lossless).toBe(true);

    const { summarizer: _summarizer, ...withoutSummarizer } = tokenConfig(1500);
    await expect(replayTranscript({ events, config: withoutSummarizer })).rejects.toThrow(
      RunnerConfigError,
    );
    await expect(replayTranscript({ events, config: withoutSummarizer })).rejects.toThrow(
      /summarizer/,
    );

    const controller = new AbortController();
    controller.abort();
    await expect(
      replayTranscript({ events, config: tokenConfig(1500), signal: controller.signal }),
    ).rejects.toThrow();
  });
});

/** A store that counts the reads replay makes. */
function countingStore(inner: SessionService) {
  const reads = { loadView: 0, listEvents: 0 };
  const service: SessionService = {
    createSession: (options) => inner.createSession(options),
    getSession: (options) => inner.getSession(options),
    loadView: (options) => {
      reads.loadView++;
      return inner.loadView(options);
    },
    listEvents: (options) => {
      reads.listEvents++;
      return inner.listEvents(options);
    },
    appendEvent: (options) => inner.appendEvent(options),
    appendCompaction: (options) => inner.appendCompaction(options),
    listSessions: (options) => inner.listSessions(options),
    deleteSession: (options) => inner.deleteSession(options),
  };
  return { service, reads };
}

describe('replayTranscript on a long transcript', () => {
  it('reads the view only after a compaction wrote, not before every model call', async () => {
    const { service, reads } = countingStore(new InMemorySessionService());
    const report = await replayTranscript({
      events: longTranscript({ events: 600, seed: 3 }),
      config: tokenConfig(6_000),
      sessionService: service,
    });
    expect(report.modelCalls).toBeGreaterThan(250);
    expect(report.compactions.length).toBeGreaterThan(5);
    expect(report.lossless).toBe(true);
    // One read at the start and one after each compaction; never one per model call.
    expect(reads.loadView).toBeLessThanOrEqual(report.compactions.length + 1);
  });

  it('counts each request without compaction as the whole history assembled', async () => {
    const events = longTranscript({ events: 160, seed: 5 });
    const report = await replayTranscript({ events, config: tokenConfig(4_000) });
    const session = new InMemorySessionService();
    const key = { appName: 'a', userId: 'u', sessionId: 's' };
    await session.createSession(key);
    const expected: number[] = [];
    const stored: Event[] = [];
    for (const event of events) {
      if (isRecordedModelCall(event)) {
        const contents = assembleView({ tail: stored }).contents;
        expected.push(report.overheadTokens + estimateContentListTokens(contents));
      }
      stored.push(await session.appendEvent({ ...key, event }));
    }
    expect(report.requests.map((request) => request.withoutCompaction)).toEqual(expected);
  });
});

describe('hasUnpaired', () => {
  const call = (id: string): Content => ({
    role: 'model',
    parts: [{ functionCall: { id, name: 'tool', args: {} } }],
  });
  const response = (id: string): Content => ({
    role: 'user',
    parts: [{ functionResponse: { id, name: 'tool', response: {} } }],
  });
  const text = (role: 'user' | 'model', value: string): Content => ({
    role,
    parts: [{ text: value }],
  });

  it('accepts answered calls and a pending call in the last model turn', () => {
    expect(hasUnpaired([text('user', 'hi'), call('a'), response('a'), text('model', 'ok')])).toBe(
      false,
    );
    expect(hasUnpaired([text('user', 'hi'), call('a')])).toBe(false);
  });

  it('flags a response without its call and a call nobody answered', () => {
    expect(hasUnpaired([text('user', 'hi'), response('a')])).toBe(true);
    expect(hasUnpaired([text('user', 'hi'), call('a'), text('user', 'next')])).toBe(true);
    expect(hasUnpaired([call('a'), response('a'), response('a')])).toBe(true);
  });
});
