/**
 * ADK session JSON in (SPEC §1): ADK for Python's snake_case dumps, its camelCase API form, or
 * orrery's own export. orrery's fields ride in `customMetadata.orrery`; ADK fields orrery has no
 * place for ride in `customMetadata.adkFields`, so an ADK session survives a trip through orrery.
 */
import { z } from 'zod';
import { extraFields, isPlainObject, readField, setDefined, toCamelKey } from './adk-casing.js';
import {
  CompactionTriggerSchema,
  invalid,
  parseEvent,
  parseNewEvent,
  parseWith,
} from './schema.js';
import type { NewEvent } from './types.js';

export type { AdkCasing } from './adk-casing.js';
export { type ToAdkSessionJsonOptions, toAdkSessionJson } from './adk-json-export.js';

/** Key in `customMetadata` that carries orrery's own fields through ADK. Reserved. */
export const ORRERY_METADATA_KEY = 'orrery';
/** Key in `customMetadata` that keeps ADK event fields orrery's model lacks. Reserved. */
export const ADK_FIELDS_KEY = 'adkFields';

/** An imported event: `seq` is set only when the export carried orrery's own `seq`. */
export type ImportedEvent = NewEvent & { seq?: number };

export interface AdkSessionImport {
  appName?: string;
  userId?: string;
  sessionId?: string;
  state: Record<string, unknown>;
  lastUpdateTime?: number;
  /**
   * In file order. A compaction written by ADK itself (timestamps only) gets `startSeq`/`endSeq`
   * from the events it covers, numbered by their `seq` when known, else by position (the
   * previous event's number + 1, starting at 1): the numbers a fresh session would assign.
   */
  events: ImportedEvent[];
}

const EVENT_KEYS = new Set([
  'id',
  'invocationId',
  'author',
  'timestamp',
  'branch',
  'content',
  'usageMetadata',
  'actions',
  'longRunningToolIds',
  'partial',
  'turnComplete',
  'finishReason',
  'errorCode',
  'errorMessage',
  'customMetadata',
  'seq',
]);
const PART_KEYS = new Set([
  'text',
  'thought',
  'thoughtSignature',
  'functionCall',
  'functionResponse',
  'inlineData',
]);
const USAGE_KEYS = [
  'promptTokenCount',
  'candidatesTokenCount',
  'totalTokenCount',
  'cachedContentTokenCount',
  'thoughtsTokenCount',
  'toolUsePromptTokenCount',
];
const ACTION_KEYS = [
  'stateDelta',
  'artifactDelta',
  'transferToAgent',
  'escalate',
  'skipSummarization',
  'requestedToolConfirmations',
  'requestedAuthConfigs',
];
const COMPACTION_FIELDS = [
  'startSeq',
  'endSeq',
  'trigger',
  'tokensBefore',
  'tokensAfter',
  'summarizer',
] as const;

const OrreryMetadataSchema = z.object({
  seq: z.number().int().positive().optional(),
  compaction: z
    .object({
      startSeq: z.number().int().positive().optional(),
      endSeq: z.number().int().positive().optional(),
      trigger: CompactionTriggerSchema.optional(),
      tokensBefore: z.number().nonnegative().optional(),
      tokensAfter: z.number().nonnegative().optional(),
      summarizer: z.string().min(1).optional(),
    })
    .optional(),
});
type OrreryMetadata = z.infer<typeof OrreryMetadataSchema>;

/** Function calls seen so far, by name, so id-less responses pair with them by position. */
type OpenCalls = Map<string, string[]>;

/**
 * Read an ADK session (object or JSON text) or a bare event array. Throws `InvalidEventError`
 * naming the path of the bad field, e.g. `events[3].content.parts[1].functionCall.name`.
 */
