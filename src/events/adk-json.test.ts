import { describe, expect, it } from 'vitest';
import { type AdkCasing, fromAdkSessionJson, toAdkSessionJson } from './adk-json.js';
import { InvalidEventError } from './errors.js';
import type { Event, Session } from './types.js';

const T = 1_700_000_000;

/** A session history that uses every field the event model has. */
function history(): Event[] {
  return [
    {
      id: 'e1',
      invocationId: 'inv-1',
      author: 'user',
      timestamp: T + 0.5,
      content: { role: 'user', parts: [{ text: 'Deploy failed, why?' }] },
      actions: {},
      seq: 1,
    },
    {
      id: 'e2',
      invocationId: 'inv-1',
      author: 'ops_agent',
      timestamp: T + 1.25,
      branch: 'root.ops_agent',
      content: {
        role: 'model',
        parts: [
          { text: 'Check the log first.', thought: true, thoughtSignature: 'c2lnLTE=' },
          {
            functionCall: {
              id: 'call-1',
              name: 'get_log',
              args: { service: 'checkout', lines: 50 },
            },
            thoughtSignature: 'c2lnLTI=',
          },
        ],
      },
      usageMetadata: {
        promptTokenCount: 800,
        candidatesTokenCount: 40,
        totalTokenCount: 936,
        cachedContentTokenCount: 100,
        thoughtsTokenCount: 96,
      },
      actions: {},
      finishReason: 'STOP',
      customMetadata: { adkFields: { modelVersion: 'gemini-2.5-flash' }, team: 'sre' },
      seq: 2,
    },
    {
      id: 'e3',
      invocationId: 'inv-1',
      author: 'ops_agent',
      timestamp: T + 2,
      content: {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: 'call-1',
              name: 'get_log',
              response: { result: { step: 'db_migrate', exit_code: 1 } },
            },
          },
        ],
      },
      actions: { stateDelta: { last_step: 'db_migrate', 'user:theme': 'dark' } },
      seq: 4,
    },
    {
      id: 'e4',
      invocationId: 'inv-1',
      author: 'ops_agent',
      timestamp: T + 3,
      content: {
        role: 'model',
        parts: [{ functionCall: { id: 'call-2', name: 'rollback', args: { to_version: 'v7' } } }],
      },
      actions: {
        requestedToolConfirmations: {
          'call-2': { hint: 'Roll back?', confirmed: false, payload: { ticket_id: 'INC-9' } },
        },
        requestedAuthConfigs: { 'call-2': { auth_scheme: { type: 'oauth2' } } },
        skipSummarization: true,
        endOfAgent: false,
      },
      longRunningToolIds: ['call-2'],
      partial: false,
      turnComplete: true,
      seq: 5,
    },
    {
      id: 'e5',
      invocationId: 'inv-2',
      author: 'user',
      timestamp: T + 10,
      content: {
        role: 'user',
        parts: [
          { text: 'Screenshot:' },
          { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
        ],
      },
      actions: { artifactDelta: { 'dashboard.png': 2 }, transferToAgent: 'ops_agent' },
      errorCode: 'SAFETY',
      errorMessage: 'blocked once',
      seq: 6,
    },
    {
      id: 'c1',
      invocationId: 'inv-c',
      author: 'user',
      timestamp: T + 11,
      usageMetadata: { promptTokenCount: 300, candidatesTokenCount: 60 },
      actions: {
        compaction: {
          startSeq: 1,
          endSeq: 5,
          startTimestamp: T + 0.5,
          endTimestamp: T + 3,
          compactedContent: { role: 'model', parts: [{ text: 'Summary: db_migrate failed.' }] },
          trigger: 'token_threshold',
          tokensBefore: 2400,
          tokensAfter: 640,
          summarizer: 'google:gemini-flash-latest',
        },
      },
      seq: 7,
    },
    {
      id: 'e6',
      invocationId: 'inv-3',
      author: 'user',
      timestamp: T + 12,
      content: { role: 'user', parts: [{ text: 'Go ahead.' }] },
      actions: { escalate: true },
      seq: 9,
    },
  ];
}

