/**
 * ADK session JSON out (docs/architecture.md#the-event-model). ADK for Python rejects unknown
 * fields, so a compaction holds only ADK's three; orrery's range, trigger, token counts and `seq`
 * go under `customMetadata.orrery`, where `fromAdkSessionJson` finds them again.
 */
import { type AdkCasing, casedKey, isPlainObject, setDefined } from './adk-casing.js';
import { adkJsSummaryEnd } from './adk-js-summary-end.js';
import { COMPACTION_FIELDS } from './adk-json-actions.js';
import { USAGE_DETAIL_KEYS } from './adk-json-parts.js';
import { parseEvent, parseNewEvent } from './schema.js';
import type { Content, Event, NewEvent, Part, Session } from './types.js';
import { EVENT_PART_KINDS } from './validate-event.js';

const ORRERY_METADATA_KEY = 'orrery';
const ADK_FIELDS_KEY = 'adkFields';
const ADK_TIMESTAMPS_KEY = 'adkTimestamps';
const ADK_COMPACTION_FIELDS = new Set(['startTimestamp', 'endTimestamp', 'compactedContent']);
/** Usage fields that hold lists of genai `ModalityTokenCount`. */
const USAGE_DETAILS = new Set(USAGE_DETAIL_KEYS);

export interface ToAdkSessionJsonOptions {
  /** The session's key, state and time; `events` is used when `options.events` is absent. */
  session: Partial<Omit<Session, 'events'>> & { events?: readonly NewEvent[] };
  /**
   * The events to write (e.g. the full history). Default: `session.events`. Stored events (all
   * with `seq`) are written in `seq` order, ADK's append order: an active view (checkpoint first,
   * then the tail) is written chronologically, so `fromAdkSessionJson` reads it back.
   */
  events?: readonly NewEvent[];
  /** `camel` (ADK's API and JS form, the default) or `snake` (ADK for Python's field names). */
  casing?: AdkCasing;
  /**
   * Unit of every timestamp written: `seconds` (ADK for Python) or `milliseconds` (ADK for
   * TypeScript and Java). Default: `milliseconds` when an event was imported with epoch
   * milliseconds, so events orrery added sort after them in ADK-JS's database; else `seconds`.
   */
  timestampUnit?: 'seconds' | 'milliseconds';
  /**
   * How compactions are written: `adk` (`actions.compaction`, ADK for Python, Go, Java) or
   * `adk-js` (ADK for TypeScript's `CompactedEvent`: `isCompacted`, `startTime`, `endTime`,
   * `compactedContent` text). Default: `adk-js` when the session holds a compaction ADK-JS wrote.
   */
  dialect?: AdkDialect;
}

/** The ADK a session is written for: see `ToAdkSessionJsonOptions.dialect`. */
export type AdkDialect = 'adk' | 'adk-js';

interface WriteForm {
  casing: AdkCasing;
  timestampUnit: 'seconds' | 'milliseconds';
  dialect: AdkDialect;
  /**
   * A compaction's earliest later time: the earliest timestamp, as written, of the events after
   * its range. In `adk-js`, its `endTime` is kept below it (`adkJsSummaryEnd`).
   */
  laterTimestamp?: number;
}

function adkFieldsOf(event: NewEvent): Record<string, unknown> {
  const fields = event.customMetadata?.[ADK_FIELDS_KEY];
  return isPlainObject(fields) ? fields : {};
}

/** Whether an event was imported with an epoch-millisecond timestamp (ADK-JS, ADK Java). */
function hadMilliseconds(event: NewEvent): boolean {
  const written = event.customMetadata?.[ADK_TIMESTAMPS_KEY];
  return (
    isPlainObject(written) && Object.values(written).some((value) => typeof value === 'number')
  );
}

/** ADK's session object `{id, appName, userId, state, events, lastUpdateTime}`, in `casing`. */
export function toAdkSessionJson(options: ToAdkSessionJsonOptions): Record<string, unknown> {
  const casing = options.casing ?? 'camel';
  const key = (name: string) => casedKey(name, casing);
  const session = options.session;
  const events = inSeqOrder(options.events ?? session.events ?? []);
  const form: WriteForm = {
    casing,
    timestampUnit:
      options.timestampUnit ?? (events.some(hadMilliseconds) ? 'milliseconds' : 'seconds'),
    dialect:
      options.dialect ??
      (events.some((event) => adkFieldsOf(event).isCompacted === true) ? 'adk-js' : 'adk'),
  };
  const output: Record<string, unknown> = {};
  setDefined(output, 'id', session.sessionId);
  setDefined(output, key('appName'), session.appName);
  setDefined(output, key('userId'), session.userId);
  output.state = structuredClone(session.state ?? {});
  const parsed = events.map((event, index) => {
    const path = `events[${index}]`;
    const stored = (event as { seq?: unknown }).seq !== undefined;
    return stored ? parseEvent(event, { path }) : parseNewEvent(event, { path });
  });
  const later = form.dialect === 'adk-js' ? laterTimestamps(parsed, form.timestampUnit) : [];
  output.events = parsed.map((event, index) =>
    toAdkEventJson(event, { ...form, laterTimestamp: later[index] }),
  );
  const lastUpdate = session.lastUpdateTime;
  setDefined(
    output,
    key('lastUpdateTime'),
    lastUpdate === undefined ? undefined : inUnit(lastUpdate, undefined, form.timestampUnit),
  );
  return output;
}

