import { describe, expect, it } from 'vitest';
import { InvalidEventError } from './errors.js';
import { EventSchema, joinPath, NewEventSchema } from './schema.js';
import type { Event } from './types.js';
import { assertValidEvent } from './validate-event.js';

function textEvent(): Event {
  return {
    id: 'e1',
    invocationId: 'inv-1',
    author: 'agent',
    timestamp: 1_700_000_000.5,
    content: {
      role: 'model',
      parts: [
        { text: 'thinking', thought: true, thoughtSignature: 'c2ln' },
        { functionCall: { id: 'call-1', name: 'search', args: { q: 'x' } } },
        { functionResponse: { id: 'call-1', name: 'search', response: { ok: true } } },
        { inlineData: { mimeType: 'image/png', data: '' } },
      ],
    },
    usageMetadata: { promptTokenCount: 3 },
    actions: {
      stateDelta: { a: 1 },
      artifactDelta: { 'file.txt': 2 },
      requestedToolConfirmations: { 'call-1': { hint: 'ok?', confirmed: true } },
      endOfAgent: true,
    },
    longRunningToolIds: ['call-1'],
    customMetadata: { source: 'test' },
    seq: 5,
  };
}

function compaction(): Event {
  return {
    id: 'c1',
    invocationId: '',
    author: 'user',
    timestamp: 0,
    actions: {
      compaction: {
        startSeq: 1,
        endSeq: 4,
        startTimestamp: 1,
        endTimestamp: 4,
        compactedContent: { role: 'model', parts: [{ text: 'summary' }] },
        trigger: 'manual',
        tokensBefore: 10,
        tokensAfter: 2,
        summarizer: 'digest',
        fallback: { from: 'openai:gpt', reason: 'timeout' },
      },
    },
    seq: 5,
  };
}

// biome-ignore lint/suspicious/noExplicitAny: the cases write into arbitrary nested fields
type Loose = Record<string, any>;
type Mutation = (event: Loose) => void;

/** Each bad event, and the path both the rule and the zod schema must name. */
const invalidCases: Array<[string, () => Event, Mutation, string]> = [
  ['empty id', textEvent, (event) => (event.id = ''), 'id'],
  ['numeric invocationId', textEvent, (event) => (event.invocationId = 7), 'invocationId'],
  ['missing author', textEvent, (event) => delete event.author, 'author'],
  ['negative timestamp', textEvent, (event) => (event.timestamp = -1), 'timestamp'],
  ['null branch', textEvent, (event) => (event.branch = null), 'branch'],
  ['role system', textEvent, (event) => (event.content.role = 'system'), 'content.role'],
  ['parts not a list', textEvent, (event) => (event.content.parts = {}), 'content.parts'],
  ['empty part', textEvent, (event) => (event.content.parts[0] = {}), 'content.parts[0]'],
  [
    'two kinds in a part',
    textEvent,
    (event) => (event.content.parts[1].text = 'x'),
    'content.parts[1]',
  ],
  [
    'call without id',
    textEvent,
    (event) => delete event.content.parts[1].functionCall.id,
    'content.parts[1].functionCall.id',
  ],
  [
    'call with empty name',
    textEvent,
    (event) => (event.content.parts[1].functionCall.name = ''),
    'content.parts[1].functionCall.name',
  ],
  [
    'args not an object',
    textEvent,
    (event) => (event.content.parts[1].functionCall.args = [1]),
    'content.parts[1].functionCall.args',
  ],
  [
    'response without id',
    textEvent,
    (event) => (event.content.parts[2].functionResponse.id = ''),
    'content.parts[2].functionResponse.id',
  ],
  [
    'thought on a call',
    textEvent,
    (event) => (event.content.parts[1].thought = true),
    'content.parts[1].thought',
  ],
  [
    'inline data without mime type',
    textEvent,
    (event) => delete event.content.parts[3].inlineData.mimeType,
    'content.parts[3].inlineData.mimeType',
  ],
  [
    'fractional usage',
    textEvent,
    (event) => (event.usageMetadata.promptTokenCount = 1.5),
    'usageMetadata.promptTokenCount',
  ],
  ['actions missing', textEvent, (event) => delete event.actions, 'actions'],
  [
    'state delta a list',
    textEvent,
    (event) => (event.actions.stateDelta = []),
    'actions.stateDelta',
  ],
  [
    'artifact version a string',
    textEvent,
    (event) => (event.actions.artifactDelta['file.txt'] = 'v2'),
    'actions.artifactDelta["file.txt"]',
  ],
  [
    'tool ids not strings',
    textEvent,
    (event) => (event.longRunningToolIds = [1]),
    'longRunningToolIds[0]',
  ],
  ['seq 0', textEvent, (event) => (event.seq = 0), 'seq'],
  [
    'start after end',
    compaction,
    (event) => (event.actions.compaction.startSeq = 9),
    'actions.compaction.startSeq',
  ],
  [
    'end at own seq',
    compaction,
    (event) => (event.actions.compaction.endSeq = 5),
    'actions.compaction.endSeq',
  ],
  [
    'unknown trigger',
    compaction,
    (event) => (event.actions.compaction.trigger = 'cron'),
    'actions.compaction.trigger',
  ],
  [
    'empty summarizer',
    compaction,
    (event) => (event.actions.compaction.summarizer = ''),
    'actions.compaction.summarizer',
  ],
  [
    'summary without parts',
    compaction,
    (event) => (event.actions.compaction.compactedContent = { role: 'model' }),
    'actions.compaction.compactedContent.parts',
  ],
  [
    'content on a compaction',
    compaction,
    (event) => (event.content = { role: 'user', parts: [] }),
    'content',
  ],
];

