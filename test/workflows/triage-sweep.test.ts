/**
 * The check (docs/workflows.md): three specialists in parallel, each reading ten 30 kB
 * pages, under a 120 kB byte ceiling and a 12k-token threshold. Every request stays under the
 * ceiling, holds no sibling's event or summary and no unpaired call; each branch compacts on its
 * own; the lead's first request holds every specialist's final answer verbatim.
 */
import { describe, expect, it } from 'vitest';
import { createTriageSweep, SWEEP_MAX_REQUEST_BYTES } from '../../examples/triage-sweep/sweep.js';
import type { Content, Event, ModelRequest } from '../../src/index.js';
import { InMemorySessionService, Runner } from '../../src/index.js';
import {
  estimateRequestOverhead,
  measureView,
} from '../../src/runtime/compaction/context-guard.js';

const key = { appName: 'triage', userId: 'oncall', sessionId: 'incident-4711' };

function requestBytes(request: Omit<ModelRequest, 'signal'>): number {
  const overhead = estimateRequestOverhead({
    systemInstruction: request.systemInstruction,
    tools: request.tools,
  });
  return measureView({ events: [], contents: request.contents, warnings: [] }, overhead).bytes;
}

/** Call ids without a response, and response ids without a call, in one request. */
function unpaired(contents: Content[]): string[] {
  const calls = new Set<string>();
  const responses = new Set<string>();
  for (const content of contents) {
    for (const part of content.parts) {
      if (part.functionCall) calls.add(part.functionCall.id);
      if (part.functionResponse) responses.add(part.functionResponse.id);
    }
  }
  return [
    ...[...calls].filter((id) => !responses.has(id)),
    ...[...responses].filter((id) => !calls.has(id)),
  ];
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

async function runSweep(sweep: ReturnType<typeof createTriageSweep>) {
  const sessionService = new InMemorySessionService();
  await sessionService.createSession(key);
  const runner = new Runner({
    appName: key.appName,
    agent: sweep.agent,
    sessionService,
    compaction: sweep.compaction,
    summarizer: sweep.summarizer,
    logger: false,
  });
  const yielded: Event[] = [];
  for await (const event of runner.run({ ...key, newMessage: 'Checkout is failing: triage.' })) {
    yielded.push(event);
  }
  const page = await sessionService.listEvents({ ...key, limit: 10_000 });
  return { sessionService, yielded, stored: page.events };
}

describe('triage sweep: 3 specialists x 10 pages of 30 kB, 120 kB ceiling, 12k-token threshold', () => {
  it('keeps every branch bounded, isolated, paired and interleaved; the lead reads each final answer verbatim', async () => {
    const steps: string[] = [];
    const sweep = createTriageSweep({
      beforeStep: async ({ specialist, step }) => {
        steps.push(`${specialist}:${step}`);
      },
    });
    const { stored } = await runSweep(sweep);
    const names = [...sweep.specialistModels.keys()];
    let requests = 0;
    for (const [name, model] of sweep.specialistModels) {
      expect(model.remaining).toBe(0);
      expect(model.calls).toHaveLength(11);
      const siblings = names.filter((other) => other !== name);
      for (const request of model.calls) {
        requests++;
        const text = JSON.stringify(request.contents);
        // Under the ceiling.
        expect(requestBytes(request)).toBeLessThanOrEqual(SWEEP_MAX_REQUEST_BYTES);
        // No sibling's page, call, answer or summary.
        for (const sibling of siblings) {
          expect(text).not.toContain(sweep.pageMarker(sibling));
          expect(text).not.toContain(`${sibling}-read-`);
          expect(text).not.toContain(`FINDING(${sibling})`);
          expect(text).not.toMatch(new RegExp(`Digest of \\[[^\\]]*\\b${sibling}\\b`));
        }
        expect(unpaired(request.contents)).toEqual([]);
      }
      // The branch compacted on its own: its summaries are stored on its branch only.
      const branchSummaries = stored.filter(
        (event) => event.actions.branchCompaction && event.branch === `sweep.${name}`,
      );
      expect(branchSummaries.length).toBeGreaterThan(0);
      // A later request of the branch reads its own summary.
      const last = JSON.stringify(model.calls.at(-1)?.contents);
      expect(last).toContain(`Digest of [`);
      expect(last).toContain(name);
    }
    expect(requests).toBe(33);
    // No branch summary became the trunk's checkpoint.
    expect(stored.filter((event) => event.actions.compaction)).toHaveLength(0);
    // The lead's first (only) request: every final answer verbatim, no page of any branch.
    expect(sweep.leadModel.calls).toHaveLength(1);
    const lead = sweep.leadModel.calls[0]!;
    const leadText = lead.contents.flatMap((content) => content.parts.map((part) => part.text));
    for (const answer of sweep.finalAnswers.values()) expect(leadText).toContain(answer);
    for (const name of names) {
      expect(JSON.stringify(lead.contents)).not.toContain(sweep.pageMarker(name));
    }
    expect(requestBytes(lead)).toBeLessThanOrEqual(SWEEP_MAX_REQUEST_BYTES);
    // Every page was read and stored whole: nothing lost.
    const pagesStored = stored.filter((event) =>
      event.content?.parts.some((part) => part.functionResponse?.name === 'read_page'),
    );
    expect(pagesStored).toHaveLength(30);
    // Concurrent at full size too: every specialist's first call comes before any one's last,
    // and the branches' events interleave in the one session.
    const lastFirst = Math.max(...names.map((name) => steps.indexOf(`${name}:0`)));
    const firstLast = Math.min(...names.map((name) => steps.indexOf(`${name}:10`)));
    expect(steps).toHaveLength(33);
    expect(lastFirst).toBeLessThan(firstLast);
    const branches = stored.map((event) => event.branch).filter((branch) => branch !== undefined);
    const runs = branches.filter((branch, index) => index === 0 || branches[index - 1] !== branch);
    expect(runs.length).toBeGreaterThan(names.length);
  });

  it('runs the specialists concurrently: each one calls its model before any answer arrives', async () => {
    const gates = new Map<string, ReturnType<typeof deferred>>();
    const firstCalls: string[] = [];
    const sweep = createTriageSweep({
      pages: 2,
      pageBytes: 1_000,
      beforeStep: async ({ specialist, step }) => {
        if (step !== 0) return;
        firstCalls.push(specialist);
        const gate = deferred();
        gates.set(specialist, gate);
        await gate.promise;
      },
    });
    const names = [...sweep.specialistModels.keys()];
    let failed: unknown;
    const run = runSweep(sweep);
    run.catch((error: unknown) => {
      failed = error;
    });
    // Wait (on events, not time) until every specialist's first model call is held.
    while (gates.size < names.length && failed === undefined) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(failed).toBeUndefined();
    expect(firstCalls.sort()).toEqual([...names].sort());
    // Nothing answered yet, so nothing from any branch is stored: the calls overlap.
    for (const name of [...names].reverse()) gates.get(name)!.resolve();
    const { stored } = await run;
    const branches = stored.map((event) => event.branch).filter((branch) => branch !== undefined);
    // The branches' events interleave in the one session (more runs than branches).
    let runs = 0;
    branches.forEach((branch, index) => {
      if (index === 0 || branches[index - 1] !== branch) runs++;
    });
    expect(runs).toBeGreaterThan(names.length);
  });
});
