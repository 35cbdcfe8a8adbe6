import { Agent, type AgentInputItem, Runner, tool } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SUMMARY_PREFIX } from '../../compaction/view.js';
import { InvalidEventError } from '../../events/errors.js';
import type { Event } from '../../events/types.js';
import type { CompactionReport } from '../../runtime/compaction/compactor.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import type { SessionService } from '../../sessions/session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { AdapterOptionError } from '../shared/adapter-option-error.js';
import { OrreryAgentsSession } from './orrery-agents-session.js';
import { OPENAI_AGENTS_METADATA_KEY } from './session-view.js';
import { findOrphans, ScriptedAgentsModel } from './test-helpers/scripted-agents-model.js';

const compaction = { tokenThreshold: 600, eventRetentionSize: 4 };

async function allEvents(service: SessionService, session: OrreryAgentsSession): Promise<Event[]> {
  const events: Event[] = [];
  let afterSeq: number | undefined;
  for (;;) {
    const page = await service.listEvents({ ...session.key, afterSeq, limit: 100 });
    events.push(...page.events);
    if (page.nextCursor === undefined || page.events.length === 0) return events;
    afterSeq = page.nextCursor;
  }
}

function storedItems(events: Event[]): unknown[] {
  return events.flatMap((event) => {
    const metadata = event.customMetadata?.[OPENAI_AGENTS_METADATA_KEY] as
      | { item?: unknown }
      | undefined;
    return metadata?.item === undefined ? [] : [metadata.item];
  });
}

function setup(options: { summarizer?: DigestSummarizer } = {}) {
  const sessionService = new InMemorySessionService();
  const reports: CompactionReport[] = [];
  const session = new OrreryAgentsSession({
    sessionService,
    sessionId: 'agents-1',
    compaction,
    summarizer: options.summarizer ?? new DigestSummarizer({ maxChars: 400 }),
    onCompaction: (report) => reports.push(report),
    logger: false,
  });
  const model = new ScriptedAgentsModel();
  const lookup = tool({
    name: 'lookup',
    description: 'Looks a question up.',
    parameters: z.object({ query: z.string() }),
    execute: async ({ query }) => `Result for ${query}: ${'facts '.repeat(10)}`,
  });
  const agent = new Agent({
    name: 'assistant',
    instructions: 'Answer with the tool.',
    model,
    tools: [lookup],
  });
  const runner = new Runner({ tracingDisabled: true });
  return { sessionService, session, model, agent, runner, reports };
}

