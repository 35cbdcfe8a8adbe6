import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FunctionTool, LlmAgent, Runner } from '@google/adk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { Event } from '../../events/types.js';
import type { CompactionReport } from '../../runtime/compaction/compactor.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { PostgresSessionService } from '../../sessions/postgres/postgres-session-service.js';
import {
  describePostgres,
  useSchemaFixture,
} from '../../sessions/postgres/test-helpers/pg-test-env.js';
import type { SessionService } from '../../sessions/session-service.js';
import { SqliteSessionService } from '../../sessions/sqlite/sqlite-session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { AdapterOptionError } from '../shared/adapter-option-error.js';
import { OrreryAdkSessionService } from './orrery-adk-session-service.js';
import { findOrphans, StubLlm } from './test-helpers/stub-llm.js';

const key = { appName: 'adk-app', userId: 'user-1', sessionId: 'session-1' };
const folders: string[] = [];

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true });
});

async function allEvents(service: SessionService): Promise<Event[]> {
  const events: Event[] = [];
  let afterSeq: number | undefined;
  for (;;) {
    const page = await service.listEvents({ ...key, afterSeq, limit: 100 });
    events.push(...page.events);
    if (page.nextCursor === undefined || page.events.length === 0) return events;
    afterSeq = page.nextCursor;
  }
}

function lookupTool(): FunctionTool {
  return new FunctionTool({
    name: 'lookup',
    description: 'Looks a question up.',
    parameters: z.object({ question: z.string() }),
    execute: async ({ question }: { question: string }) => ({
      result: `Result for ${question}: ${'facts '.repeat(15)}`,
    }),
  });
}

function setup(options: { store?: SessionService } = {}) {
  const store: SessionService = options.store ?? new InMemorySessionService();
  const reports: CompactionReport[] = [];
  const sessionService = new OrreryAdkSessionService({
    sessionService: store,
    compaction: { tokenThreshold: 500, eventRetentionSize: 4 },
    summarizer: new DigestSummarizer({ maxChars: 300 }),
    onCompaction: (report) => reports.push(report),
    logger: false,
  });
  const model = new StubLlm();
  const agent = new LlmAgent({ name: 'assistant', model, tools: [lookupTool()] });
  const runner = new Runner({ appName: key.appName, agent, sessionService });
  return { store, sessionService, model, runner, reports };
}

async function turn(runner: Runner, text: string): Promise<void> {
  for await (const _event of runner.runAsync({
    userId: key.userId,
    sessionId: key.sessionId,
    newMessage: { role: 'user', parts: [{ text }] },
  })) {
    // The events are stored by the session service.
  }
}

