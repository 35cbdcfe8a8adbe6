/**
 * Multi-agent ADK sessions (docs/workflows.md#adk-sessions-and-replay): `branch` survives the ADK
 * JSON codec both ways, a branch's summary rides in `customMetadata.orrery`, and a session
 * written in ADK Python's own JSON shape (snake_case, `ParallelAgent` branches) replays with
 * per-branch views, losslessly.
 */
import { describe, expect, it } from 'vitest';
import { createTriageSweep, incidentPage } from '../../examples/triage-sweep/sweep.js';
import { fromAdkSessionJson, toAdkSessionJson } from '../../src/entries/adk-json.js';
import { scopeView } from '../../src/entries/compaction.js';
import { replayTranscript } from '../../src/entries/replay.js';
import type { Event } from '../../src/index.js';
import {
  createEventsCompactionConfig,
  DigestSummarizer,
  getText,
  InMemorySessionService,
  Runner,
} from '../../src/index.js';

/** A session as ADK Python writes it: `SequentialAgent(triage)[ParallelAgent(sweep)[a, b], lead]`. */
function adkPythonSession(options: { specialists: string[]; pages: number }) {
  const events: Record<string, unknown>[] = [];
  let time = 1_750_000_000;
  const push = (event: Record<string, unknown>) => {
    time += 1;
    events.push({
      id: `e${events.length + 1}`,
      invocation_id: 'inv-1',
      timestamp: time,
      actions: { state_delta: {}, artifact_delta: {}, requested_auth_configs: {} },
      ...event,
    });
  };
  push({ author: 'user', content: { role: 'user', parts: [{ text: 'Checkout fails: triage.' }] } });
  // ADK's ParallelAgent interleaves its branches' events.
  for (let page = 1; page <= options.pages; page++) {
    for (const name of options.specialists) {
      const branch = `sweep.${name}`;
      const id = `adk-${name}-${page}`;
      push({
        author: name,
        branch,
        content: {
          role: 'model',
          parts: [{ function_call: { id, name: 'read_page', args: { page } } }],
        },
        usage_metadata: { prompt_token_count: 1000 * page, candidates_token_count: 12 },
      });
      push({
        author: name,
        branch,
        content: {
          role: 'user',
          parts: [
            {
              function_response: {
                id,
                name: 'read_page',
                response: { text: incidentPage({ specialist: name, page, bytes: 30_000 }) },
              },
            },
          ],
        },
      });
    }
  }
  for (const name of options.specialists) {
    push({
      author: name,
      branch: `sweep.${name}`,
      content: { role: 'model', parts: [{ text: `FINDING(${name}): saturated at 14:02.` }] },
    });
  }
  push({ author: 'lead', content: { role: 'model', parts: [{ text: 'Report: saturation.' }] } });
  return {
    id: 'adk-session',
    app_name: 'triage',
    user_id: 'oncall',
    state: {},
    events,
    last_update_time: time,
  };
}

describe('a multi-agent ADK session', () => {
  it("imported from ADK Python's JSON replays per branch, losslessly, no branch seeing a sibling", async () => {
    const specialists = ['network', 'database', 'deploys'];
    const imported = fromAdkSessionJson(adkPythonSession({ specialists, pages: 10 }));
    expect(imported.events.filter((event) => event.branch?.startsWith('sweep.'))).toHaveLength(63);
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
    expect(report.modelCalls).toBe(34);
    expect(report.maxViewBytes).toBeLessThanOrEqual(120_000);
    expect(report.branches?.map((entry) => entry.branch)).toEqual([
      '',
      'sweep.database',
      'sweep.deploys',
      'sweep.network',
    ]);
    for (const entry of report.branches ?? []) {
      if (entry.branch === '') continue;
      expect(entry.modelCalls).toBe(11);
      expect(entry.compactions).toBeGreaterThan(0);
      expect(entry.maxViewBytes).toBeLessThanOrEqual(120_000);
    }
    // Each branch summary holds its own evidence and never a sibling's.
    const { events } = await sessionService.listEvents({
      appName: 'orrery',
      userId: 'replay',
      sessionId: 'replayed',
      limit: 10_000,
    });
    const summaries = events.filter((event) => event.actions.branchCompaction);
    expect(summaries.length).toBeGreaterThanOrEqual(3);
    for (const summary of summaries) {
      const text = getText(summary.actions.branchCompaction?.compactedContent);
      const own = summary.branch!.split('.').at(-1)!;
      for (const sibling of specialists.filter((name) => name !== own)) {
        expect(text).not.toContain(`EVIDENCE<${sibling}>`);
      }
    }
    // The lead (trunk) reads each final answer verbatim, and no page.
    const trunk = scopeView({ tail: events }, {});
    const trunkText = JSON.stringify(trunk.tail.map((event) => event.content));
    for (const name of specialists) {
      expect(trunkText).toContain(`FINDING(${name}): saturated at 14:02.`);
      expect(trunkText).not.toContain(`EVIDENCE<${name}>`);
    }
  });

  it('keeps branch and branch summaries through an ADK export and import: every branch view is the same', async () => {
    const sweep = createTriageSweep({ pages: 4 });
    const sessionService = new InMemorySessionService();
    const key = { appName: 'triage', userId: 'oncall', sessionId: 'round-trip' };
    await sessionService.createSession(key);
    const runner = new Runner({
      appName: key.appName,
      agent: sweep.agent,
      sessionService,
      compaction: sweep.compaction,
      summarizer: sweep.summarizer,
      logger: false,
    });
    for await (const _event of runner.run({ ...key, newMessage: 'triage' })) {
      // stored as they come
    }
    const { events } = await sessionService.listEvents({ ...key, limit: 10_000 });
    expect(events.some((event) => event.actions.branchCompaction)).toBe(true);
    for (const casing of ['snake', 'camel'] as const) {
      const session = (await sessionService.getSession(key))!;
      const json = JSON.parse(JSON.stringify(toAdkSessionJson({ session, events, casing })));
      // ADK for Python forbids unknown action keys: the summary rides in customMetadata.
      const actionKeys = (json.events as { actions: object }[]).flatMap((event) =>
        Object.keys(event.actions),
      );
      expect(actionKeys.filter((name) => /branch_?compaction/i.test(name))).toEqual([]);
      const back = fromAdkSessionJson(json).events as Event[];
      expect(back.map((event) => event.branch)).toEqual(events.map((event) => event.branch));
      for (const branch of [undefined, 'sweep.network', 'sweep.database', 'sweep.deploys']) {
        const original = scopeView({ tail: events }, { branch });
        const imported = scopeView({ tail: back }, { branch });
        expect(imported.checkpoint?.seq).toBe(original.checkpoint?.seq);
        expect(imported.checkpoint?.actions.compaction).toEqual(
          original.checkpoint?.actions.compaction,
        );
        expect(imported.tail.map((event) => event.id)).toEqual(
          original.tail.map((event) => event.id),
        );
      }
    }
  });
});