describe('OrreryAgentsSession through the OpenAI Agents Runner', () => {
  it('compacts over many turns with tool calls, stores every item, sends no orphan', async () => {
    const { sessionService, session, model, agent, runner, reports } = setup();
    const turns = 30;
    for (let turn = 1; turn <= turns; turn++) {
      const result = await runner.run(agent, `Question number ${turn}, please look it up.`, {
        session,
      });
      expect(result.finalOutput).toContain('The lookup for call');
    }

    // Two requests a turn (the call, then the answer), none with an orphaned call or output.
    expect(model.requests).toHaveLength(turns * 2);
    expect(model.requests.flatMap((input, index) => findOrphans(input, index))).toEqual([]);

    const compacted = reports.filter((report) => report.outcome === 'compacted');
    expect(compacted.length).toBeGreaterThanOrEqual(3);
    expect(reports.every((report) => report.outcome !== 'failed')).toBe(true);

    // The model reads the summary first once compacted, and the request stays bounded.
    const lastRequest = model.requests.at(-1)!;
    expect(lastRequest[0]).toMatchObject({
      role: 'user',
      content: expect.stringContaining(SUMMARY_PREFIX),
    });
    // Before the first compaction a request grows to 27 items (7 turns). The session compacts
    // after a completed turn (4 items, ~100 tokens) once the estimate reaches the 600-token
    // threshold, so the item bound moves by whole turns with the summary's size: measured, a
    // compaction leaves ~197 tokens and 5 turns reach the threshold (24 items); with the
    // 8-token-larger digest of before c967f8b, 4 turns did (205 + 4 turns = 601, 20 items).
    // The bound that matters is in tokens: well under the threshold after each compaction, and
    // never more than one turn past it before.
    const lengths = model.requests.map((input) => input.length);
    expect(Math.max(...lengths)).toBe(27);
    expect(Math.max(...lengths.slice(turns))).toBeLessThanOrEqual(24);
    for (const report of compacted) {
      expect(report.ineffective).not.toBe(true);
      expect(report.tokensAfter).toBeLessThan(300);
      expect(report.tokensBefore).toBeLessThan(700);
    }

    // The store holds every item of every turn (user, call, output, answer), in order.
    const events = await allEvents(sessionService, session);
    const items = storedItems(events) as AgentInputItem[];
    expect(items).toHaveLength(turns * 4);
    expect(items.slice(0, 4).map((item) => item.type ?? 'message')).toEqual([
      'message',
      'function_call',
      'function_call_result',
      'message',
    ]);
    expect(items[0]).toEqual({
      type: 'message',
      role: 'user',
      content: 'Question number 1, please look it up.',
    });
    expect(events.filter((event) => event.actions.compaction)).toHaveLength(compacted.length);

    // getItems is the view: the summary, then the newest items, which the store also holds.
    const view = await session.getItems();
    expect(view[0]).toMatchObject({ type: 'message', role: 'user' });
    expect(view.slice(1)).toEqual(items.slice(items.length - (view.length - 1)));
    expect(await session.getItems(2)).toEqual(view.slice(-2));
  });

  it('keeps each turn in one invocation and the runner usage of a compaction', async () => {
    const { sessionService, session, agent, runner } = setup();
    await runner.run(agent, 'First question.', { session });
    await runner.run(agent, 'Second question.', { session });
    const events = await allEvents(sessionService, session);
    const invocations = events.map((event) => event.invocationId);
    expect(new Set(invocations.slice(0, 4)).size).toBe(1);
    expect(new Set(invocations.slice(4, 8)).size).toBe(1);
    expect(invocations[0]).not.toBe(invocations[4]);
    expect(events.map((event) => event.author)).toEqual([
      'user',
      'assistant',
      'assistant',
      'assistant',
      'user',
      'assistant',
      'assistant',
      'assistant',
    ]);
  });
});

