import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXPANDED_SUMMARY_KEY, needsExpandedView } from '../../compaction/expanded-view.js';
import {
  type AdkViewItem,
  adkReferenceView,
} from '../../compaction/test-helpers/adk-reference-view.js';
import type { SummarizeOptions } from '../../compaction/types.js';
import { assembleView, SUMMARY_PREFIX } from '../../compaction/view.js';
import { getText } from '../../events/event-helpers.js';
import type { Event, NewEvent } from '../../events/types.js';
import { importAdk } from '../../importers/adk.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import type { StoredView } from '../../sessions/session-service.js';
import { ScriptedModel, textResponse } from '../../testing/scripted-model.js';
import { LlmAgent } from '../agents/llm-agent.js';
import { Compactor } from '../compaction/compactor.js';
import { Runner } from '../turn/runner.js';
import { loadActiveView } from './active-view.js';

type Json = Record<string, unknown>;

const FIXTURES = [
  'adk-python-sliding-window.json',
  'adk-python-sliding-then-token.json',
  'adk-python-rewind.json',
] as const;

function fixture(name: string): { events: Json[] } & Json {
  return JSON.parse(
    readFileSync(new URL(`../../events/fixtures/${name}`, import.meta.url), 'utf8'),
  );
}

/** ADK's camelCase API form of a snake_case dump (the fixtures hold no snake_case user data). */
function camelCased(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelCased);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()),
      camelCased(item),
    ]),
  );
}

const key = { appName: 'adk', userId: 'u-7', sessionId: 's' };

/** Stores imported events in a new session, as `orrery import` does (seqs 1, 2, 3...). */
async function storeEvents(
  service: InMemorySessionService,
  key: { appName: string; userId: string; sessionId: string },
  events: NewEvent[],
): Promise<void> {
  await service.createSession(key);
  for (const event of events) {
    if (event.actions.compaction) {
      const { checkpoint } = await service.loadView(key);
      await service.appendCompaction({
        ...key,
        event,
        expectedCheckpointSeq: checkpoint?.seq ?? null,
      });
    } else await service.appendEvent({ ...key, event });
  }
}

async function imported(session: unknown): Promise<InMemorySessionService> {
  const service = new InMemorySessionService();
  const result = importAdk(session);
  await storeEvents(service, key, result.events);
  return service;
}

/** The summaries and raw events a view holds, in order, as the reference lists them. */
function itemsOf(stored: StoredView): AdkViewItem[] {
  const items: AdkViewItem[] = [];
  if (stored.checkpoint) {
    const text = getText(stored.checkpoint.actions.compaction.compactedContent);
    items.push({ kind: 'summary', text });
  }
  for (const event of stored.tail) {
    if (!event.content || event.content.parts.length === 0) continue;
    if (event.customMetadata?.[EXPANDED_SUMMARY_KEY] !== undefined) {
      items.push({ kind: 'summary', text: getText(event.content).slice(SUMMARY_PREFIX.length) });
    } else items.push({ kind: 'event', id: event.id });
  }
  return items;
}

function summaryCount(items: AdkViewItem[]): number {
  return items.filter((item) => item.kind === 'summary').length;
}

