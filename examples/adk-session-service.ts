/**
 * orrery's compaction in an ADK for TypeScript app: the Runner and LlmAgent as they are, with
 * an `OrreryAdkSessionService` as the session service. 20 turns, each calling a tool; at the
 * end, what the model was sent beside what the orrery store keeps.
 *
 *   npx tsx examples/adk-session-service.ts
 *
 * No key is needed: a scripted `BaseLlm` plays the model (it calls `read_log`, then answers).
 * For SQLite or PostgreSQL, pass `new SqliteSessionService(...)` from `orrery/sqlite` (or
 * `orrery/postgres`) as `sessionService` instead of the in-memory store.
 */
import {
  BaseLlm,
  type BaseLlmConnection,
  FunctionTool,
  LlmAgent,
  type LlmRequest,
  type LlmResponse,
  Runner,
} from '@google/adk';
import { z } from 'zod';
import { OrreryAdkSessionService } from '../src/adapters/adk/index.js';
import { DigestSummarizer, InMemorySessionService } from '../src/index.js';

/** Requests the model received, as JSON characters (what it would bill as input). */
const sentSizes: number[] = [];

class OfflineModel extends BaseLlm {
  constructor() {
    super({ model: 'offline' });
  }

  async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void> {
    sentSizes.push(JSON.stringify(request.contents).length);
    const last = request.contents.at(-1);
    const question = last?.parts?.[0]?.text;
    if (last?.role === 'user' && question !== undefined) {
      yield {
        content: {
          role: 'model',
          parts: [{ functionCall: { name: 'read_log', args: { question } } }],
        },
      };
      return;
    }
    yield { content: { role: 'model', parts: [{ text: 'The log shows a retry storm; fixed.' }] } };
  }

  async connect(): Promise<BaseLlmConnection> {
    throw new Error('offline model: no live connection');
  }
}

async function main(): Promise<void> {
  const store = new InMemorySessionService();
  // The only new lines in an ADK-JS app: orrery's store behind ADK's session service.
  const sessionService = new OrreryAdkSessionService({
    sessionService: store,
    compaction: { tokenThreshold: 2000, eventRetentionSize: 6 },
    summarizer: new DigestSummarizer(),
    logger: false,
  });
  const readLog = new FunctionTool({
    name: 'read_log',
    description: 'Reads the service log.',
    parameters: z.object({ question: z.string() }),
    execute: async () => ({ log: 'GET /orders 503 retry=3\n'.repeat(40) }),
  });
  const agent = new LlmAgent({ name: 'oncall', model: new OfflineModel(), tools: [readLog] });
  const runner = new Runner({ appName: 'oncall', agent, sessionService });
  const key = { appName: 'oncall', userId: 'ada', sessionId: 'incident-7' };
  await sessionService.createSession(key);
  for (let turn = 1; turn <= 20; turn++) {
    for await (const _event of runner.runAsync({
      userId: key.userId,
      sessionId: key.sessionId,
      newMessage: { role: 'user', parts: [{ text: `What failed at step ${turn}?` }] },
    })) {
      // ADK's events, stored by orrery as they come.
    }
  }
  const full = await store.getSession({ ...key, events: 'full' });
  const compactions = full?.events.filter((event) => event.actions.compaction).length ?? 0;
  console.log(
    `stored: ${full?.events.length} events (${compactions} compactions), nothing deleted`,
  );
  console.log(`largest request: ${Math.max(...sentSizes)} chars; last: ${sentSizes.at(-1)} chars`);
  console.log(`without compaction the last request would hold every one of the 80 ADK events`);
}

await main();
