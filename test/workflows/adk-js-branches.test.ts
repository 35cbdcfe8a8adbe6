/**
 * A multi-agent session written by ADK's own code (docs/workflows.md#adk-sessions-and-replay):
 * ADK-JS's `Runner` runs `SequentialAgent(triage)[ParallelAgent(sweep)[network, database,
 * deploys], lead]` on scripted `BaseLlm`s in its `InMemorySessionService`; the session ADK-JS
 * stored (its own `branch` fields) is serialized as ADK JSON, imported into orrery and replayed
 * with per-branch views: every event kept, no branch's request holding a sibling's event.
 */
import {
  InMemorySessionService as AdkInMemorySessionService,
  BaseLlm,
  type BaseLlmConnection,
  FunctionTool,
  LlmAgent,
  type LlmRequest,
  type LlmResponse,
  ParallelAgent,
  Runner,
  SequentialAgent,
} from '@google/adk';
import type { Content as GenaiContent } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { incidentPage } from '../../examples/triage-sweep/sweep.js';
import { branchOf, scopeView } from '../../src/compaction/branch-view.js';
import { createEventsCompactionConfig } from '../../src/compaction/config.js';
import { assembleView, selectCheckpoint } from '../../src/compaction/view.js';
import type { Event } from '../../src/events/types.js';
import { importAdk } from '../../src/importers/adk.js';
import { replayTranscript } from '../../src/runtime/replay/replay.js';
import { InMemorySessionService } from '../../src/sessions/in-memory-session-service.js';
import { DigestSummarizer } from '../../src/summarizers/digest-summarizer.js';

const SPECIALISTS = ['network', 'database', 'deploys'];
const PAGES = 6;
const PAGE_BYTES = 30_000;
const key = { appName: 'triage', userId: 'oncall', sessionId: 'adk-js-sweep' };

const finding = (name: string) => `FINDING(${name}): ${name} saturated at 14:02 UTC.`;

/** A specialist's model: `read_page` page 1..PAGES, one call a step, then its finding. */
class SpecialistLlm extends BaseLlm {
  /** The contents of every request ADK-JS sent, in order. */
  readonly requests: GenaiContent[][] = [];

  constructor(private readonly specialist: string) {
    super({ model: `scripted-${specialist}` });
  }

  async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void> {
    this.requests.push(structuredClone(request.contents));
    const step = this.requests.length - 1;
    const promptTokenCount = Math.ceil(JSON.stringify(request.contents).length / 4);
    // Another turn of the event loop, so that ADK's branches interleave as real calls do.
    await new Promise((resolve) => setImmediate(resolve));
    if (step < PAGES) {
      yield {
        content: {
          role: 'model',
          parts: [{ functionCall: { name: 'read_page', args: { page: step + 1 } } }],
        },
        usageMetadata: { promptTokenCount, candidatesTokenCount: 8 },
      };
      return;
    }
    yield {
      content: { role: 'model', parts: [{ text: finding(this.specialist) }] },
      usageMetadata: { promptTokenCount, candidatesTokenCount: 12 },
    };
  }

  async connect(): Promise<BaseLlmConnection> {
    throw new Error('no live connection');
  }
}

class LeadLlm extends BaseLlm {
  readonly requests: GenaiContent[][] = [];
  constructor() {
    super({ model: 'scripted-lead' });
  }
  async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void> {
    this.requests.push(structuredClone(request.contents));
    yield {
      content: { role: 'model', parts: [{ text: 'INCIDENT REPORT: saturation at 14:02.' }] },
    };
  }
  async connect(): Promise<BaseLlmConnection> {
    throw new Error('no live connection');
  }
}

function specialist(name: string, model: SpecialistLlm): LlmAgent {
  return new LlmAgent({
    name,
    model,
    instruction: `You are the ${name} specialist.`,
    tools: [
      new FunctionTool({
        name: 'read_page',
        description: `Reads a page of ${name} evidence.`,
        parameters: z.object({ page: z.number() }),
        execute: async ({ page }: { page: number }) => ({
          text: incidentPage({ specialist: name, page, bytes: PAGE_BYTES }),
        }),
      }),
    ],
  });
}

/** Runs the sweep with ADK-JS's own Runner; returns the session as ADK JSON (camelCase). */
async function runWithAdk() {
  const models = new Map(SPECIALISTS.map((name) => [name, new SpecialistLlm(name)]));
  const lead = new LeadLlm();
  const root = new SequentialAgent({
    name: 'triage',
    subAgents: [
      new ParallelAgent({
        name: 'sweep',
        subAgents: SPECIALISTS.map((name) => specialist(name, models.get(name)!)),
      }),
      new LlmAgent({ name: 'lead', model: lead, instruction: 'Merge the findings.' }),
    ],
  });
  const sessionService = new AdkInMemorySessionService();
  await sessionService.createSession({ ...key });
  const runner = new Runner({ appName: key.appName, agent: root, sessionService });
  for await (const _event of runner.runAsync({
    userId: key.userId,
    sessionId: key.sessionId,
    newMessage: { role: 'user', parts: [{ text: 'Checkout is failing: triage.' }] },
  })) {
    // stored by ADK-JS's session service
  }
  const session = await sessionService.getSession({ ...key });
  // ADK JSON, as ADK-JS's API server answers a session.
  return { json: JSON.parse(JSON.stringify(session)), models, lead };
}

