/**
 * ADK event actions, compactions (ADK for Python's `actions.compaction`, ADK-JS's
 * `CompactedEvent`) and timestamps in every dialect, as orrery-shaped candidates. Part of the
 * ADK JSON reader (`adk-json.ts`); see docs/architecture.md#the-event-model.
 */
import { extraFields, isPlainObject, readField, setDefined } from './adk-casing.js';
import { convertContent, type OpenCalls } from './adk-json-parts.js';

export const EVENT_KEYS = new Set([
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

const ACTION_KEYS = [
  'stateDelta',
  'artifactDelta',
  'transferToAgent',
  'escalate',
  'skipSummarization',
  'requestedToolConfirmations',
  'requestedAuthConfigs',
];

/**
 * orrery's compaction fields, beside ADK's three: read inline or from `customMetadata.orrery`,
 * written under `customMetadata.orrery` (`adk-json-export.ts`).
 */
export const COMPACTION_FIELDS = [
  'startSeq',
  'endSeq',
  'trigger',
  'tokensBefore',
  'tokensAfter',
  'summarizer',
  'fallback',
  'summaryRequest',
  'rolling',
] as const;

/** What converting one event's parts needs: its id, the calls open so far, its timestamps. */
export interface EventConversion {
  eventId: string;
  openCalls: OpenCalls;
  /** Timestamps as ADK wrote them, where that was not float seconds (filled in). */
  timestamps: Record<string, unknown>;
}

export function convertActions(raw: unknown, conversion: EventConversion): unknown {
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
    actions.compaction = convertCompaction(compaction, conversion);
  }
  return actions;
}

/**
 * Event keys read from ADK-JS's `CompactedEvent`. `isCompacted` (marks the dialect) and
 * `content` (repeats the summary) are kept as written in `adkFields`.
 */
export const JS_COMPACTION_KEYS = new Set(
  [...EVENT_KEYS, 'startTime', 'endTime', 'compactedContent'].filter((key) => key !== 'content'),
);

/**
 * ADK for TypeScript's compaction: a `CompactedEvent` (`isCompacted`, `startTime`, `endTime` in
 * epoch milliseconds, `compactedContent` text) rather than `actions.compaction`. ADK-JS sends
 * the newest one and the events after its `endTime` (`getActiveEvents`): its summaries are
 * rolling, each folding in the previous one, so the range is completed as everything up to
 * `endTime`. `undefined` when the event is not one. `endTime`, when given, is read in place of
 * the written one (orrery's own, kept in `customMetadata.orrery` by the export).
 */
export function convertJsCompaction(
  raw: Record<string, unknown>,
  conversion: EventConversion,
  endTime?: unknown,
): Record<string, unknown> | undefined {
  if (readField(raw, 'isCompacted') !== true) return undefined;
  const { eventId, openCalls, timestamps } = conversion;
  const text = readField(raw, 'compactedContent');
  const content = typeof text === 'string' ? { role: 'model', parts: [{ text }] } : text;
  return {
    startTimestamp: readTimestamp(readField(raw, 'startTime'), 'startTimestamp', timestamps),
    endTimestamp: readTimestamp(endTime ?? readField(raw, 'endTime'), 'endTimestamp', timestamps),
    compactedContent: convertContent(content, 'model', `${eventId}-summary`, openCalls),
    rolling: true,
  };
}

function convertCompaction(raw: unknown, conversion: EventConversion): unknown {
  if (!isPlainObject(raw)) return raw;
  const { eventId, openCalls, timestamps } = conversion;
  // Fields ADK adds that orrery does not model (ADK Go's `excludedEvents`) pass through.
  const compaction: Record<string, unknown> = structuredClone(
    extraFields(
      raw,
      new Set(['startTimestamp', 'endTimestamp', 'compactedContent', ...COMPACTION_FIELDS]),
    ),
  );
  for (const field of ['startTimestamp', 'endTimestamp']) {
    setDefined(compaction, field, readTimestamp(readField(raw, field), field, timestamps));
  }
  const content = readField(raw, 'compactedContent');
  if (content !== undefined) {
    compaction.compactedContent = convertContent(content, 'model', `${eventId}-summary`, openCalls);
  }
  // orrery's own (non-ADK) JSON may carry its fields inline.
  for (const field of COMPACTION_FIELDS) setDefined(compaction, field, readField(raw, field));
  return compaction;
}

/** Whole seconds of ADK Java's epoch milliseconds start here (float seconds stay far below). */
const EPOCH_MILLISECONDS_FLOOR = 1e11;
const RFC_3339 = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Epoch seconds from ADK's float seconds (Python), RFC 3339 text (Go, Rust; fractions to the
 * nanosecond kept) or integer epoch milliseconds (Java). Anything else is returned as is, for
 * the schema to name. The original is kept in `original[field]` when it was not float seconds.
 */
export function readTimestamp(
  value: unknown,
  field: string,
  original: Record<string, unknown>,
): unknown {
  if (typeof value === 'number' && Number.isInteger(value) && value >= EPOCH_MILLISECONDS_FLOOR) {
    original[field] = value;
    return value / 1000;
  }
  if (typeof value !== 'string') return value;
  const match = RFC_3339.exec(value);
  if (!match) return value;
  const whole = Date.parse(`${match[1]}T${match[2]}${match[4]!.toUpperCase()}`);
  if (Number.isNaN(whole)) return value;
  original[field] = value;
  return whole / 1000 + Number(`0${match[3] ?? ''}`);
}