function elision(): Event {
  return {
    id: 'x1',
    invocationId: 'inv-2',
    author: 'user',
    timestamp: 0,
    actions: {
      elision: {
        throughSeq: 4,
        minOutputBytes: 2000,
        trigger: 'token_threshold',
        tokensBefore: 900,
        tokensAfter: 300,
      },
    },
    seq: 5,
  };
}

invalidCases.push(
  [
    'elision through its own seq',
    elision,
    (event) => (event.actions.elision.throughSeq = 5),
    'actions.elision.throughSeq',
  ],
  [
    'elision with a fractional size',
    elision,
    (event) => (event.actions.elision.minOutputBytes = 1.5),
    'actions.elision.minOutputBytes',
  ],
  [
    'elision with an unknown trigger',
    elision,
    (event) => (event.actions.elision.trigger = 'cron'),
    'actions.elision.trigger',
  ],
  [
    'elision with negative tokens',
    elision,
    (event) => (event.actions.elision.tokensAfter = -1),
    'actions.elision.tokensAfter',
  ],
);

function ruleError(event: unknown): InvalidEventError | undefined {
  try {
    assertValidEvent(event, { stored: true, path: 'event' });
    return undefined;
  } catch (error) {
    if (InvalidEventError.isInstance(error)) return error;
    throw error;
  }
}

function schemaPath(event: unknown): string | undefined {
  const result = EventSchema.safeParse(event);
  return result.success ? undefined : joinPath('event', result.error.issues[0]!.path);
}

describe('the event rule and the zod schema agree', () => {
  it.each([
    ['every part kind and action', textEvent],
    ['a compaction with a fallback', compaction],
    ['an elision rule', elision],
  ])('both accept %s', (_, make) => {
    const event = make();
    expect(ruleError(event)).toBeUndefined();
    expect(schemaPath(event)).toBeUndefined();
    const { seq: _seq, ...fresh } = event;
    expect(NewEventSchema.safeParse(fresh).success).toBe(true);
    expect(() => assertValidEvent(fresh)).not.toThrow();
  });

  it.each(invalidCases)('both reject %s at the same path', (_, make, mutate, path) => {
    const event = make() as unknown as Loose;
    mutate(event);
    const error = ruleError(event);
    expect(error?.path).toBe(`event.${path}`);
    expect(schemaPath(event)).toBe(`event.${path}`);
  });
});

describe('assertValidEvent', () => {
  it('names the path and the value of the bad field', () => {
    const event = textEvent() as unknown as Loose;
    event.content.parts[1].functionCall.id = 42;
    const error = ruleError(event)!;
    expect(error.path).toBe('event.content.parts[1].functionCall.id');
    expect(error.value).toBe(42);
    expect(error.message).toBe('event.content.parts[1].functionCall.id: must be a string (got 42)');
  });

  it('refuses a compaction for kind event and requires one for kind compaction', () => {
    expect(() => assertValidEvent(compaction(), { kind: 'event' })).toThrow(
      /event\.actions\.compaction: compaction events must be appended with appendCompaction/,
    );
    expect(() => assertValidEvent(textEvent(), { kind: 'compaction' })).toThrow(
      /event\.actions\.compaction: is required/,
    );
  });

  it('leaves compaction ranges to the view when ranges is false (stored rows)', () => {
    const event = compaction();
    event.actions.compaction!.startSeq = 9;
    expect(() => assertValidEvent(event, { stored: true, ranges: false })).not.toThrow();
    expect(() => assertValidEvent(event, { stored: true })).toThrow(InvalidEventError);
  });

  it('checks JSON values unless told the event was parsed from JSON', () => {
    const event = textEvent();
    event.customMetadata = { count: 10n };
    expect(ruleError(event)?.path).toBe('event.customMetadata.count');
    expect(() => assertValidEvent(event, { stored: true, json: false })).not.toThrow();
  });
});