export function fromAdkSessionJson(input: unknown): AdkSessionImport {
  let data = input;
  if (typeof input === 'string') {
    try {
      data = JSON.parse(input);
    } catch (error) {
      throw invalid('session', 'not valid JSON', input, error);
    }
  }
  const result: AdkSessionImport = { state: {}, events: [] };
  let rawEvents: unknown;
  if (Array.isArray(data)) {
    rawEvents = data;
  } else if (isPlainObject(data)) {
    readSessionFields(data, result);
    rawEvents = readField(data, 'events') ?? [];
  } else {
    throw invalid('session', 'expected an ADK session object or an array of events', data);
  }
  if (!Array.isArray(rawEvents)) {
    throw invalid('events', 'expected an array of events', rawEvents);
  }

  const openCalls: OpenCalls = new Map();
  const numbered: Array<{ event: ImportedEvent; seq: number }> = [];
  let previousSeq = 0;
  for (const [index, raw] of rawEvents.entries()) {
    const path = `events[${index}]`;
    const candidate = convertEvent(raw, path, openCalls);
    if (isPlainObject(candidate)) completeCompaction(candidate, path, numbered);
    const event: ImportedEvent =
      isPlainObject(candidate) && candidate.seq !== undefined
        ? parseEvent(candidate, { path })
        : parseNewEvent(candidate, { path });
    if (event.seq !== undefined && event.seq <= previousSeq) {
      throw invalid(
        `${path}.customMetadata.orrery.seq`,
        `seq must strictly increase (the previous event is numbered ${previousSeq})`,
        event.seq,
      );
    }
    previousSeq = event.seq ?? previousSeq + 1;
    numbered.push({ event, seq: previousSeq });
    result.events.push(event);
  }
  return result;
}

function readSessionFields(data: Record<string, unknown>, result: AdkSessionImport): void {
  const sessionId = readField(data, 'id') ?? readField(data, 'sessionId');
  for (const [key, value] of [
    ['id', sessionId],
    ['appName', readField(data, 'appName')],
    ['userId', readField(data, 'userId')],
  ] as const) {
    if (value !== undefined && typeof value !== 'string') {
      throw invalid(key, 'expected a string', value);
    }
  }
  const state = readField(data, 'state');
  if (state !== undefined && !isPlainObject(state)) {
    throw invalid('state', 'expected an object', state);
  }
  const lastUpdateTime = readField(data, 'lastUpdateTime');
  if (lastUpdateTime !== undefined && !Number.isFinite(lastUpdateTime)) {
    throw invalid('lastUpdateTime', 'expected epoch seconds', lastUpdateTime);
  }
  setDefined(result as unknown as Record<string, unknown>, 'sessionId', sessionId);
  setDefined(result as unknown as Record<string, unknown>, 'appName', readField(data, 'appName'));
  setDefined(result as unknown as Record<string, unknown>, 'userId', readField(data, 'userId'));
  setDefined(result as unknown as Record<string, unknown>, 'lastUpdateTime', lastUpdateTime);
  result.state = state ? structuredClone(state) : {};
}

/** ADK's event (either casing) as an orrery-shaped candidate; the schema validates it after. */
function convertEvent(raw: unknown, path: string, openCalls: OpenCalls): unknown {
  if (!isPlainObject(raw)) return raw;
  const event: Record<string, unknown> = {};
  for (const key of [
    'id',
    'invocationId',
    'author',
    'timestamp',
    'branch',
    'longRunningToolIds',
    'partial',
    'turnComplete',
    'finishReason',
    'errorCode',
    'errorMessage',
    'seq',
  ]) {
    setDefined(event, key, readField(raw, key));
  }
  const eventId = typeof event.id === 'string' ? event.id : `${path}`;
  const content = readField(raw, 'content');
  if (content !== undefined) {
    const role = event.author === 'user' ? 'user' : 'model';
    event.content = convertContent(content, role, eventId, openCalls);
  }
  const usage = readField(raw, 'usageMetadata');
  if (usage !== undefined) event.usageMetadata = convertUsage(usage);
  const actions = readField(raw, 'actions');
  event.actions = actions === undefined ? {} : convertActions(actions, eventId, openCalls);

  const { customMetadata, metadata } = splitCustomMetadata(readField(raw, 'customMetadata'), path);
  const extras = extraFields(raw, EVENT_KEYS);
  if (Object.keys(extras).length > 0) {
    const kept = isPlainObject(customMetadata[ADK_FIELDS_KEY])
      ? customMetadata[ADK_FIELDS_KEY]
      : {};
    customMetadata[ADK_FIELDS_KEY] = { ...kept, ...structuredClone(extras) };
  }
  if (Object.keys(customMetadata).length > 0) event.customMetadata = customMetadata;

  if (metadata.seq !== undefined) event.seq = metadata.seq;
  if (metadata.compaction && isPlainObject(event.actions)) {
    const compaction = (event.actions as Record<string, unknown>).compaction;
    if (isPlainObject(compaction)) {
      for (const field of COMPACTION_FIELDS) {
        setDefined(compaction, field, metadata.compaction[field]);
      }
    }
  }
  return event;
}

