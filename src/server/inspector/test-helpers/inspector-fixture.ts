/**
 * The inspector's test fixture: a server (not listening: `app.request`) over an in-memory store,
 * tokens for alice and bob+carol, and sessions built event by event, compactions included.
 */
import type { EventsCompactionConfig } from '../../../compaction/types.js';
import { createEvent } from '../../../events/event-helpers.js';
import type { Content, Event, NewEvent, SessionKey } from '../../../events/types.js';
import { LlmAgent } from '../../../runtime/agents/llm-agent.js';
import { Runner } from '../../../runtime/turn/runner.js';
import { InMemorySessionService } from '../../../sessions/in-memory-session-service.js';
import type { SessionService } from '../../../sessions/session-service.js';
import { DigestSummarizer } from '../../../summarizers/digest-summarizer.js';
import { ScriptedModel } from '../../../testing/scripted-model.js';
import { createServer, type OrreryServer } from '../../create-server.js';
import { APP, testAuth } from '../../test-helpers/test-server.js';
import type { InspectorOptions } from '../inspector-deps.js';

export { APP, TOKEN_ALICE, TOKEN_BOB } from '../../test-helpers/test-server.js';

export interface InspectorFixture {
  server: OrreryServer;
  service: SessionService;
  /** `app.request` with the token (if any) as a bearer header. */
  request(path: string, init?: RequestInit & { token?: string }): Promise<Response>;
}

export function inspectorFixture(
  options: {
    service?: SessionService;
    tokens?: boolean;
    inspector?: InspectorOptions;
    compaction?: EventsCompactionConfig | null;
    maxBodyBytes?: number;
    /** The agent's model id (default `scripted`, which no price catalog lists). */
    modelId?: string;
  } = {},
): InspectorFixture {
  const service = options.service ?? new InMemorySessionService();
  const runner = new Runner({
    appName: APP,
    agent: new LlmAgent({
      name: 'assistant',
      model: new ScriptedModel({
        script: [],
        ...(options.modelId !== undefined && { modelId: options.modelId }),
      }),
      instruction: 'Answer briefly.',
    }),
    sessionService: service,
    compaction: options.compaction ?? null,
    summarizer: new DigestSummarizer(),
    logger: false,
  });
  const server = createServer({
    runner,
    sessionService: service,
    logger: false,
    maxBodyBytes: options.maxBodyBytes,
    inspector: options.inspector,
    auth: options.tokens ? testAuth() : undefined,
  });
  return {
    server,
    service,
    request: (path, init = {}) => {
      const { token, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
      return Promise.resolve(server.app.request(path, { ...rest, headers }));
    },
  };
}

let clock = 1_800_000_000;

/** What a step of a scripted session appends. */
export type Step =
  | { user: string }
  | { model: string }
  | { call: { id: string; name: string; args?: Record<string, unknown> } }
  | { result: { id: string; name: string; response: Record<string, unknown> } }
  | { compaction: { startSeq: number; endSeq: number; summary: string; tokensBefore?: number } }
  | { partial: string };

function eventOf(step: Step, invocationId: string): NewEvent {
  const timestamp = clock++;
  const event = (author: string, content: Content, partial?: true) =>
    createEvent({ author, invocationId, timestamp, ...(partial ? { partial } : {}), content });
  if ('user' in step) return event('user', { role: 'user', parts: [{ text: step.user }] });
  if ('model' in step) return event('assistant', { role: 'model', parts: [{ text: step.model }] });
  if ('partial' in step) {
    return event('assistant', { role: 'model', parts: [{ text: step.partial }] }, true);
  }
  if ('call' in step) {
    const { id, name, args } = step.call;
    return event('assistant', {
      role: 'model',
      parts: [{ functionCall: { id, name, args: args ?? {} } }],
    });
  }
  if ('result' in step) {
    return event('assistant', { role: 'user', parts: [{ functionResponse: { ...step.result } }] });
  }
  const { startSeq, endSeq, summary, tokensBefore } = step.compaction;
  return createEvent({
    author: 'assistant',
    invocationId: `compaction-${endSeq}`,
    timestamp,
    actions: {
      compaction: {
        startSeq,
        endSeq,
        startTimestamp: 0,
        endTimestamp: 0,
        compactedContent: { role: 'model', parts: [{ text: summary }] },
        trigger: 'token_threshold',
        tokensBefore: tokensBefore ?? 1000,
        tokensAfter: 100,
        summarizer: 'digest',
      },
    },
  });
}

/**
 * Creates the session and appends the steps; a `user` step starts a new invocation. Returns
 * every stored event.
 */
export async function buildSession(
  service: SessionService,
  key: SessionKey,
  steps: readonly Step[],
): Promise<Event[]> {
  await service.createSession(key);
  const stored: Event[] = [];
  let invocation = 0;
  let checkpointSeq: number | null = null;
  for (const step of steps) {
    if ('user' in step) invocation++;
    const event = eventOf(step, `invocation-${invocation}`);
    if ('compaction' in step) {
      const appended = await service.appendCompaction({
        ...key,
        event,
        expectedCheckpointSeq: checkpointSeq,
      });
      checkpointSeq = appended.seq;
      stored.push(appended);
    } else {
      stored.push(await service.appendEvent({ ...key, event }));
    }
  }
  return stored;
}

/** A session of four invocations with two compactions (at seq 8 and 15), a dangling call too. */
export const TWO_COMPACTIONS: readonly Step[] = [
  { user: 'question one' },
  { call: { id: 'c1', name: 'lookup', args: { word: 'orrery' } } },
  { result: { id: 'c1', name: 'lookup', response: { definition: 'a model of the solar system' } } },
  { model: 'An orrery is a mechanical model of the solar system.' },
  { user: 'question two, a longer one about the planets and their moons' },
  { model: 'There are eight planets; most of them have moons.' },
  { user: 'question three' },
  { compaction: { startSeq: 1, endSeq: 6, summary: 'The user asked about orreries and planets.' } },
  { model: 'A third answer.' },
  { call: { id: 'c2', name: 'lookup', args: { word: 'moon' } } },
  { result: { id: 'c2', name: 'lookup', response: { definition: 'a natural satellite' } } },
  { call: { id: 'c3', name: 'lookup', args: { word: 'never answered' } } },
  { user: 'question four' },
  { model: 'A fourth answer.' },
  {
    compaction: {
      startSeq: 1,
      endSeq: 13,
      summary: 'Orreries, planets and moons; lookups of orrery and moon.',
    },
  },
  { partial: 'Strea' },
  { model: 'Streamed fifth answer.' },
  { user: 'question five' },
  { model: 'The last answer.' },
];