describe('loadActiveView on sessions ADK for Python wrote', () => {
  for (const name of FIXTURES) {
    for (const casing of ['snake', 'camel'] as const) {
      it(`holds what ADK sends: ${name}, ${casing} case`, async () => {
        const session = casing === 'snake' ? fixture(name) : (camelCased(fixture(name)) as Json);
        const reference = adkReferenceView(session as { events: Json[] });
        const service = await imported(session);
        const stored = await loadActiveView({ sessionService: service, ...key });
        expect(itemsOf(stored)).toEqual(reference);
        expect(stored.expandedFromCheckpointSeq).toBe(
          (await service.loadView(key)).checkpoint!.seq,
        );
      });
    }
  }

  it('keeps the three window summaries ADK sends (interval 3, overlap 1), not only the last', async () => {
    const session = fixture('adk-python-sliding-window.json');
    const service = await imported(session);
    const plain = await service.loadView(key);
    const stored = await loadActiveView({ sessionService: service, ...key });
    expect(summaryCount(adkReferenceView(session))).toBe(3);
    expect(summaryCount(itemsOf(plain))).toBe(1);
    expect(summaryCount(itemsOf(stored))).toBe(3);
    const contents = assembleView({ tail: stored.tail }).contents;
    expect(getText(contents[0]!)).toContain('window: summary of invocations 1-3.');
    expect(getText(contents[0]!)).toContain('window: summary of invocations 6-9.');
  });

  it('keeps the window summary a later token compaction does not subsume', async () => {
    const session = fixture('adk-python-sliding-then-token.json');
    const stored = await loadActiveView({ sessionService: await imported(session), ...key });
    const summaries = itemsOf(stored).filter((item) => item.kind === 'summary');
    expect(summaries.map((item) => (item as { text: string }).text)).toEqual([
      'window: summary of invocations 1-3.',
      'token: rolling summary seeded with the previous one.',
    ]);
  });

  it('leaves out rewound invocations, and the compaction a rewind annulled', async () => {
    const session = fixture('adk-python-rewind.json');
    const service = await imported(session);
    const stored = await loadActiveView({ sessionService: service, ...key });
    const texts = stored.tail.map((event) => (event.content ? getText(event.content) : ''));
    // Invocations 3-4 (and the summary of 1-3 written after them) and 6 were rewound.
    expect(texts.filter((text) => text.startsWith('Turn'))).toEqual([
      'Turn 1: what about the flaky checkout test?',
      'Turn 2: what about the staging deploy?',
      'Turn 5: what about the on-call handover?',
      'Turn 7: what about the canary rollout?',
    ]);
    expect(summaryCount(itemsOf(stored))).toBe(0);
  });

  it('reads the store as it is when nothing needs expanding', async () => {
    const service = await imported(fixture('adk-python-session.json'));
    const plain = await service.loadView(key);
    // The fixture's one ADK compaction is the checkpoint: it is expanded (not rolling).
    expect(needsExpandedView(plain)).toBe(true);
    const session = await service.getSession({ ...key, events: 'full' });
    const fresh = new InMemorySessionService();
    await storeEvents(
      fresh,
      key,
      (session!.events as Event[])
        .filter((event) => !event.actions.compaction)
        .map(({ seq: _seq, ...event }) => event),
    );
    const stored = await loadActiveView({ sessionService: fresh, ...key });
    expect(stored).toEqual(await fresh.loadView(key));
    expect(stored.expandedFromCheckpointSeq).toBeUndefined();
  });
});

describe('the next compaction folds an expanded view into a rolling summary', () => {
  it('summarizes every kept summary and raw event, from seq 1; loads are plain again', async () => {
    const session = fixture('adk-python-sliding-window.json');
    const service = await imported(session);
    const before = await loadActiveView({ sessionService: service, ...key });
    const seen: SummarizeOptions[] = [];
    const compactor = new Compactor({
      sessionService: service,
      config: { tokenThreshold: 1_000_000, eventRetentionSize: 1, retentionTokenBudget: 1_000_000 },
      summarizer: {
        name: 'fake',
        summarize: async (options) => {
          seen.push(options);
          return { content: { role: 'model', parts: [{ text: 'all of it' }] } };
        },
      },
    });
    const report = await compactor.compact({ ...key, trigger: 'manual' });
    expect(report.outcome).toBe('compacted');
    expect(report.startSeq).toBe(1);
    expect(seen[0]!.previousSummary).toBeUndefined();
    const summarized = seen[0]!.events.map((event) => getText(event.content!));
    expect(summarized.filter((text) => text.startsWith(SUMMARY_PREFIX))).toHaveLength(3);
    expect(seen[0]!.events).toEqual(before.tail.slice(0, -1));

    const after = await service.loadView(key);
    expect(after.checkpoint!.seq).toBe(report.event!.seq);
    expect(after.checkpoint!.actions.compaction.rolling).toBeUndefined();
    expect(needsExpandedView(after)).toBe(false);
    expect(await loadActiveView({ sessionService: service, ...key })).toEqual(after);
    expect(after.tail.map((event) => event.id)).toEqual([before.tail.at(-1)!.id]);
  });
});

describe('Runner on an imported ADK session', () => {
  it('sends the model every summary ADK would send', async () => {
    const service = await imported(fixture('adk-python-sliding-window.json'));
    const model = new ScriptedModel({ script: [textResponse('ok')] });
    const runner = new Runner({
      appName: key.appName,
      agent: new LlmAgent({ name: 'helper', model }),
      sessionService: service,
      compaction: null,
      logger: false,
    });
    for await (const _event of runner.run({
      userId: key.userId,
      sessionId: key.sessionId,
      newMessage: 'next',
    })) {
      // drain
    }
    const first = getText(model.calls[0]!.contents[0]!);
    expect(first).toContain('window: summary of invocations 1-3.');
    expect(first).toContain('window: summary of invocations 3-6.');
    expect(first).toContain('window: summary of invocations 6-9.');
  });
});
