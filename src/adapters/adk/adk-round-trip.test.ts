import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  InMemorySessionService as AdkInMemorySessionService,
  type BaseSessionService,
  FunctionTool,
  LlmAgent,
  type LlmRequest,
  type LlmResponse,
  LlmSummarizer,
  Runner,
  TokenBasedContextCompactor,
} from '@google/adk';
import { DatabaseSessionService } from '@google/adk/sessions/database';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { toAdkSessionJson } from '../../events/adk-json.js';
import type { Event } from '../../events/types.js';
import { importAdk } from '../../importers/adk.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { OrreryAdkSessionService } from './orrery-adk-session-service.js';
import { StubLlm } from './test-helpers/stub-llm.js';

const key = { appName: 'adk-app', userId: 'user-1', sessionId: 'session-1' };
const directories: string[] = [];

/*
 * A clock that moves 1 ms per user message, model reply and tool result, as a real model and
 * tool do: ADK-JS 2.0's own compactor (step 1) ends its summary at the last summarized event's
 * millisecond and its view keeps only later events, so with everything in one millisecond it
 * drops the kept call and throws "No function call event found" (about 1 run in 8 here).
 * Events sharing a millisecond through orrery are tested in orrery-adk-session-service.test.ts.
 */
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.UTC(2026, 0, 1));
});

function tick(): void {
  vi.advanceTimersByTime(1);
}

afterEach(() => {
  vi.useRealTimers();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true });
});

/** The scripted model, replying 1 ms later. */
class TickingLlm extends StubLlm {
  override async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void> {
    tick();
    yield* super.generateContentAsync(request);
  }
}

function lookupTool(): FunctionTool {
  return new FunctionTool({
    name: 'lookup',
    description: 'Looks a question up.',
    parameters: z.object({ question: z.string() }),
    execute: async ({ question }: { question: string }) => {
      tick();
      return { result: `Result for ${question}` };
    },
  });
}

async function turns(options: {
  sessionService: BaseSessionService;
  model: TickingLlm;
  compactors?: TokenBasedContextCompactor[];
  questions: string[];
}): Promise<void> {
  const agent = new LlmAgent({
    name: 'assistant',
    model: options.model,
    tools: [lookupTool()],
    contextCompactors: options.compactors ?? [],
  });
  const runner = new Runner({
    appName: key.appName,
    agent,
    sessionService: options.sessionService,
  });
  for (const text of options.questions) {
    tick();
    for await (const _event of runner.runAsync({
      userId: key.userId,
      sessionId: key.sessionId,
      newMessage: { role: 'user', parts: [{ text }] },
    })) {
      // Stored by the session service.
    }
  }
}

/** Loads an exported session into an ADK-JS session service, event by event. */
async function load(service: BaseSessionService, exported: Record<string, unknown>) {
  const session = await service.createSession({ ...key });
  for (const event of exported.events as never[]) await service.appendEvent({ session, event });
  return service.getSession({ ...key });
}

describe('an ADK-JS session through orrery and back', () => {
  it('imports, continues in orrery, exports, and loads back into ADK-JS in order', async () => {
    // 1. ADK-JS's own Runner, compacting with its own compactor.
    const adkService = new AdkInMemorySessionService();
    await adkService.createSession({ ...key });
    const model = new TickingLlm();
    await turns({
      sessionService: adkService,
      model,
      compactors: [
        new TokenBasedContextCompactor({
          tokenThreshold: 120,
          eventRetentionSize: 3,
          summarizer: new LlmSummarizer({ llm: model }),
        }),
      ],
      questions: ['q0', 'q1', 'q2', 'q3'],
    });
    const original = JSON.parse(JSON.stringify(await adkService.getSession({ ...key })));
    const adkCompactions = original.events.filter(
      (event: { isCompacted?: boolean }) => event.isCompacted,
    );
    expect(adkCompactions.length).toBeGreaterThanOrEqual(1);

    // 2. Imported into orrery: ADK-JS's summaries are compactions.
    const store = new InMemorySessionService();
    const imported = importAdk(JSON.stringify(original));
    await store.importSession!({ ...key, events: imported.events, state: imported.meta.state });
    const beforeContinue = await store.loadView(key);
    expect(beforeContinue.checkpoint?.actions.compaction.compactedContent.parts[0]?.text).toBe(
      adkCompactions.at(-1).compactedContent,
    );

    // 3. Continued through orrery: the model's first request starts with ADK-JS's summary.
    const orreryModel = new TickingLlm();
    const orrery = new OrreryAdkSessionService({
      sessionService: store,
      compaction: { tokenThreshold: 400, eventRetentionSize: 4 },
      summarizer: new DigestSummarizer({ maxChars: 200 }),
      logger: false,
    });
    await turns({ sessionService: orrery, model: orreryModel, questions: ['q4', 'q5', 'q6'] });
    expect(orreryModel.requests[0]?.[0]?.parts?.[0]?.text).toBe(
      `[Previous Context Summary]:\n${adkCompactions.at(-1).compactedContent}`,
    );

    // 4. Exported (full history, ADK-JS form) and loaded back by ADK-JS's own services.
    const history: Event[] = (await store.getSession({ ...key, events: 'full' }))!.events;
    const exported = toAdkSessionJson({ session: { ...key, state: {} }, events: history });
    const times = (exported.events as Array<{ timestamp: number }>).map((event) => event.timestamp);
    expect(times.every((time) => time > 1e12)).toBe(true);
    const directory = mkdtempSync(join(tmpdir(), 'orrery-adk-'));
    directories.push(directory);
    const database = new DatabaseSessionService(`sqlite://${join(directory, 'adk.db')}`);
    for (const service of [new AdkInMemorySessionService(), database]) {
      const loaded = await load(service, exported);
      const texts = loaded!.events.map((event) => JSON.stringify(event.content ?? null));
      // Continued events come after the whole history, in the order they were written.
      const positions = ['q0', 'q3', 'q4', 'q6'].map((question) =>
        texts.findIndex((text) => text.includes(`"text":"${question}"`)),
      );
      expect(positions.every((position) => position >= 0)).toBe(true);
      expect(positions).toEqual([...positions].sort((left, right) => left - right));
      expect(loaded!.events.length).toBe(history.length);
      // ADK-JS sees the summaries as its own CompactedEvents.
      const compacted = loaded!.events.filter(
        (event) => (event as { isCompacted?: boolean }).isCompacted,
      );
      expect(compacted.length).toBe(history.filter((event) => event.actions.compaction).length);

      // And its Runner picks the conversation up from the newest summary.
      const nextModel = new TickingLlm();
      await turns({ sessionService: service, model: nextModel, questions: ['q7'] });
      expect(nextModel.requests[0]?.[0]?.parts?.[0]?.text).toMatch(
        /^\[Previous Context Summary\]:/,
      );
      expect(JSON.stringify(nextModel.requests[0])).toContain('q6');
    }
  });
});
