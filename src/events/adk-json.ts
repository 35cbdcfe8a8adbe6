/**
 * ADK session JSON in (docs/architecture.md#the-event-model): ADK for Python's snake_case dumps,
 * its camelCase API form, or orrery's own export. orrery's fields ride in `customMetadata.orrery`;
 * ADK fields orrery has no place for ride in `customMetadata.adkFields`, so an ADK session survives
 * a trip through orrery.
 */
import { z } from 'zod';
import { extraFields, isPlainObject, readField, setDefined } from './adk-casing.js';
import {
  COMPACTION_FIELDS,
  convertActions,
  convertJsCompaction,
  EVENT_KEYS,
  JS_COMPACTION_KEYS,
  readTimestamp,
} from './adk-json-actions.js';
import { camelizeKeys, convertContent, convertUsage, type OpenCalls } from './adk-json-parts.js';
import {
  CompactionTriggerSchema,
  EventCompactionSchema,
  EventElisionSchema,
  invalid,
  parseEvent,
  parseNewEvent,
  parseWith,
  SummaryRequestSchema,
} from './schema.js';
import type { NewEvent } from './types.js';

export type { AdkCasing } from './adk-casing.js';
export {
  type AdkDialect,
  type ToAdkSessionJsonOptions,
  toAdkSessionJson,
} from './adk-json-export.js';

/** Key in `customMetadata` that carries orrery's own fields through ADK. Reserved. */
export const ORRERY_METADATA_KEY = 'orrery';
/** Key in `customMetadata` that keeps ADK event fields orrery's model lacks. Reserved. */
export const ADK_FIELDS_KEY = 'adkFields';
/**
 * Key in `customMetadata` that keeps timestamps as the file wrote them when that was not float
 * seconds (ADK Go's and ADK Rust's RFC 3339 text, ADK Java's epoch milliseconds), so an export
 * writes them back. Reserved.
 */
export const ADK_TIMESTAMPS_KEY = 'adkTimestamps';

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
      fallback: z.object({ from: z.string().min(1), reason: z.string() }).optional(),
      summaryRequest: SummaryRequestSchema.optional(),
      rolling: z.boolean().optional(),
      /** ADK-JS's `endTime` before the export kept it below a later event's time. */
      endTime: z.union([z.number(), z.string()]).optional(),
    })
    .optional(),
  /** An elision rule (docs/architecture.md#elision-the-cheap-tier): ADK forbids the action key. */
  elision: EventElisionSchema.optional(),
  /** A branch's summary (docs/workflows.md#compaction-per-branch): ADK has no such action. */
  branchCompaction: EventCompactionSchema.optional(),
});
type OrreryMetadata = z.infer<typeof OrreryMetadataSchema>;

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

  const reader = new AdkEventReader();
  for (const [index, raw] of rawEvents.entries()) result.events.push(reader.add(raw, index));
  return result;
}

/**
 * ADK events read one at a time, in file order (`fromAdkSessionJson`, or a streamed import of
 * an exported session: docs/architecture.md#edge). Keeps the calls still open (id-less
 * responses pair with them) and each event's time and number (8 + 8 + 1 bytes an event: an
 * ADK-written compaction's range is found from the timestamps before it), never the events.
 */
export class AdkEventReader {
  private readonly openCalls: OpenCalls = new Map();
  private readonly before = new EventTimeline();
  private previousSeq = 0;

  /** Event `index` of the file (named in errors as `events[index]`). */
  add(raw: unknown, index: number): ImportedEvent {
    const path = `events[${index}]`;
    const candidate = convertEvent(raw, path, this.openCalls);
    if (isPlainObject(candidate)) completeCompaction(candidate, path, this.before);
    const event: ImportedEvent =
      isPlainObject(candidate) && candidate.seq !== undefined
        ? parseEvent(candidate, { path })
        : parseNewEvent(candidate, { path });
    if (event.seq !== undefined && event.seq <= this.previousSeq) {
      throw invalid(
        `${path}.customMetadata.orrery.seq`,
        `seq must strictly increase (the previous event is numbered ${this.previousSeq})`,
        event.seq,
      );
    }
    this.previousSeq = event.seq ?? this.previousSeq + 1;
    this.before.push(event.timestamp, this.previousSeq, event.actions.compaction !== undefined);
    return event;
  }
}