/** The event's own custom metadata, and orrery's fields taken out of it. */
function splitCustomMetadata(
  raw: unknown,
  path: string,
): { customMetadata: Record<string, unknown>; metadata: OrreryMetadata } {
  if (!isPlainObject(raw)) return { customMetadata: {}, metadata: {} };
  const { [ORRERY_METADATA_KEY]: orrery, ...rest } = structuredClone(raw);
  if (orrery === undefined) return { customMetadata: rest, metadata: {} };
  const camel = camelizeKeys(orrery);
  if (isPlainObject(camel) && camel.compaction !== undefined) {
    camel.compaction = camelizeKeys(camel.compaction);
  }
  const metadata = parseWith(OrreryMetadataSchema, camel, `${path}.customMetadata.orrery`);
  return { customMetadata: rest, metadata };
}

function camelizeKeys(value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [toCamelKey(key), item]));
}

function convertContent(
  raw: unknown,
  fallbackRole: 'user' | 'model',
  eventId: string,
  openCalls: OpenCalls,
): unknown {
  if (!isPlainObject(raw)) return raw;
  const rawParts = readField(raw, 'parts') ?? [];
  const parts = Array.isArray(rawParts)
    ? rawParts.map((part, index) => convertPart(part, `${eventId}-${index}`, openCalls))
    : rawParts;
  // genai leaves `role` optional; a function response is always the user's turn.
  const hasResponse =
    Array.isArray(parts) && parts.some((part) => isPlainObject(part) && part.functionResponse);
  const role = readField(raw, 'role') ?? (hasResponse ? 'user' : fallbackRole);
  return { role, parts };
}

function convertPart(raw: unknown, partKey: string, openCalls: OpenCalls): unknown {
  if (!isPlainObject(raw)) return raw;
  // Unsupported kinds (fileData, executableCode, ...) stay so the error message shows them.
  const part: Record<string, unknown> = extraFields(raw, PART_KEYS);
  setDefined(part, 'text', readField(raw, 'text'));
  setDefined(part, 'thought', readField(raw, 'thought'));
  setDefined(part, 'thoughtSignature', readField(raw, 'thoughtSignature'));
  const call = readField(raw, 'functionCall');
  if (call !== undefined) part.functionCall = convertCall(call, partKey, openCalls);
  const response = readField(raw, 'functionResponse');
  if (response !== undefined) part.functionResponse = convertResponse(response, partKey, openCalls);
  const inline = readField(raw, 'inlineData');
  if (isPlainObject(inline)) {
    part.inlineData = { mimeType: readField(inline, 'mimeType'), data: readField(inline, 'data') };
  } else setDefined(part, 'inlineData', inline);
  return part;
}

/** A call without an id (older data) gets a deterministic one, so re-imports agree. */
function convertCall(raw: unknown, partKey: string, openCalls: OpenCalls): unknown {
  if (!isPlainObject(raw)) return raw;
  const name = readField(raw, 'name');
  let id = readField(raw, 'id');
  if (id === undefined || id === '') id = `${partKey}-call`;
  if (typeof name === 'string' && typeof id === 'string') {
    const open = openCalls.get(name) ?? [];
    open.push(id);
    openCalls.set(name, open);
  }
  return { id, name, args: structuredClone(readField(raw, 'args') ?? {}) };
}