describe('OrreryAdkSessionService through ADK-JS Runner', () => {
  const stores: Array<[string, () => SessionService]> = [
    ['in memory', () => new InMemorySessionService()],
    [
      'SQLite',
      () => {
        const folder = mkdtempSync(join(tmpdir(), 'orrery-adk-'));
        folders.push(folder);
        return new SqliteSessionService({ path: join(folder, 'orrery.db') });
      },
    ],
  ];

  it.each(stores)(
    'compacts many tool-calling turns (%s), keeps all, no orphaned call',
    async (_name, makeStore) => {
      const { store, sessionService, model, runner, reports } = setup({ store: makeStore() });
      await sessionService.createSession({ ...key });
      for (let index = 0; index < 12; index++) await turn(runner, `question ${index}`);

      const compacted = reports.filter((report) => report.outcome === 'compacted');
      expect(compacted.length).toBeGreaterThanOrEqual(2);
      expect(reports.filter((report) => report.outcome === 'failed')).toEqual([]);
      // Every event ADK produced is stored: user message, call, result, answer per turn.
      const history = await allEvents(store);
      const raw = history.filter((event) => !event.actions.compaction);
      expect(raw.length).toBe(12 * 4);
      expect(history.length - raw.length).toBe(compacted.length);
      // 24 requests (call, then answer, per turn); none has a call without its result.
      expect(model.requests.length).toBe(24);
      for (const contents of model.requests) expect(findOrphans(contents)).toEqual([]);
      // The last request starts with orrery's summary and is far below the whole history.
      const last = model.requests.at(-1)!;
      expect(last[0]?.parts?.[0]?.text).toMatch(/^\[Previous Context Summary\]:/);
      expect(last.length).toBeLessThan(raw.length / 2);
      expect(JSON.stringify(last)).toContain('question 11');
      await store.close?.();
    },
  );

  it('keeps the whole tail when every event shares one millisecond (ADK-JS drops ties)', async () => {
    // ADK-JS's view keeps only events after the summary's `endTime`; fast tools and models
    // write many events in one millisecond, so the summary must end before the tail's first.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.UTC(2026, 0, 1));
      const { sessionService, model, runner, reports } = setup();
      await sessionService.createSession({ ...key });
      for (let index = 0; index < 8; index++) await turn(runner, `question ${index}`);
      expect(reports.filter((report) => report.outcome === 'compacted').length).toBeGreaterThan(0);
      expect(model.requests.length).toBe(16);
      for (const contents of model.requests) expect(findOrphans(contents)).toEqual([]);
      const last = model.requests.at(-1)!;
      expect(last[0]?.parts?.[0]?.text).toMatch(/^\[Previous Context Summary\]:/);
      expect(JSON.stringify(last)).toContain('question 7');
      const session = await sessionService.getSession({ ...key });
      const [summary, ...tail] = session!.events as Array<{ endTime?: number; timestamp: number }>;
      expect(tail.length).toBeGreaterThan(0);
      for (const event of tail) expect(event.timestamp).toBeGreaterThan(summary!.endTime!);
    } finally {
      vi.useRealTimers();
    }
  });

  it('getSession returns the view: the summary as a CompactedEvent, then the tail', async () => {
    const { store, sessionService, runner } = setup();
    await sessionService.createSession({ ...key, state: { plan: 'a' } });
    for (let index = 0; index < 8; index++) await turn(runner, `question ${index}`);
    const session = await sessionService.getSession({ ...key });
    const view = await store.loadView(key);
    expect(session?.state).toEqual({ plan: 'a' });
    expect(session?.events.length).toBe(view.tail.length + 1);
    const [summary, ...tail] = session!.events;
    expect(summary).toMatchObject({ isCompacted: true, author: view.checkpoint?.author });
    expect(tail.map((event) => event.id)).toEqual(view.tail.map((event) => event.id));
    // ADK-JS timestamps: milliseconds, as its Runner wrote them, and after the summary's end.
    const endTime = (summary as unknown as { endTime: number }).endTime;
    for (const event of tail) expect(event.timestamp).toBeGreaterThan(endTime);
    expect(tail[0]!.timestamp).toBeGreaterThan(1e12);
    expect(await sessionService.getSession({ ...key, sessionId: 'missing' })).toBeUndefined();
  });

  it('stores state deltas without ADK temp: keys, as ADK-JS services do', async () => {
    const { store, sessionService } = setup();
    const session = await sessionService.createSession({ ...key });
    await sessionService.appendEvent({
      session,
      event: {
        id: 'e1',
        invocationId: 'i1',
        author: 'assistant',
        timestamp: Date.now(),
        actions: {
          stateDelta: { 'temp:scratch': 1, plan: 'b' },
          artifactDelta: {},
          requestedAuthConfigs: {},
          requestedToolConfirmations: {},
        },
      },
    });
    const [stored] = (await store.getSession({ ...key, events: 'full' }))!.events;
    expect(stored?.actions.stateDelta).toEqual({ plan: 'b' });
    expect((await sessionService.getSession({ ...key }))?.state).toEqual({ plan: 'b' });
    expect(session.state).toEqual({ plan: 'b' });
  });

  it('refuses ADK-JS compactions with a typed error naming the field', async () => {
    const { sessionService } = setup();
    const session = await sessionService.createSession({ ...key });
    const compacted = {
      id: 'c',
      invocationId: '',
      author: 'system',
      timestamp: Date.now(),
      actions: {
        stateDelta: {},
        artifactDelta: {},
        requestedAuthConfigs: {},
        requestedToolConfirmations: {},
      },
      isCompacted: true,
      startTime: 1,
      endTime: 2,
      compactedContent: 'x',
    };
    const error = await sessionService
      .appendEvent({ session, event: compacted })
      .catch((caught: unknown) => caught);
    expect(AdapterOptionError.isInstance(error)).toBe(true);
    expect((error as AdapterOptionError).field).toBe('event.isCompacted');
    expect(session.events).toEqual([]);
  });
});

describePostgres('OrreryAdkSessionService on PostgreSQL', (url) => {
  const fixture = useSchemaFixture(url);

  it('stores every ADK event, compacts, and the next getSession is the view', async () => {
    const store = new PostgresSessionService({ pool: fixture.pool, schema: fixture.schema });
    const { sessionService, model, runner, reports } = setup({ store });
    await sessionService.createSession({ ...key });
    for (let index = 0; index < 10; index++) await turn(runner, `question ${index}`);
    expect(reports.filter((report) => report.outcome === 'compacted').length).toBeGreaterThan(0);
    const raw = (await allEvents(store)).filter((event) => !event.actions.compaction);
    expect(raw.length).toBe(40);
    for (const contents of model.requests) expect(findOrphans(contents)).toEqual([]);
    const session = await sessionService.getSession({ ...key });
    const view = await store.loadView(key);
    expect(session?.events.length).toBe(view.tail.length + 1);
  });
});