/**
 * For each compaction (by position), the earliest timestamp as written among the events after
 * its range (higher number, compactions left out), when one is; ADK-JS keeps only events timed
 * after `endTime`, orrery decides by `seq`. Events are numbered by `seq`, else the previous
 * number + 1, as `fromAdkSessionJson` numbers them. One pass and a binary search per compaction.
 */
function laterTimestamps(
  events: ReadonlyArray<NewEvent & { seq?: number }>,
  unit: WriteForm['timestampUnit'],
): Array<number | undefined> {
  const numbers: number[] = [];
  for (const event of events) numbers.push(event.seq ?? (numbers.at(-1) ?? 0) + 1);
  const ascending = numbers.every((number, index) => index === 0 || number > numbers[index - 1]!);
  // earliestFrom[index]: the earliest written time of the non-compaction events from `index` on.
  const earliestFrom = new Float64Array(events.length + 1).fill(Number.POSITIVE_INFINITY);
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]!;
    const written = event.actions.compaction ? undefined : writtenTimestamp(event, unit);
    earliestFrom[index] = Math.min(
      earliestFrom[index + 1]!,
      typeof written === 'number' ? written : Number.POSITIVE_INFINITY,
    );
  }
  const earliestAfter = (endSeq: number): number => {
    if (!ascending) {
      let earliest = Number.POSITIVE_INFINITY;
      events.forEach((event, index) => {
        if (numbers[index]! <= endSeq || event.actions.compaction) return;
        const written = writtenTimestamp(event, unit);
        if (typeof written === 'number') earliest = Math.min(earliest, written);
      });
      return earliest;
    }
    let low = 0;
    let high = numbers.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (numbers[middle]! > endSeq) high = middle;
      else low = middle + 1;
    }
    return earliestFrom[low]!;
  };
  return events.map((event) => {
    const compaction = event.actions.compaction;
    if (!compaction) return undefined;
    const earliest = earliestAfter(compaction.endSeq);
    return earliest === Number.POSITIVE_INFINITY ? undefined : earliest;
  });
}

/** The event's timestamp as `toAdkEventJson` writes it. */
function writtenTimestamp(event: NewEvent, unit: WriteForm['timestampUnit']): unknown {
  const written = event.customMetadata?.[ADK_TIMESTAMPS_KEY];
  return inUnit(event.timestamp, isPlainObject(written) ? written.timestamp : undefined, unit);
}

function inSeqOrder(events: readonly NewEvent[]): readonly NewEvent[] {
  const hasSeq = (event: NewEvent): event is Event => typeof (event as Event).seq === 'number';
  if (!events.every(hasSeq)) return events;
  return [...events].sort((a, b) => a.seq - b.seq);
}