describe('OrreryAgentsSession items', () => {
  const items: AgentInputItem[] = [
    {
      role: 'user',
      content: [
        { type: 'input_text', text: 'Look at this' },
        { type: 'input_image', image: 'https://example.com/a.png', detail: 'auto' },
      ],
    },
    {
      type: 'reasoning',
      id: 'rs_1',
      content: [{ type: 'input_text', text: 'thinking' }],
      providerData: { encrypted: 'abc' },
    },
    {
      type: 'function_call',
      callId: 'c1',
      name: 'lookup',
      arguments: '{"query":"x"}',
      status: 'completed',
      id: 'fc_1',
    },
    {
      type: 'function_call_result',
      callId: 'c1',
      name: 'lookup',
      status: 'completed',
      output: { type: 'text', text: 'found' },
    },
    {
      type: 'computer_call',
      callId: 'c2',
      status: 'completed',
      action: { type: 'click', x: 1, y: 2, button: 'left' },
    },
    {
      type: 'computer_call_result',
      callId: 'c2',
      output: { type: 'computer_screenshot', data: 'data:image/png;base64,AAAA' },
    },
    {
      role: 'assistant',
      status: 'completed',
      content: [
        { type: 'output_text', text: 'Done.' },
        { type: 'refusal', refusal: 'not that' },
      ],
    },
    { role: 'system', content: 'Be brief.' },
  ];

  it('reads back every item exactly as added', async () => {
    const sessionService = new InMemorySessionService();
    const session = new OrreryAgentsSession({ sessionService, compaction: null });
    await session.addItems(items);
    expect(await session.getItems()).toEqual(items);
    // A fresh object on the same store sees the same session.
    const again = new OrreryAgentsSession({
      sessionService,
      sessionId: await session.getSessionId(),
      compaction: null,
    });
    expect(await again.getItems()).toEqual(items);
  });

  it('popItem hides the newest item and clearSession all of them; the store keeps them', async () => {
    const sessionService = new InMemorySessionService();
    const session = new OrreryAgentsSession({ sessionService, compaction: null });
    await session.addItems(items);
    expect(await session.popItem()).toEqual(items[7]);
    expect(await session.popItem()).toEqual(items[6]);
    expect(await session.getItems()).toEqual(items.slice(0, 6));
    await session.clearSession();
    expect(await session.getItems()).toEqual([]);
    expect(await session.popItem()).toBeUndefined();
    await session.addItems([{ role: 'user', content: 'Fresh start' }]);
    expect(await session.getItems()).toEqual([{ role: 'user', content: 'Fresh start' }]);
    const events = await allEvents(sessionService, session);
    // 9 items and 3 tombstones: nothing was deleted.
    expect(storedItems(events)).toEqual([...items, { role: 'user', content: 'Fresh start' }]);
    expect(events).toHaveLength(12);
  });

  it('pops the summary last, and the next compaction starts over without it', async () => {
    const { session, agent, runner, reports } = setup();
    for (let turn = 1; turn <= 8; turn++) await runner.run(agent, `Question ${turn}?`, { session });
    expect(reports.some((report) => report.outcome === 'compacted')).toBe(true);
    const view = await session.getItems();
    for (let index = view.length - 1; index >= 1; index--) {
      expect(await session.popItem()).toEqual(view[index]);
    }
    expect(await session.getItems()).toEqual([view[0]]);
    expect(await session.popItem()).toEqual(view[0]);
    expect(await session.getItems()).toEqual([]);

    for (let turn = 1; turn <= 8; turn++)
      await runner.run(agent, `New question ${turn}?`, { session });
    const after = await session.getItems();
    const summary = String((after[0] as { content: string }).content);
    expect(summary.startsWith(SUMMARY_PREFIX)).toBe(true);
    // The new summary covers only what came after the pop.
    expect(summary).toContain('New question');
    expect(summary).not.toContain('Question 1?');
  });

  it('rejects a bad limit and a non-JSON item by name, storing nothing of the batch', async () => {
    const sessionService = new InMemorySessionService();
    const session = new OrreryAgentsSession({ sessionService, compaction: null });
    await expect(session.getItems(1.5)).rejects.toSatisfy(
      (error) => AdapterOptionError.isInstance(error) && error.field === 'limit',
    );
    const bad = [
      { role: 'user', content: 'fine' },
      { role: 'user', content: [{ type: 'input_text', text: 'x', when: new Date(0) }] },
    ] as unknown as AgentInputItem[];
    await expect(session.addItems(bad)).rejects.toSatisfy(
      (error) =>
        InvalidEventError.isInstance(error) && error.path.startsWith('items[1].content[0].when'),
    );
    await expect(session.addItems([null as unknown as AgentInputItem])).rejects.toSatisfy(
      (error) => AdapterOptionError.isInstance(error) && error.field === 'items[0]',
    );
    expect(await session.getItems()).toEqual([]);
  });

  it('a failing summarizer never fails the run: the report says so and the view stays whole', async () => {
    const failing = {
      name: 'broken',
      summarize: async () => Promise.reject(new Error('summarizer down')),
    };
    const sessionService = new InMemorySessionService();
    const reports: CompactionReport[] = [];
    const session = new OrreryAgentsSession({
      sessionService,
      compaction,
      summarizer: failing,
      fallbackSummarizer: null,
      onCompaction: (report) => reports.push(report),
      logger: false,
    });
    const model = new ScriptedAgentsModel();
    const agent = new Agent({
      name: 'assistant',
      model,
      tools: [
        tool({
          name: 'lookup',
          description: 'd',
          parameters: z.object({ query: z.string() }),
          execute: async () => 'ok '.repeat(40),
        }),
      ],
    });
    const runner = new Runner({ tracingDisabled: true });
    for (let turn = 1; turn <= 10; turn++)
      await runner.run(agent, `Question ${turn}?`, { session });
    expect(
      reports.some((report) => report.outcome === 'failed' && report.reason === 'summarizer down'),
    ).toBe(true);
    expect(reports.some((report) => report.outcome === 'compacted')).toBe(false);
    expect(await session.getItems()).toHaveLength(40);
  });
});