/** What a model call at `seq` on `branch` was sent, rebuilt from the replayed store. */
function requestAt(stored: Event[], seq: number, branch: string | undefined) {
  const before = stored.filter((event) => event.seq < seq);
  const checkpoint = selectCheckpoint(before);
  const scoped = scopeView(
    { checkpoint, tail: before.filter((event) => !event.actions.compaction) },
    { branch },
  );
  return assembleView({ checkpoint: scoped.checkpoint, tail: scoped.tail });
}

describe('a multi-agent session written by ADK-JS', () => {
  it('imports with its branch fields and replays per branch, losslessly, no sibling in any request', async () => {
    const { json, models, lead } = await runWithAdk();
    const adkEvents = json.events as Array<{ author: string; branch?: string }>;
    // ADK-JS's ParallelAgent named the branches `<parallel>.<sub-agent>` and interleaved them.
    for (const name of SPECIALISTS) {
      const own = adkEvents.filter((event) => event.author === name);
      expect(own).toHaveLength(2 * PAGES + 1);
      expect(new Set(own.map((event) => event.branch))).toEqual(new Set([`sweep.${name}`]));
      expect(models.get(name)!.requests).toHaveLength(PAGES + 1);
    }
    const branchRuns = adkEvents
      .map((event) => event.branch)
      .filter((branch) => branch?.startsWith('sweep.'))
      .filter((branch, index, all) => index === 0 || all[index - 1] !== branch).length;
    expect(branchRuns).toBeGreaterThan(SPECIALISTS.length);
    expect(lead.requests).toHaveLength(1);

    // Imported: every event, branch kept.
    const imported = importAdk(json);
    expect(imported.events).toHaveLength(adkEvents.length);
    expect(imported.events.map((event) => event.branch ?? '')).toEqual(
      adkEvents.map((event) => event.branch ?? ''),
    );

    // Replayed with per-branch views under the bounds.
    const sessionService = new InMemorySessionService();
    const report = await replayTranscript({
      events: imported.events,
      config: createEventsCompactionConfig({
        env: {},
        tokenThreshold: 12_000,
        eventRetentionSize: 4,
        maxRequestBytes: 120_000,
      })!,
      summarizer: new DigestSummarizer(),
      sessionService,
      sessionId: 'replayed',
    });
    expect(report.lossless).toBe(true);
    expect(report.orphans).toBe(0);
    expect(report.events).toBe(adkEvents.length);
    expect(report.modelCalls).toBe(SPECIALISTS.length * (PAGES + 1) + 1);
    expect(report.maxViewBytes).toBeLessThanOrEqual(120_000);
    expect(report.branches?.map((entry) => entry.branch)).toEqual([
      '',
      ...SPECIALISTS.map((name) => `sweep.${name}`).sort(),
    ]);
    for (const entry of report.branches ?? []) {
      if (entry.branch === '') continue;
      expect(entry.modelCalls).toBe(PAGES + 1);
      expect(entry.compactions).toBeGreaterThan(0);
    }

    // Every model call's request, rebuilt from the store: its own branch only, paired.
    const stored = (
      await sessionService.listEvents({
        appName: 'orrery',
        userId: 'replay',
        sessionId: 'replayed',
        limit: 10_000,
      })
    ).events;
    const modelEvents = stored.filter(
      (event) =>
        event.content?.role === 'model' &&
        event.author !== 'user' &&
        !event.actions.compaction &&
        !event.actions.branchCompaction,
    );
    expect(modelEvents).toHaveLength(report.modelCalls);
    const checked = { lead: 0, withOwnPages: 0, siblingsWouldLeak: 0 };
    for (const event of modelEvents) {
      const branch = branchOf(event);
      const view = requestAt(stored, event.seq, branch);
      const text = JSON.stringify(view.contents);
      const own = branch?.split('.').at(-1);
      for (const sibling of SPECIALISTS.filter((name) => name !== own)) {
        expect(text).not.toContain(`EVIDENCE<${sibling}>`);
        if (branch !== undefined) expect(text).not.toContain(`FINDING(${sibling})`);
      }
      // No unpaired call: nothing dropped, restored or answered for want of its pair.
      expect(
        view.warnings.filter(
          (warning) =>
            warning.kind.startsWith('orphan') || warning.kind === 'dangling_call_answered',
        ),
      ).toEqual([]);
      if (event.author === 'lead') {
        for (const name of SPECIALISTS) expect(text).toContain(finding(name));
        checked.lead++;
      } else if (text.includes(`EVIDENCE<${own}>`)) {
        // The branch reads its own pages (or its own summary of them).
        checked.withOwnPages++;
      }
      // The same request unscoped (ADK's trunk rule, every branch whole) would hold a sibling's.
      const unscoped = JSON.stringify(
        assembleView({
          checkpoint: selectCheckpoint(stored.filter((other) => other.seq < event.seq)),
          tail: stored.filter((other) => other.seq < event.seq && !other.actions.compaction),
        }).contents,
      );
      if (SPECIALISTS.some((name) => name !== own && unscoped.includes(`EVIDENCE<${name}>`))) {
        checked.siblingsWouldLeak++;
      }
    }
    expect(checked.lead).toBe(1);
    expect(checked.withOwnPages).toBeGreaterThanOrEqual(SPECIALISTS.length * (PAGES - 1));
    expect(checked.siblingsWouldLeak).toBeGreaterThan(SPECIALISTS.length * (PAGES - 2));
  });
});
