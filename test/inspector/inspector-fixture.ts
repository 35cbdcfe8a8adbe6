/**
 * A real server (`createServer` + `listen`, port 0, bearer tokens for alice and bob) on a
 * seeded SQLite store, for the inspector page tests. Alice's `incident-review` session is built
 * with the library: events appended through the store and two compactions written by the
 * Compactor (digest summaries; the second after its main summarizer failed, so it records a
 * fallback); bob has a session of his own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CompactionEvent, NewEvent, Runner, SessionKey } from '../../src/index.js';
import { Compactor, DigestSummarizer } from '../../src/index.js';
import type { InspectorOptions } from '../../src/server/index.js';
import { inspectorReplay } from '../../src/server/inspector/inspector-replay.js';
import {
  APP,
  startTestServer,
  type TestServer,
} from '../../src/server/test-helpers/test-server.js';
import { SqliteSessionService } from '../../src/sessions/sqlite/index.js';
import {
  functionCallEvent,
  functionResponseEvent,
  modelTextEvent,
  userTextEvent,
} from '../../src/testing/index.js';

export { APP, TOKEN_ALICE, TOKEN_BOB } from '../../src/server/test-helpers/test-server.js';

export const INCIDENT: SessionKey = { appName: APP, userId: 'alice', sessionId: 'incident-review' };
export const QUIET: SessionKey = { appName: APP, userId: 'alice', sessionId: 'quiet-chat' };
export const BOB_SESSION: SessionKey = { appName: APP, userId: 'bob', sessionId: 'bob-private' };
export const BOB_SECRET = 'bob-only: the launch date is March 3';

/** Tool output long enough to be collapsed; its last line is only in the full event. */
export const LONG_OUTPUT_END = 'END-OF-LOGS: retry storm against payments-replica-2';
const longOutput = () =>
  [
    ...Array.from(
      { length: 60 },
      (_, line) => `14:0${line % 10}:${String(line).padStart(2, '0')} checkout-7f9 retry ${line}`,
    ),
    LONG_OUTPUT_END,
  ].join('\n');

export interface InspectorFixture {
  server: TestServer;
  service: SqliteSessionService;
  url: string;
  /** The incident session's two compaction events, oldest first. */
  compactions: CompactionEvent[];
  /** Appends to a session with the fixture's clock. */
  append(key: SessionKey, event: NewEvent): Promise<void>;
  /** Compacts a session with the Compactor (digest summary, two events retained). */
  compact(key: SessionKey): Promise<CompactionEvent>;
  close(): Promise<void>;
}

export async function startInspectorFixture(
  options: {
    seed?: (service: SqliteSessionService) => Promise<void>;
    /** The served Runner (default: the test server's, compaction off, an empty script). */
    runner?: (service: SqliteSessionService) => Runner;
    /** More inspector options (e.g. `readOnlyReason`). */
    inspector?: Partial<InspectorOptions>;
  } = {},
): Promise<InspectorFixture> {
  const directory = mkdtempSync(join(tmpdir(), 'orrery-inspector-store-'));
  const service = new SqliteSessionService({ path: join(directory, 'inspector.db') });
  // Recent times, and after each compaction (stamped by the Compactor's clock) later ones.
  let clock = Math.floor(Date.now() / 1000) - 600;
  const append = async (key: SessionKey, event: NewEvent) => {
    clock += 7;
    await service.appendEvent({ ...key, event: { ...event, timestamp: clock } });
  };

  for (const key of [INCIDENT, QUIET, BOB_SESSION]) await service.createSession(key);
  const invocation = async (number: number, question: string, tool: string, answer: string) => {
    const invocationId = `inv-${number}`;
    await append(INCIDENT, userTextEvent({ invocationId, text: question }));
    await append(
      INCIDENT,
      functionCallEvent({
        invocationId,
        author: 'assistant',
        calls: [{ id: `call-${number}`, name: tool, args: { namespace: 'checkout' } }],
      }),
    );
    await append(
      INCIDENT,
      functionResponseEvent({
        invocationId,
        author: 'assistant',
        responses: [{ id: `call-${number}`, name: tool, response: { output: longOutput() } }],
      }),
    );
    await append(INCIDENT, modelTextEvent({ invocationId, author: 'assistant', text: answer }));
  };
  const compactor = new Compactor({
    sessionService: service,
    config: { tokenThreshold: 1, eventRetentionSize: 2, retentionTokenBudget: 100_000 },
    summarizer: new DigestSummarizer(),
  });
  // The second compaction of the incident: the main summarizer fails, the digest falls back.
  const failingCompactor = new Compactor({
    sessionService: service,
    config: { tokenThreshold: 1, eventRetentionSize: 2, retentionTokenBudget: 100_000 },
    summarizer: {
      name: 'flaky-model',
      summarize: async () => {
        throw new Error('the summarizer model is unavailable');
      },
    },
    fallbackSummarizer: new DigestSummarizer(),
  });
  const compactions: CompactionEvent[] = [];
  const compactSession = async (key: SessionKey, options: { failFirst?: boolean } = {}) => {
    const report = await (options.failFirst ? failingCompactor : compactor).compact({
      ...key,
      trigger: 'token_threshold',
    });
    if (report.outcome !== 'compacted' || !report.event) {
      throw new Error(`the fixture's compaction did not run: ${JSON.stringify(report)}`);
    }
    clock = Math.max(clock, Math.ceil(report.event.timestamp));
    return report.event;
  };
  const compact = async (options: { failFirst?: boolean } = {}) => {
    compactions.push(await compactSession(INCIDENT, options));
  };
  await invocation(
    1,
    'Checkout p99 doubled after the deploy. What changed?',
    'kubectl_logs',
    'The new pods retry against payments.',
  );
  await invocation(2, 'Is the cache involved?', 'grep', 'No: the cache hit rate is flat.');
  await compact();
  await invocation(3, 'Which replica is slow?', 'sql_query', 'payments-replica-2 is lagging.');
  await invocation(4, 'What should we roll back?', 'read_file', 'Roll back v2.14.0 to v2.13.2.');
  await compact({ failFirst: true });
  await invocation(5, 'Write the incident summary.', 'read_file', 'Summary written.');

  await append(QUIET, userTextEvent({ text: 'Hello there' }));
  await append(QUIET, modelTextEvent({ author: 'assistant', text: 'Hi! How can I help?' }));
  await append(BOB_SESSION, userTextEvent({ text: BOB_SECRET }));
  await append(BOB_SESSION, modelTextEvent({ author: 'assistant', text: 'Noted.' }));
  await options.seed?.(service);

  const server = await startTestServer({
    service,
    tokens: true,
    serverOptions: {
      logger: false,
      inspector: { replay: inspectorReplay, streamPollMs: 100, ...options.inspector },
      ...(options.runner && { runner: options.runner(service) }),
    },
  });
  return {
    server,
    service,
    url: server.url,
    compactions,
    append,
    compact: (key) => compactSession(key),
    async close() {
      await server.close();
      await service.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