/** One event in ADK's form. The event must already be valid (see `parseNewEvent`). */
export function toAdkEventJson(
  event: NewEvent & { seq?: number },
  casingOrForm: AdkCasing | Partial<WriteForm> = 'camel',
): Record<string, unknown> {
  const form: WriteForm = {
    casing: 'camel',
    timestampUnit: 'seconds',
    dialect: 'adk',
    ...(typeof casingOrForm === 'string' ? { casing: casingOrForm } : casingOrForm),
  };
  const casing = form.casing;
  const key = (name: string) => casedKey(name, casing);
  const {
    [ADK_FIELDS_KEY]: adkFields,
    [ADK_TIMESTAMPS_KEY]: writtenTimestamps,
    ...customMetadata
  } = structuredClone(event.customMetadata ?? {});
  const timestamps = isPlainObject(writtenTimestamps) ? writtenTimestamps : {};
  const output: Record<string, unknown> = {};
  output.id = event.id;
  output[key('invocationId')] = event.invocationId;
  output.author = event.author;
  output.timestamp = inUnit(event.timestamp, timestamps.timestamp, form.timestampUnit);
  setDefined(output, 'branch', event.branch);
  if (event.content) output.content = contentToAdk(event.content, casing);
  if (event.usageMetadata) {
    const usage: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(event.usageMetadata)) {
      setDefined(usage, key(name), USAGE_DETAILS.has(name) ? casedList(value, casing) : value);
    }
    output[key('usageMetadata')] = usage;
  }
  output.actions = actionsToAdk(event.actions, form, timestamps);
  // ADK-JS's `endTime` when it was moved below a later event's time (orrery's kept it here).
  let naturalEndTime: unknown;
  if (event.actions.compaction && form.dialect === 'adk-js') {
    const fields = jsCompactionFields(event.actions.compaction, form, timestamps);
    const endTime = fields[key('endTime')];
    if (typeof endTime === 'number' && form.laterTimestamp !== undefined) {
      const kept = adkJsSummaryEnd({ endTime, laterTimestamps: [form.laterTimestamp] });
      if (kept !== endTime) {
        naturalEndTime = endTime;
        fields[key('endTime')] = kept;
      }
    }
    Object.assign(output, fields);
  }
  if (event.longRunningToolIds) output[key('longRunningToolIds')] = [...event.longRunningToolIds];
  setDefined(output, 'partial', event.partial);
  setDefined(output, key('turnComplete'), event.turnComplete);
  setDefined(output, key('finishReason'), event.finishReason);
  setDefined(output, key('errorCode'), event.errorCode);
  setDefined(output, key('errorMessage'), event.errorMessage);

  if (writtenTimestamps !== undefined && !isPlainObject(writtenTimestamps)) {
    customMetadata[ADK_TIMESTAMPS_KEY] = writtenTimestamps;
  }
  // ADK fields orrery has no place for were kept at import: put them back where ADK wants them.
  if (isPlainObject(adkFields)) {
    for (const [name, value] of Object.entries(adkFields)) {
      // ADK-JS's marker means nothing without its other fields (written in `adk-js` only).
      if (name === 'isCompacted' && form.dialect !== 'adk-js') continue;
      if (!(key(name) in output)) output[key(name)] = value;
    }
  } else if (adkFields !== undefined) {
    customMetadata[ADK_FIELDS_KEY] = adkFields;
  }
  const orrery: Record<string, unknown> = {};
  setDefined(orrery, 'seq', event.seq);
  // An elision rule is orrery's own action: ADK for Python forbids unknown action keys.
  if (event.actions.elision) orrery.elision = structuredClone(event.actions.elision);
  // A branch's summary (docs/workflows.md) likewise: ADK has no branch-scoped compaction.
  if (event.actions.branchCompaction) {
    orrery.branchCompaction = structuredClone(event.actions.branchCompaction);
  }
  const compaction = event.actions.compaction;
  if (compaction) {
    const fields: Record<string, unknown> = {};
    // orrery's compaction fields: here, never in ADK's object.
    for (const field of COMPACTION_FIELDS) {
      setDefined(fields, field, structuredClone(compaction[field]));
    }
    // Read back by `fromAdkSessionJson` in place of the written `endTime`: a lossless trip.
    setDefined(fields, 'endTime', naturalEndTime);
    orrery.compaction = fields;
  }
  if (Object.keys(orrery).length > 0) customMetadata[ORRERY_METADATA_KEY] = orrery;
  const written = output[key('customMetadata')];
  if (Array.isArray(written)) {
    // ADK Java's list form, kept as imported: orrery's fields travel as one more entry.
    if (Object.keys(customMetadata).length > 0) {
      written.push({ key: ORRERY_METADATA_KEY, stringValue: JSON.stringify(customMetadata) });
    }
  } else if (Object.keys(customMetadata).length > 0) {
    // An empty custom metadata object is written as none (and read back as none).
    output[key('customMetadata')] = customMetadata;
  }
  return output;
}

/**
 * The timestamp as the file wrote it when it still says the same, else in `unit` (whole
 * milliseconds, as ADK-JS's `Date.now()` writes them).
 */
function inUnit(seconds: number, written: unknown, unit: WriteForm['timestampUnit']): unknown {
  const kept = asWritten(seconds, written);
  if (kept !== seconds || unit === 'seconds') return kept;
  return Math.round(seconds * 1000);
}

