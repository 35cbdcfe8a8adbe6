import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Event } from '../../events/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { ScriptedModel, textResponse, toolCallResponse } from '../../testing/scripted-model.js';
import { LlmAgent } from '../agents/llm-agent.js';
import { PiiRedactionPlugin } from '../plugins/pii-redaction.js';
import type { Plugin } from '../plugins/plugin.js';
import { FunctionTool } from '../tools/function-tool.js';
import { CIRCULAR_MARKER } from '../tools/to-json-value.js';
import { Runner } from './runner.js';

const key = { appName: 'unit', userId: 'u', sessionId: 's' };

async function collect(events: AsyncIterable<Event>): Promise<Event[]> {
  const collected: Event[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

class Deploy {
  constructor(
    readonly id: string,
    readonly startedAt: Date,
  ) {}
}

function runnerWith(tool: FunctionTool, plugins: Plugin[] = []) {
  const model = new ScriptedModel({
    script: [toolCallResponse([{ id: 'c1', name: tool.name, args: {} }]), textResponse('done')],
  });
  const sessionService = new InMemorySessionService();
  const runner = new Runner({
    appName: key.appName,
    agent: new LlmAgent({ name: 'agent', model, tools: [tool] }),
    sessionService,
    compaction: null,
    plugins,
    logger: false,
  });
  return { model, sessionService, runner };
}

function responseOf(events: Event[]) {
  return events.flatMap((event) => event.content?.parts ?? []).find((part) => part.functionResponse)
    ?.functionResponse?.response;
}

describe('tool results the store cannot hold as they are', () => {
  it('a Date, Map, Set, bigint, class instance and cycle are stored as JSON and the turn completes', async () => {
    const cyclic: Record<string, unknown> = { step: 'loop' };
    cyclic.again = cyclic;
    const tool = new FunctionTool({
      name: 'status',
      description: 'deploy status',
      parameters: z.object({}),
      execute: async (_args, context) => {
        context.state.set('checkedAt', new Date('2025-03-01T10:00:00.000Z'));
        return {
          at: new Date('2025-03-01T09:00:00.000Z'),
          hosts: new Map([['web-1', 'up']]),
          regions: new Set(['eu', 'us']),
          bytes: 9007199254740993n,
          deploy: new Deploy('d-42', new Date(0)),
          cyclic,
          note: undefined,
        };
      },
    });
    const { model, sessionService, runner } = runnerWith(tool);
    await sessionService.createSession(key);
    const events = await collect(runner.run({ ...key, newMessage: 'status?' }));
    expect(events.at(-1)?.content?.parts[0]?.text).toBe('done');
    const expected = {
      at: '2025-03-01T09:00:00.000Z',
      hosts: { 'web-1': 'up' },
      regions: ['eu', 'us'],
      bytes: '9007199254740993',
      deploy: { id: 'd-42', startedAt: '1970-01-01T00:00:00.000Z' },
      cyclic: { step: 'loop', again: CIRCULAR_MARKER },
    };
    expect(responseOf(events)).toEqual(expected);
    // What was stored is what the model read next.
    const stored = (await sessionService.listEvents(key)).events;
    expect(responseOf(stored)).toEqual(expected);
    const sent = model.calls[1]!.contents.flatMap((content) => content.parts);
    expect(sent.find((part) => part.functionResponse)?.functionResponse?.response).toEqual(
      expected,
    );
    const session = await sessionService.getSession(key);
    expect(session?.state.checkedAt).toBe('2025-03-01T10:00:00.000Z');
  });

  it("a plugin's afterTool value is converted too; an unreadable one goes back as { error }", async () => {
    const tool = new FunctionTool({
      name: 'probe',
      description: 'probe',
      parameters: z.object({}),
      execute: async () => 'ok',
    });
    const unreadable = {
      get value(): never {
        throw new Error('getter exploded');
      },
    };
    const plugin: Plugin = { name: 'wrap', afterTool: () => unreadable };
    const { sessionService, runner } = runnerWith(tool, [plugin]);
    await sessionService.createSession(key);
    const events = await collect(runner.run({ ...key, newMessage: 'probe' }));
    expect(events.at(-1)?.content?.parts[0]?.text).toBe('done');
    expect(responseOf(events)).toEqual({
      error: "Tool 'probe' returned a value that cannot be stored as JSON: getter exploded",
    });
  });

  it('a 20,000-deep result under PiiRedactionPlugin: the call is answered with a typed error and the turn completes', async () => {
    let deep: Record<string, unknown> = { password: 'S3cretPw9' };
    for (let level = 0; level < 20_000; level++) deep = { a: deep };
    const tool = new FunctionTool({
      name: 'deep',
      description: 'deep',
      parameters: z.object({}),
      execute: async () => deep,
    });
    const { sessionService, runner, model } = runnerWith(tool, [new PiiRedactionPlugin()]);
    await sessionService.createSession(key);
    const events = await collect(runner.run({ ...key, newMessage: 'go deep' }));
    expect(events.at(-1)?.content?.parts[0]?.text).toBe('done');
    const expected = {
      error: expect.stringMatching(
        /^Tool 'deep' result was refused by a plugin's afterTool: RedactionError: \$\.a\.a.*\(\d+ more\).*: nests deeper than 512 levels/,
      ),
    };
    expect(responseOf(events)).toEqual(expected);
    // Stored and read by the model: the call has its response; the secret is nowhere.
    const stored = (await sessionService.listEvents(key)).events;
    expect(responseOf(stored)).toEqual(expected);
    expect(JSON.stringify(stored)).not.toContain('S3cretPw9');
    expect(model.calls).toHaveLength(2);
  });

  it('redactJson names the path of a value too deep to walk with a RedactionError', async () => {
    const { redactJson, RedactionError } = await import('../../redaction/index.js');
    let deep: unknown = 'x';
    for (let level = 0; level < 600; level++) deep = [deep];
    const caught = (() => {
      try {
        redactJson(deep);
      } catch (error) {
        return error;
      }
    })();
    expect(RedactionError.isInstance(caught)).toBe(true);
    expect((caught as InstanceType<typeof RedactionError>).path).toMatch(/^\$\[0\]\[0\].*more/);
    // 512 levels still redact.
    let fits: unknown = 'mail me at jane@example.com';
    for (let level = 0; level < 511; level++) fits = [fits];
    expect(JSON.stringify(redactJson(fits))).toContain('[REDACTED:email]');
  });
});
