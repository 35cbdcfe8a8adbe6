/**
 * A runner process for the session-lease multi-process tests (forked with the tsx loader;
 * argv[2] is a JSON `LeaseWorkerTask`). `run`: after 'go', runs `invocations` invocations on one
 * session, each a tool call and an answer, with compaction at a low threshold, and checks every
 * request its model received for a call without its response or a response without its call.
 * `hold`: takes the session's lease, reports it, and waits to be killed. Not part of the library.
 */
import { z } from 'zod';
import { createEventsCompactionConfig } from '../../compaction/config.js';
import type { Content } from '../../events/types.js';
import type { Model, ModelRequest, ModelResponse } from '../../models/types.js';
import { SessionBusyError } from '../../sessions/errors.js';
import type { SessionService } from '../../sessions/session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { textResponse, toolCallResponse } from '../../testing/scripted-model.js';
import { LlmAgent } from '../agents/llm-agent.js';
import { FunctionTool } from '../tools/function-tool.js';
import { Runner } from '../turn/runner.js';

export type LeaseWorkerStore =
  | { kind: 'sqlite'; path: string }
  | { kind: 'postgres'; url: string; schema: string };

export interface LeaseWorkerTask {
  store: LeaseWorkerStore;
  appName: string;
  userId: string;
  sessionId: string;
  worker: number;
  mode: 'run' | 'hold';
  /** `run`: invocations, one after another. */
  invocations?: number;
  /** The Runner's `sessionLease` option (`hold`: the ttl of the lease taken). */
  sessionLease?: { waitMs?: number; ttlMs?: number } | false;
  /** How long the tool takes, in ms (widens the window another process could write in). */
  toolDelayMs?: number;
}

/** One unpaired part of one request: which call id, and what was wrong with it. */
export interface RequestOrphan {
  callId: string;
  problem: 'call without response' | 'response without call';
}

export type LeaseWorkerMessage =
  | { type: 'ready' }
  | { type: 'holding'; leaseId: string }
  | { type: 'request'; orphans: RequestOrphan[] }
  | { type: 'done'; finished: number; busy: number; requests: number }
  | { type: 'error'; message: string };

const task = JSON.parse(process.argv[2] ?? '{}') as LeaseWorkerTask;
const key = { appName: task.appName, userId: task.userId, sessionId: task.sessionId };

/** Resolves once the message is handed to the IPC channel, so exiting right after is safe. */
function send(message: LeaseWorkerMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) resolve();
    else process.send(message, undefined, {}, () => resolve());
  });
}

function waitForGo(): Promise<void> {
  return new Promise((resolve) => process.once('message', () => resolve()));
}

async function openStore(): Promise<SessionService> {
  if (task.store.kind === 'sqlite') {
    const { SqliteSessionService } = await import(
      '../../sessions/sqlite/sqlite-session-service.js'
    );
    const service = new SqliteSessionService({ path: task.store.path, busyTimeoutMs: 30_000 });
    await service.getDatabase();
    return service;
  }
  const { PostgresSessionService } = await import(
    '../../sessions/postgres/postgres-session-service.js'
  );
  const service = new PostgresSessionService({
    connectionString: task.store.url,
    schema: task.store.schema,
  });
  await service.migrate();
  return service;
}

/** Every call id in `contents` must have a response after it, and every response a call before. */
function findOrphans(contents: Content[]): RequestOrphan[] {
  const calls = new Set<string>();
  const answered = new Set<string>();
  const orphans: RequestOrphan[] = [];
  for (const content of contents) {
    for (const part of content.parts) {
      const response = part.functionResponse;
      if (!response) continue;
      if (calls.has(response.id)) answered.add(response.id);
      else orphans.push({ callId: response.id, problem: 'response without call' });
    }
    for (const part of content.parts) {
      if (part.functionCall) calls.add(part.functionCall.id);
    }
  }
  for (const id of calls) {
    if (!answered.has(id)) orphans.push({ callId: id, problem: 'call without response' });
  }
  return orphans;
}

/** Calls the tool at the first step of each invocation, answers at the second. */
class ProbeModel implements Model {
  readonly modelId = 'lease-probe';
  requests = 0;
  private run = 0;
  private step = 0;

  startRun(run: number): void {
    this.run = run;
    this.step = 0;
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    this.requests++;
    await send({ type: 'request', orphans: findOrphans(request.contents) });
    const step = this.step++;
    if (step === 0) {
      return toolCallResponse([
        { id: `w${task.worker}-r${this.run}`, name: 'probe', args: { run: this.run } },
      ]);
    }
    return textResponse(`worker ${task.worker} run ${this.run} done ${'a'.repeat(200)}`);
  }
}

async function runInvocations(service: SessionService): Promise<void> {
  const model = new ProbeModel();
  const probe = new FunctionTool({
    name: 'probe',
    description: 'Waits a moment and reports',
    parameters: z.object({ run: z.number() }),
    execute: async ({ run }, context) => {
      await new Promise((resolve) => setTimeout(resolve, task.toolDelayMs ?? 20));
      context.signal?.throwIfAborted();
      return { run, output: 'r'.repeat(400) };
    },
  });
  const runner = new Runner({
    appName: task.appName,
    agent: new LlmAgent({ name: 'prober', model, tools: [probe] }),
    sessionService: service,
    compaction: createEventsCompactionConfig({
      env: {},
      tokenThreshold: 600,
      eventRetentionSize: 2,
      compactionInterval: 0,
    }),
    summarizer: new DigestSummarizer({ maxChars: 400 }),
    fallbackSummarizer: null,
    logger: false,
    sessionLease: task.sessionLease,
  });
  let finished = 0;
  let busy = 0;
  for (let run = 0; run < (task.invocations ?? 1); run++) {
    model.startRun(run);
    try {
      const message = `worker ${task.worker} run ${run} ${'u'.repeat(100)}`;
      for await (const _event of runner.run({ ...key, newMessage: message })) {
        // Events are checked from the store at the end.
      }
      finished++;
    } catch (error) {
      if (!SessionBusyError.isInstance(error)) throw error;
      busy++;
    }
  }
  await runner.flush();
  await send({ type: 'done', finished, busy, requests: model.requests });
}

async function hold(service: SessionService): Promise<void> {
  if (!service.acquireLease) throw new Error('the store has no acquireLease');
  const options = task.sessionLease === false ? {} : (task.sessionLease ?? {});
  const lease = await service.acquireLease({ ...key, ...options });
  await send({ type: 'holding', leaseId: lease.leaseId });
  // Held (and renewed, on an unref'd timer) until the parent kills this process.
  setInterval(() => {}, 60_000);
  await new Promise(() => {});
}

async function main(): Promise<void> {
  const service = await openStore();
  await send({ type: 'ready' });
  await waitForGo();
  if (task.mode === 'hold') await hold(service);
  else await runInvocations(service);
  await service.close?.();
}

main().then(
  () => process.exit(0),
  async (error: unknown) => {
    await send({ type: 'error', message: String((error as Error)?.stack ?? error) });
    process.exit(1);
  },
);