/** ADK-JS's `CompactedEvent` fields for an orrery compaction (its summary as one text). */
function jsCompactionFields(
  compaction: NonNullable<NewEvent['actions']['compaction']>,
  form: WriteForm,
  timestamps: Record<string, unknown>,
): Record<string, unknown> {
  const key = (name: string) => casedKey(name, form.casing);
  const text = compaction.compactedContent.parts
    .map((part) => part.text ?? '')
    .filter((piece) => piece !== '')
    .join('\n');
  return {
    [key('isCompacted')]: true,
    [key('startTime')]: inUnit(
      compaction.startTimestamp,
      timestamps.startTimestamp,
      'milliseconds',
    ),
    [key('endTime')]: inUnit(compaction.endTimestamp, timestamps.endTimestamp, 'milliseconds'),
    [key('compactedContent')]: text,
  };
}

/** The timestamp as the file wrote it (RFC 3339 text, epoch ms) when it still says the same. */
function asWritten(seconds: number, written: unknown): unknown {
  if (typeof written === 'number' && written / 1000 === seconds) return written;
  if (typeof written === 'string' && Math.abs(parseRfc3339(written) - seconds) < 1e-6) {
    return written;
  }
  return seconds;
}

function parseRfc3339(text: string): number {
  const match = /^(.*?)(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.exec(text);
  if (!match) return Number.NaN;
  return Date.parse(`${match[1]}${match[3]!.toUpperCase()}`) / 1000 + Number(`0${match[2] ?? ''}`);
}

/** A list of ADK objects (usage details, streamed arguments) with each one's keys cased. */
function casedList(value: unknown, casing: AdkCasing): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((item) => (isPlainObject(item) ? casedKeys(item, casing) : item));
}

function casedKeys(value: Record<string, unknown>, casing: AdkCasing): Record<string, unknown> {
  const output: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) {
    setDefined(output, casedKey(name, casing), structuredClone(item));
  }
  return output;
}

function contentToAdk(content: Content, casing: AdkCasing): Record<string, unknown> {
  return { role: content.role, parts: content.parts.map((part) => partToAdk(part, casing)) };
}

/**
 * A part in ADK's form: every key cased, one level down too (the kind's own object), except the
 * user data in a call's `args` and a response's `response`. Fields orrery does not model were
 * kept at import with their names camelized; they are cased back the same way.
 */
function partToAdk(part: Part, casing: AdkCasing): Record<string, unknown> {
  const output: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(part)) {
    if (value === undefined) continue;
    output[casedKey(name, casing)] =
      PART_OBJECTS.has(name) && isPlainObject(value)
        ? partObjectToAdk(value, casing)
        : structuredClone(value);
  }
  return output;
}

/** Every part kind but `text` holds an object. */
const PART_OBJECTS = new Set<string>(EVENT_PART_KINDS.filter((kind) => kind !== 'text'));

function partObjectToAdk(
  value: Record<string, unknown>,
  casing: AdkCasing,
): Record<string, unknown> {
  const output: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) {
    if (item === undefined) continue;
    output[casedKey(name, casing)] =
      name === 'partialArgs' ? casedList(item, casing) : structuredClone(item);
  }
  return output;
}

function actionsToAdk(
  actions: NewEvent['actions'],
  form: WriteForm,
  timestamps: Record<string, unknown>,
): Record<string, unknown> {
  const casing = form.casing;
  const output: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(actions)) {
    if (value === undefined) continue;
    // ADK-JS has no `actions.compaction`: the event's own fields carry it (`jsCompactionFields`).
    if (name === 'compaction' && form.dialect === 'adk-js') continue;
    // Carried in customMetadata.orrery.
    if (name === 'elision' || name === 'branchCompaction') continue;
    if (name === 'compaction') {
      const compaction = actions.compaction!;
      const adk: Record<string, unknown> = {
        [casedKey('startTimestamp', casing)]: inUnit(
          compaction.startTimestamp,
          timestamps.startTimestamp,
          form.timestampUnit,
        ),
        [casedKey('endTimestamp', casing)]: inUnit(
          compaction.endTimestamp,
          timestamps.endTimestamp,
          form.timestampUnit,
        ),
        [casedKey('compactedContent', casing)]: contentToAdk(compaction.compactedContent, casing),
      };
      // Fields ADK wrote that orrery does not model (kept at import) go back in place.
      for (const [field, item] of Object.entries(compaction)) {
        const known =
          ADK_COMPACTION_FIELDS.has(field) ||
          (COMPACTION_FIELDS as readonly string[]).includes(field);
        if (!known && item !== undefined) adk[casedKey(field, casing)] = structuredClone(item);
      }
      output.compaction = adk;
    } else {
      // Only the action's own name is cased: its value (state, confirmations) is user data.
      output[casedKey(name, casing)] = structuredClone(value);
    }
  }
  return output;
}
