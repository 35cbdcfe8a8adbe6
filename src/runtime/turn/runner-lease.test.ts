import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { EventsSummarizer } from '../../compaction/types.js';
import type { Event } from '../../events/types.js';
import { SessionBusyError, SessionLeaseLostError } from '../../sessions/errors.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import type { AcquireLeaseOptions, SessionLease } from '../../sessions/session-service.js';
import { ScriptedModel, textResponse, toolCallResponse } from '../../testing/scripted-model.js';
import { LlmAgent } from '../agents/llm-agent.js';
import { RunnerConfigError } from '../errors.js';
import { FunctionTool } from '../tools/function-tool.js';
import { Runner, type RunnerOptions } from './runner.js';

const key = { appName: 'unit', userId: 'u', sessionId: 's' };

async function collect(events: AsyncIterable<Event>): Promise<Event[]> {
  const collected: Event[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

async function newService(): Promise<InMemorySessionService> {
  const service = new InMemorySessionService();
  await service.createSession(key);
  return service;
}

/** Whether a caller that will not wait gets the session now. */
async function isFree(service: InMemorySessionService): Promise<boolean> {
  try {
    await (await service.acquireLease({ ...key, waitMs: 0 })).release();
    return true;
  } catch (error) {
    if (SessionBusyError.isInstance(error)) return false;
    throw error;
  }
}

/** A tool that reports it started and finishes only when released. */
function gatedTool() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let started!: () => void;
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const tool = new FunctionTool({
    name: 'slow',
    description: 'waits',
    parameters: z.object({}),
    execute: async () => {
      started();
      await gate;
      return { done: true };
    },
  });
  return { tool, release, running };
}

function runner(options: Partial<RunnerOptions> & Pick<RunnerOptions, 'sessionService'>) {
  return new Runner({
    appName: key.appName,
    agent: new LlmAgent({ name: 'agent', model: new ScriptedModel({ script: [] }) }),
    compaction: null,
    logger: false,
    ...options,
  });
}

function run(target: Runner, newMessage: string, signal?: AbortSignal) {
  return collect(target.run({ userId: key.userId, sessionId: key.sessionId, newMessage, signal }));
}

describe('Runner session lease', () => {
  it("two runners on one session run one invocation at a time: no request holds the other's open call", async () => {
    const sessionService = await newService();
    const { tool, release, running } = gatedTool();
    const firstModel = new ScriptedModel({
      script: [toolCallResponse([{ id: 'c1', name: 'slow' }]), textResponse('first done')],
    });
    const secondModel = new ScriptedModel({ script: [textResponse('second done')] });
    const first = runner({
      sessionService,
      agent: new LlmAgent({ name: 'agent', model: firstModel, tools: [tool] }),
    });
    const second = runner({
      sessionService,
      agent: new LlmAgent({ name: 'agent', model: secondModel }),
    });
    const firstRun = run(first, 'one');
    await running;
    const secondRun = run(second, 'two');
    release();
    await Promise.all([firstRun, secondRun]);

    // The second invocation started after the first one ended, and saw its call answered.
    const request = secondModel.calls[0]!;
    const parts = request.contents.flatMap((content) => content.parts);
    expect(parts.filter((part) => part.functionCall).map((part) => part.functionCall!.id)).toEqual([
      'c1',
    ]);
    expect(
      parts.filter((part) => part.functionResponse).map((part) => part.functionResponse!.id),
    ).toEqual(['c1']);
    const stored = (await sessionService.getSession({ ...key, events: 'full' }))!.events;
    const texts = stored.map(
      (event) => event.content?.parts[0]?.text ?? Object.keys(event.content?.parts[0] ?? {})[0],
    );
    expect(texts).toEqual([
      'one',
      'functionCall',
      'functionResponse',
      'first done',
      'two',
      'second done',
    ]);
    expect(await isFree(sessionService)).toBe(true);
  });

  it('throws SessionBusyError past waitMs and stores nothing', async () => {
    const sessionService = await newService();
    const held = await sessionService.acquireLease(key);
    const target = runner({ sessionService, sessionLease: { waitMs: 20 } });
    const error = await run(target, 'blocked').catch((caught: unknown) => caught);
    expect(SessionBusyError.isInstance(error)).toBe(true);
    expect((error as SessionBusyError).waitedMs).toBe(20);
    expect((await sessionService.getSession({ ...key, events: 'full' }))!.events).toEqual([]);
    await held.release();
  });

  it('stops a run whose lease is lost with SessionLeaseLostError, and releases it', async () => {
    const inner = await newService();
    let lost!: () => void;
    const released = vi.fn();
    const sessionService = Object.assign(Object.create(inner) as InMemorySessionService, {
      async acquireLease(options: AcquireLeaseOptions): Promise<SessionLease> {
        const lease = await inner.acquireLease(options);
        const controller = new AbortController();
        lost = () =>
          controller.abort(
            new SessionLeaseLostError({ ...key, leaseId: lease.leaseId, reason: 'test' }),
          );
        return {
          leaseId: lease.leaseId,
          signal: controller.signal,
          release: async () => {
            released();
            await lease.release();
          },
        };
      },
    });
    const { tool, release, running } = gatedTool();
    const model = new ScriptedModel({
      script: [toolCallResponse([{ id: 'c1', name: 'slow' }]), textResponse('never')],
    });
    const target = runner({
      sessionService,
      agent: new LlmAgent({ name: 'agent', model, tools: [tool] }),
    });
    const outcome = run(target, 'one').catch((caught: unknown) => caught);
    await running;
    lost();
    release();
    const error = await outcome;
    expect(SessionLeaseLostError.isInstance(error)).toBe(true);
    expect(model.calls).toHaveLength(1);
    expect(released).toHaveBeenCalledTimes(1);
    expect(await isFree(inner)).toBe(true);
  });

  it('releases the lease when the model fails, when the caller aborts and when it stops early', async () => {
    const sessionService = await newService();
    const failing = runner({
      sessionService,
      agent: new LlmAgent({
        name: 'agent',
        model: new ScriptedModel({ script: [new Error('provider down')] }),
      }),
    });
    await expect(run(failing, 'x')).rejects.toThrow('provider down');
    expect(await isFree(sessionService)).toBe(true);

    const { tool, release, running } = gatedTool();
    const aborting = runner({
      sessionService,
      agent: new LlmAgent({
        name: 'agent',
        model: new ScriptedModel({ script: [toolCallResponse([{ id: 'c2', name: 'slow' }])] }),
        tools: [tool],
      }),
    });
    const controller = new AbortController();
    const aborted = run(aborting, 'y', controller.signal).catch((caught: unknown) => caught);
    await running;
    controller.abort();
    release();
    expect(((await aborted) as Error).name).toBe('AbortError');
    expect(await isFree(sessionService)).toBe(true);

    const early = runner({
      sessionService,
      agent: new LlmAgent({
        name: 'agent',
        model: new ScriptedModel({ script: [textResponse('z')] }),
      }),
    });
    for await (const _event of early.run({ ...key, newMessage: 'z' })) break;
    expect(await isFree(sessionService)).toBe(true);
  });

  it('keeps the lease through a background compaction; the next run waits for it', async () => {
    const sessionService = await newService();
    let releaseSummary!: () => void;
    const gate = new Promise<void>((resolve) => {
      releaseSummary = resolve;
    });
    let summarizing!: () => void;
    const started = new Promise<void>((resolve) => {
      summarizing = resolve;
    });
    const summarizer: EventsSummarizer = {
      name: 'gated',
      async summarize() {
        summarizing();
        await gate;
        return { content: { role: 'model', parts: [{ text: 'summary' }] } };
      },
    };
    const model = new ScriptedModel({
      script: [textResponse('first', { promptTokenCount: 500 }), textResponse('second')],
    });
    const target = new Runner({
      appName: key.appName,
      agent: new LlmAgent({ name: 'agent', model }),
      sessionService,
      compaction: { tokenThreshold: 100, eventRetentionSize: 1 },
      summarizer,
      fallbackSummarizer: null,
      logger: false,
      background: true,
      // The recall tool's declaration alone is over this tiny threshold: it would compact again.
      recall: false,
    });
    await run(target, 'one');
    await started;
    expect(await isFree(sessionService)).toBe(false);
    const order: string[] = [];
    const second = run(target, 'two').then(() => order.push('second run done'));
    order.push('summary released');
    releaseSummary();
    await second;
    await target.flush();
    expect(order).toEqual(['summary released', 'second run done']);
    const stored = (await sessionService.getSession({ ...key, events: 'full' }))!.events;
    // The compaction landed before the second run's message.
    expect(stored.map((event) => (event.actions.compaction ? 'compaction' : event.author))).toEqual(
      ['user', 'agent', 'compaction', 'user', 'agent'],
    );
    expect(await isFree(sessionService)).toBe(true);
  });

  it('takes no lease with sessionLease: false, and checks the option', async () => {
    const sessionService = await newService();
    const acquire = vi.spyOn(sessionService, 'acquireLease');
    const target = runner({
      sessionService,
      sessionLease: false,
      agent: new LlmAgent({
        name: 'agent',
        model: new ScriptedModel({ script: [textResponse('a')] }),
      }),
    });
    await run(target, 'a');
    expect(acquire).not.toHaveBeenCalled();
    for (const [sessionLease, field] of [
      [{ waitMs: -1 }, 'sessionLease.waitMs'],
      [{ ttlMs: 1.5 }, 'sessionLease.ttlMs'],
      [true, 'sessionLease'],
    ] as const) {
      const error = (() => {
        try {
          runner({ sessionService, sessionLease: sessionLease as RunnerOptions['sessionLease'] });
        } catch (caught) {
          return caught;
        }
      })();
      expect(RunnerConfigError.isInstance(error)).toBe(true);
      expect((error as RunnerConfigError).field).toBe(field);
    }
  });
});