/** A response without an id pairs with the oldest open call of the same name. */
function convertResponse(raw: unknown, partKey: string, openCalls: OpenCalls): unknown {
  if (!isPlainObject(raw)) return raw;
  const name = readField(raw, 'name');
  let id = readField(raw, 'id');
  const open = typeof name === 'string' ? openCalls.get(name) : undefined;
  if (id === undefined || id === '') {
    id = open?.shift() ?? `${partKey}-response`;
  } else if (open) {
    const index = open.indexOf(id as string);
    if (index >= 0) open.splice(index, 1);
  }
  return { id, name, response: structuredClone(readField(raw, 'response') ?? {}) };
}

function convertUsage(raw: unknown): unknown {
  if (!isPlainObject(raw)) return raw;
  const usage: Record<string, unknown> = {};
  for (const key of USAGE_KEYS) setDefined(usage, key, readField(raw, key));
  return usage;
}

function convertActions(raw: unknown, eventId: string, openCalls: OpenCalls): unknown {
  if (!isPlainObject(raw)) return raw;
  const actions: Record<string, unknown> = structuredClone(
    extraFields(raw, new Set([...ACTION_KEYS, 'compaction'])),
  );
  for (const key of ACTION_KEYS) {
    const value = readField(raw, key);
    setDefined(actions, key, value === undefined ? undefined : structuredClone(value));
  }
  // Dumps made without `exclude_none` write `"hint": null`: absent, as for every ADK field.
  const confirmations = actions.requestedToolConfirmations;
  if (isPlainObject(confirmations)) {
    for (const confirmation of Object.values(confirmations)) {
      if (!isPlainObject(confirmation)) continue;
      for (const field of ['hint', 'confirmed', 'payload']) {
        if (confirmation[field] === null) delete confirmation[field];
      }
    }
  }
  const compaction = readField(raw, 'compaction');
  if (compaction !== undefined) {
    actions.compaction = convertCompaction(compaction, eventId, openCalls);
  }
  return actions;
}

function convertCompaction(raw: unknown, eventId: string, openCalls: OpenCalls): unknown {
  if (!isPlainObject(raw)) return raw;
  const compaction: Record<string, unknown> = {};
  setDefined(compaction, 'startTimestamp', readField(raw, 'startTimestamp'));
  setDefined(compaction, 'endTimestamp', readField(raw, 'endTimestamp'));
  const content = readField(raw, 'compactedContent');
  if (content !== undefined) {
    compaction.compactedContent = convertContent(content, 'model', `${eventId}-summary`, openCalls);
  }
  // orrery's own (non-ADK) JSON may carry its fields inline.
  for (const field of COMPACTION_FIELDS) setDefined(compaction, field, readField(raw, field));
  return compaction;
}

/**
 * Fill in what an ADK-written compaction lacks: its range from the timestamps of the events
 * before it (ADK's rule; orrery decides by `seq` from here on), `sliding_window` (ADK's only
 * trigger), `adk` as summarizer, and 0 for the token counts ADK does not record.
 */
function completeCompaction(
  event: Record<string, unknown>,
  path: string,
  before: ReadonlyArray<{ event: ImportedEvent; seq: number }>,
): void {
  const actions = event.actions;
  if (!isPlainObject(actions) || !isPlainObject(actions.compaction)) return;
  const compaction = actions.compaction;
  if (compaction.startSeq === undefined || compaction.endSeq === undefined) {
    const { startTimestamp: start, endTimestamp: end } = compaction;
    if (typeof start !== 'number' || typeof end !== 'number') return; // the schema names it
    const covered = before.filter(
      (item) =>
        item.event.actions.compaction === undefined &&
        item.event.timestamp >= start &&
        item.event.timestamp <= end,
    );
    if (covered.length === 0) {
      throw invalid(
        `${path}.actions.compaction`,
        'no earlier event has a timestamp between startTimestamp and endTimestamp',
        compaction,
      );
    }
    compaction.startSeq ??= covered[0]!.seq;
    compaction.endSeq ??= covered[covered.length - 1]!.seq;
  }
  compaction.trigger ??= 'sliding_window';
  compaction.summarizer ??= 'adk';
  compaction.tokensBefore ??= 0;
  compaction.tokensAfter ??= 0;
}