function session(events: Event[]): Session {
  return {
    appName: 'ops',
    userId: 'u-1',
    sessionId: 's-1',
    state: { service: 'checkout', nested: { some_key: 1 } },
    lastUpdateTime: T + 12,
    events,
  };
}

function catchError(run: () => unknown): InvalidEventError {
  try {
    run();
  } catch (error) {
    if (InvalidEventError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected an InvalidEventError');
}

describe.each<AdkCasing>(['camel', 'snake'])('round trip in %s case', (casing) => {
  it('keeps every field of every event, and the session fields', () => {
    const events = history();
    const exported = toAdkSessionJson({ session: session(events), casing });
    const imported = fromAdkSessionJson(JSON.parse(JSON.stringify(exported)));
    expect(imported.events).toEqual(events);
    expect(imported).toMatchObject({
      appName: 'ops',
      userId: 'u-1',
      sessionId: 's-1',
      lastUpdateTime: T + 12,
      state: { service: 'checkout', nested: { some_key: 1 } },
    });
  });

  it('exports, imports and exports again byte for byte (compactions, customMetadata)', () => {
    const first = JSON.stringify(toAdkSessionJson({ session: session(history()), casing }));
    const imported = fromAdkSessionJson(first);
    const second = JSON.stringify(
      toAdkSessionJson({ session: { ...session(imported.events as Event[]) }, casing }),
    );
    expect(second).toBe(first);
  });

  it('writes an active view (checkpoint first) in seq order; it reads back with seqs and range', () => {
    const events = history();
    const checkpoint = events.find((event) => event.actions.compaction)!;
    const endSeq = checkpoint.actions.compaction!.endSeq;
    const tail = events.filter((event) => event.seq > endSeq && !event.actions.compaction);
    expect(tail.length).toBeGreaterThan(0);
    const view = [checkpoint, ...tail];
    const exported = JSON.stringify(toAdkSessionJson({ session: session(view), casing }));
    const imported = fromAdkSessionJson(exported);
    const inOrder = [...view].sort((a, b) => a.seq - b.seq);
    expect(imported.events).toEqual(inOrder);
    expect(imported.events.find((event) => event.actions.compaction)?.actions.compaction).toEqual(
      checkpoint.actions.compaction,
    );
    const again = JSON.stringify(
      toAdkSessionJson({ session: session(imported.events as Event[]), casing }),
    );
    expect(again).toBe(exported);
  });

  it('writes only ADK fields in the compaction and orrery fields in customMetadata', () => {
    const exported = toAdkSessionJson({ session: session(history()), casing });
    const key = (camel: string, snake: string) => (casing === 'camel' ? camel : snake);
    const events = exported.events as Array<Record<string, Record<string, unknown>>>;
    const compactionEvent = events[5]!;
    expect(Object.keys(compactionEvent.actions!.compaction as object).sort()).toEqual(
      [
        key('compactedContent', 'compacted_content'),
        key('endTimestamp', 'end_timestamp'),
        key('startTimestamp', 'start_timestamp'),
      ].sort(),
    );
    expect(compactionEvent[key('customMetadata', 'custom_metadata')]).toEqual({
      orrery: {
        seq: 7,
        compaction: {
          startSeq: 1,
          endSeq: 5,
          trigger: 'token_threshold',
          tokensBefore: 2400,
          tokensAfter: 640,
          summarizer: 'google:gemini-flash-latest',
        },
      },
    });
    // ADK fields kept at import go back to the top level, user data keeps its keys.
    expect(events[1]![key('modelVersion', 'model_version')]).toBe('gemini-2.5-flash');
    expect(events[1]![key('customMetadata', 'custom_metadata')]).toEqual({
      team: 'sre',
      orrery: { seq: 2 },
    });
    expect(events[2]!.actions![key('stateDelta', 'state_delta')]).toEqual({
      last_step: 'db_migrate',
      'user:theme': 'dark',
    });
    expect(exported[key('appName', 'app_name')]).toBe('ops');
    expect(exported.id).toBe('s-1');
  });
});

describe('fromAdkSessionJson rejects bad input with the path', () => {
  const good = () =>
    [0, 1, 2, 3].map((index) => ({
      id: `e${index}`,
      invocation_id: 'i',
      author: 'agent',
      timestamp: index + 1,
      content: {
        role: 'model',
        parts: [{ text: 'a' }, { function_call: { id: 'c', name: 'f', args: {} } }],
      },
    }));

  it('names a function call without a name', () => {
    const events = good();
    (events[3]!.content.parts[1] as { function_call: Record<string, unknown> }).function_call.name =
      7;
    const error = catchError(() => fromAdkSessionJson({ events }));
    expect(error.path).toBe('events[3].content.parts[1].functionCall.name');
    expect(error.value).toBe(7);
  });

  it('names a part that holds no kind orrery knows', () => {
    const events = good();
    events[2]!.content.parts[0] = { video_metadata: { fps: 2 } } as never;
    const error = catchError(() => fromAdkSessionJson(events));
    expect(error.path).toBe('events[2].content.parts[0]');
    expect(error.message).toContain('codeExecutionResult');
  });

  it('names a missing timestamp, a bad role and a non-object event', () => {
    const missing = good();
    delete (missing[1] as Partial<(typeof missing)[number]>).timestamp;
    expect(catchError(() => fromAdkSessionJson(missing)).path).toBe('events[1].timestamp');
    const role = good();
    role[0]!.content.role = 'assistant';
    expect(catchError(() => fromAdkSessionJson(role)).path).toBe('events[0].content.role');
    expect(catchError(() => fromAdkSessionJson([42])).path).toBe('events[0]');
  });

  it('rejects a compaction that covers no earlier event, or has content', () => {
    const compaction = {
      id: 'c',
      invocation_id: 'j',
      author: 'user',
      timestamp: 9,
      actions: {
        compaction: {
          start_timestamp: 100,
          end_timestamp: 200,
          compacted_content: { role: 'model', parts: [{ text: 's' }] },
        },
      },
    };
    const uncovered = catchError(() => fromAdkSessionJson([...good(), compaction]));
    expect(uncovered.path).toBe('events[4].actions.compaction');
    const withContent = { ...compaction, content: { role: 'user', parts: [{ text: 'x' }] } };
    withContent.actions.compaction.start_timestamp = 1;
    expect(catchError(() => fromAdkSessionJson([...good(), withContent])).path).toBe(
      'events[4].content',
    );
  });

  it('rejects bad orrery metadata and a seq that goes backwards', () => {
    const events = good().map((event, index) => ({
      ...event,
      custom_metadata: { orrery: { seq: 10 - index } },
    }));
    expect(catchError(() => fromAdkSessionJson(events)).path).toBe(
      'events[1].customMetadata.orrery.seq',
    );
    const bad = good();
    (bad[0] as Record<string, unknown>).custom_metadata = { orrery: { seq: 'one' } };
    const error = catchError(() => fromAdkSessionJson(bad));
    expect(error.path).toBe('events[0].customMetadata.orrery.seq');
    expect(error.value).toBe('one');
  });

  it('rejects what is not a session', () => {
    expect(catchError(() => fromAdkSessionJson(5)).path).toBe('session');
    expect(catchError(() => fromAdkSessionJson('{not json')).path).toBe('session');
    expect(catchError(() => fromAdkSessionJson({ events: {} })).path).toBe('events');
    expect(catchError(() => fromAdkSessionJson({ state: [], events: [] })).path).toBe('state');
    expect(catchError(() => fromAdkSessionJson({ app_name: 3, events: [] })).path).toBe('appName');
  });
});

describe('toAdkSessionJson', () => {
  it('rejects an invalid event with its path', () => {
    const events = history();
    events[2]!.content!.parts[0] = {};
    const error = catchError(() => toAdkSessionJson({ session: session(events) }));
    expect(error.path).toBe('events[2].content.parts[0]');
  });

  it('does not share objects with the events it exports', () => {
    const events = history();
    const exported = toAdkSessionJson({ session: session(events) });
    const written = (
      exported.events as Array<{ actions: { stateDelta: Record<string, unknown> } }>
    )[2]!;
    written.actions.stateDelta.last_step = 'changed';
    expect(events[2]!.actions.stateDelta!.last_step).toBe('db_migrate');
  });
});