/** Timestamps, numbers and compaction flags of the events so far, in growable typed arrays. */
class EventTimeline {
  private times = new Float64Array(1024);
  private seqs = new Float64Array(1024);
  private compactions = new Uint8Array(1024);
  length = 0;

  push(time: number, seq: number, compaction: boolean): void {
    if (this.length === this.times.length) {
      this.times = grow(this.times, new Float64Array(this.length * 2));
      this.seqs = grow(this.seqs, new Float64Array(this.length * 2));
      this.compactions = grow(this.compactions, new Uint8Array(this.length * 2));
    }
    this.times[this.length] = time;
    this.seqs[this.length] = seq;
    this.compactions[this.length] = compaction ? 1 : 0;
    this.length++;
  }

  /** The first and last number of the non-compaction events timed within `[from, to]`. */
  covered(from: number, to: number): { first: number; last: number } | undefined {
    let first: number | undefined;
    let last: number | undefined;
    for (let index = 0; index < this.length; index++) {
      const time = this.times[index] as number;
      if (this.compactions[index] === 1 || time < from || time > to) continue;
      first ??= this.seqs[index];
      last = this.seqs[index];
    }
    return first === undefined || last === undefined ? undefined : { first, last };
  }
}

function grow<T extends Float64Array | Uint8Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

