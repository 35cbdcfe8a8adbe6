import { describe, expect, it } from 'vitest';
import type { Event, NewEvent } from '../../events/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import type { SessionService } from '../../sessions/session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import {
  compactionEvent,
  functionCallEvent,
  functionResponseEvent,
  modelTextEvent,
  userTextEvent,
} from '../../testing/event-builders.js';
import { ScriptedModel, textResponse } from '../../testing/scripted-model.js';
import { LlmAgent } from '../agents/llm-agent.js';
import { Runner } from '../turn/runner.js';
import { OrphanCallRestorer } from './restore-calls.js';

const key = { appName: 'app', userId: 'u', sessionId: 's' };

/**
 * Legacy data: a compaction (written by another tool) whose range ends between a call and its
 * response, after `filler` unrelated events between the call and the compaction's end.
 */
async function legacySession(options: { filler: number }): Promise<{
  sessionService: InMemorySessionService;
  call: Event;
}> {
  const sessionService = new InMemorySessionService();
  await sessionService.createSession(key);
  const append = (event: NewEvent) => sessionService.appendEvent({ ...key, event });
  await append(userTextEvent({ invocationId: 'i1', text: 'check the disk' }));
  const call = await append(
    functionCallEvent({
      invocationId: 'i1',
      author: 'agent',
      calls: [{ id: 'disk-1', name: 'disk_usage', args: { path: '/var' } }],
    }),
  );
  for (let index = 0; index < options.filler; index++) {
    await append(userTextEvent({ invocationId: 'i1', text: `note ${index}` }));
  }
  const last = await append(userTextEvent({ invocationId: 'i1', text: 'last summarized' }));
  await sessionService.appendCompaction({
    ...key,
    event: compactionEvent({ startSeq: 1, endSeq: last.seq, text: 'the user asked about disks' }),
    expectedCheckpointSeq: null,
  });
  await append(
    functionResponseEvent({
      invocationId: 'i1',
      author: 'agent',
      responses: [{ id: 'disk-1', name: 'disk_usage', response: { used: '91%' } }],
    }),
  );
  await append(modelTextEvent({ invocationId: 'i1', author: 'agent', text: '/var is 91% full' }));
  return { sessionService, call };
}

function countingListEvents(sessionService: SessionService): { calls: number } {
  const counter = { calls: 0 };
  const original = sessionService.listEvents.bind(sessionService);
  sessionService.listEvents = (options) => {
    counter.calls++;
    return original(options);
  };
  return counter;
}

describe('orphan responses: the call restored from storage', () => {
  it('the model sees the stored call right before its response, and the warning is logged', async () => {
    const { sessionService, call } = await legacySession({ filler: 3 });
    const model = new ScriptedModel({ script: [textResponse('it is the logs')] });
    const warnings: Record<string, unknown>[] = [];
    const logger = {
      warn: (fields: Record<string, unknown>) => warnings.push(fields),
      info: () => {},
      child: () => logger,
    };
    const runner = new Runner({
      appName: key.appName,
      agent: new LlmAgent({ name: 'agent', model }),
      sessionService,
      compaction: { tokenThreshold: 1_000_000, eventRetentionSize: 2 },
      summarizer: new DigestSummarizer(),
      logger: logger as never,
    });
    for await (const _event of runner.run({
      userId: key.userId,
      sessionId: key.sessionId,
      newMessage: 'what fills it?',
    })) {
      // drain
    }
    const contents = model.calls[0]!.contents;
    expect(contents.map((content) => content.role)).toEqual([
      'user',
      'model',
      'user',
      'model',
      'user',
    ]);
    expect(contents[1]!.parts).toEqual([call.content!.parts[0]]);
    expect(contents[2]!.parts[0]!.functionResponse).toMatchObject({ id: 'disk-1' });
    expect(warnings).toEqual([
      expect.objectContaining({
        msgType: 'view_warning',
        kind: 'orphan_call_restored',
        callId: 'disk-1',
      }),
    ]);
  });

  it('drops the orphan with a warning when the call is further back than the scan bound', async () => {
    const { sessionService } = await legacySession({ filler: 6 });
    const stored = await sessionService.loadView(key);
    const near = new OrphanCallRestorer({ sessionService, maxScanEvents: 6 });
    const dropped = await near.assemble({ key, stored });
    expect(dropped.warnings.map((warning) => warning.kind)).toEqual(['orphan_response_dropped']);
    expect(
      dropped.contents.flatMap((content) => content.parts).some((part) => part.functionResponse),
    ).toBe(false);

    const far = new OrphanCallRestorer({ sessionService, maxScanEvents: 9 });
    const restored = await far.assemble({ key, stored });
    expect(restored.warnings.map((warning) => warning.kind)).toEqual(['orphan_call_restored']);
  });

  it('remembers lookups: found or not, storage is read once per orphan', async () => {
    const { sessionService } = await legacySession({ filler: 2 });
    const counter = countingListEvents(sessionService);
    const stored = await sessionService.loadView(key);
    const restorer = new OrphanCallRestorer({ sessionService });
    await restorer.assemble({ key, stored });
    await restorer.assemble({ key, stored });
    expect(counter.calls).toBe(1);

    const notFound = new OrphanCallRestorer({ sessionService, maxScanEvents: 1 });
    const before = counter.calls;
    await notFound.assemble({ key, stored });
    const again = await notFound.assemble({ key, stored });
    expect(counter.calls - before).toBe(1);
    expect(again.warnings.map((warning) => warning.kind)).toEqual(['orphan_response_dropped']);
  });
});