/** The session's own fields (`id`, `appName`, `userId`, `state`, `lastUpdateTime`) into `result`. */
export function readSessionFields(data: Record<string, unknown>, result: AdkSessionImport): void {
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
  const lastUpdateTime = readTimestamp(readField(data, 'lastUpdateTime'), 'lastUpdateTime', {});
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
  const timestamps: Record<string, unknown> = {};
  event.timestamp = readTimestamp(readField(raw, 'timestamp'), 'timestamp', timestamps);
  const eventId = typeof event.id === 'string' ? event.id : `${path}`;
  const content = readField(raw, 'content');
  if (content !== undefined) {
    const role = event.author === 'user' ? 'user' : 'model';
    event.content = convertContent(content, role, eventId, openCalls);
  }
  const usage = readField(raw, 'usageMetadata');
  if (usage !== undefined) event.usageMetadata = convertUsage(usage);
  const actions = readField(raw, 'actions');
  const conversion = { eventId, openCalls, timestamps };
  event.actions = actions === undefined ? {} : convertActions(actions, conversion);

  const { customMetadata, metadata } = splitCustomMetadata(readField(raw, 'customMetadata'), path);
  // The export may have moved `endTime` below a later event (ADK-JS's view): orrery's is kept.
  const jsCompaction = convertJsCompaction(raw, conversion, metadata.compaction?.endTime);
  if (jsCompaction && isPlainObject(event.actions)) {
    const actions = event.actions as Record<string, unknown>;
    actions.compaction ??= jsCompaction;
    // Its content repeats the summary; an orrery compaction has none (kept in `adkFields`).
    delete event.content;
  }

  // ADK-JS's compaction fields became `actions.compaction`; only its marker stays, for the export.
  const extras = extraFields(raw, jsCompaction ? JS_COMPACTION_KEYS : EVENT_KEYS);
  if (Object.keys(extras).length > 0) {
    const kept = isPlainObject(customMetadata[ADK_FIELDS_KEY])
      ? customMetadata[ADK_FIELDS_KEY]
      : {};
    customMetadata[ADK_FIELDS_KEY] = { ...kept, ...structuredClone(extras) };
  }
  if (Object.keys(timestamps).length > 0) customMetadata[ADK_TIMESTAMPS_KEY] = timestamps;
  if (Object.keys(customMetadata).length > 0) event.customMetadata = customMetadata;

  if (metadata.seq !== undefined) event.seq = metadata.seq;
  if (metadata.elision && isPlainObject(event.actions)) {
    // The export carries the rule here; back where orrery keeps it (the schema checks it after).
    (event.actions as Record<string, unknown>).elision ??= metadata.elision;
  }
  if (metadata.branchCompaction && isPlainObject(event.actions)) {
    (event.actions as Record<string, unknown>).branchCompaction ??= metadata.branchCompaction;
  }
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
  // ADK Java writes a list of `{key, stringValue}`: kept as written, with the other ADK fields.
  if (Array.isArray(raw)) {
    const entries = structuredClone(raw) as unknown[];
    const index = entries.findIndex(
      (entry) => isPlainObject(entry) && entry.key === ORRERY_METADATA_KEY,
    );
    let fields: Record<string, unknown> = {};
    if (index >= 0) {
      const text = (entries[index] as Record<string, unknown>).stringValue;
      try {
        const parsed: unknown = typeof text === 'string' ? JSON.parse(text) : undefined;
        if (isPlainObject(parsed)) fields = parsed;
      } catch (error) {
        throw invalid(
          `${path}.customMetadata[${index}].stringValue`,
          'not valid JSON',
          text,
          error,
        );
      }
      entries.splice(index, 1);
    }
    const split = splitCustomMetadata(fields, path);
    if (entries.length > 0) {
      const kept = split.customMetadata[ADK_FIELDS_KEY];
      split.customMetadata[ADK_FIELDS_KEY] = {
        ...(isPlainObject(kept) ? kept : {}),
        customMetadata: entries,
      };
    }
    return split;
  }
  if (!isPlainObject(raw)) return { customMetadata: {}, metadata: {} };
  const { [ORRERY_METADATA_KEY]: orrery, ...rest } = structuredClone(raw);
  if (orrery === undefined) return { customMetadata: rest, metadata: {} };
  const camel = camelizeKeys(orrery);
  if (isPlainObject(camel) && camel.compaction !== undefined) {
    camel.compaction = camelizeKeys(camel.compaction);
  }
  if (isPlainObject(camel) && camel.elision !== undefined) {
    camel.elision = camelizeKeys(camel.elision);
  }
  if (isPlainObject(camel) && camel.branchCompaction !== undefined) {
    camel.branchCompaction = camelizeKeys(camel.branchCompaction);
  }
  const metadata = parseWith(OrreryMetadataSchema, camel, `${path}.customMetadata.orrery`);
  return { customMetadata: rest, metadata };
}

/**
 * Fill in what an ADK-written compaction lacks: its range from the timestamps of the events
 * before it (ADK's rule; orrery decides by `seq` from here on), `sliding_window` (ADK's only
 * trigger), `adk` as summarizer, and 0 for the token counts ADK does not record.
 */
function completeCompaction(
  event: Record<string, unknown>,
  path: string,
  before: EventTimeline,
): void {
  const actions = event.actions;
  if (!isPlainObject(actions) || !isPlainObject(actions.compaction)) return;
  const compaction = actions.compaction;
  if (compaction.startSeq === undefined || compaction.endSeq === undefined) {
    const { startTimestamp: start, endTimestamp: end } = compaction;
    if (typeof start !== 'number' || typeof end !== 'number') return; // the schema names it
    // A rolling one (ADK-JS's) covers every event up to its end, as ADK-JS's view drops them.
    const from = compaction.rolling === true ? Number.NEGATIVE_INFINITY : start;
    const covered = before.covered(from, end);
    if (!covered) {
      throw invalid(
        `${path}.actions.compaction`,
        'no earlier event has a timestamp between startTimestamp and endTimestamp',
        compaction,
      );
    }
    compaction.startSeq ??= covered.first;
    compaction.endSeq ??= covered.last;
    // ADK's summaries cover their own window only, not what came before (see `expandView`).
    compaction.rolling ??= false;
  }
  compaction.trigger ??= 'sliding_window';
  compaction.summarizer ??= 'adk';
  compaction.tokensBefore ??= 0;
  compaction.tokensAfter ??= 0;
}
