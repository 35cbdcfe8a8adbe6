/**
 * Pure helpers shared by the session stores (memory, SQLite, PostgreSQL, users' own): event
 * validation and ADK state prefixes. No I/O. Which compaction is the checkpoint is decided by
 * `isValidCompaction` and `isBetterCheckpoint` in `compaction/view.ts`.
 */
import { InvalidEventError } from '../events/errors.js';
import type { Event, NewEvent } from '../events/types.js';

/** ADK state prefixes: `app:` keys are shared by an app, `user:` keys by a user, `temp:` never stored. */
export const APP_PREFIX = 'app:';
export const USER_PREFIX = 'user:';
export const TEMP_PREFIX = 'temp:';

/** Default page size of `listEvents`. */
export const DEFAULT_PAGE_SIZE = 1000;

const triggers = new Set(['token_threshold', 'sliding_window', 'overflow', 'manual']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(path: string, message: string, value: unknown): never {
  throw new InvalidEventError({ path, message, value });
}

function checkContent(content: unknown, path: string): void {
  if (!isRecord(content)) fail(path, 'must be an object', content);
  if (content.role !== 'user' && content.role !== 'model') {
    fail(
      `${path}.role`,
      `must be 'user' or 'model', got ${JSON.stringify(content.role)}`,
      content.role,
    );
  }
  if (!Array.isArray(content.parts)) fail(`${path}.parts`, 'must be an array', content.parts);
  content.parts.forEach((part, index) => {
    if (!isRecord(part)) fail(`${path}.parts[${index}]`, 'must be an object', part);
  });
}

function checkSeqInteger(value: unknown, path: string): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    fail(path, `must be an integer >= 1, got ${JSON.stringify(value)}`, value);
  }
}

function checkCompaction(compaction: unknown, path: string): void {
  if (!isRecord(compaction)) fail(path, 'must be an object', compaction);
  checkSeqInteger(compaction.startSeq, `${path}.startSeq`);
  checkSeqInteger(compaction.endSeq, `${path}.endSeq`);
  if ((compaction.startSeq as number) > (compaction.endSeq as number)) {
    fail(
      `${path}.startSeq`,
      `must be <= endSeq (${compaction.endSeq}), got ${compaction.startSeq}`,
      compaction.startSeq,
    );
  }
  for (const field of ['startTimestamp', 'endTimestamp', 'tokensBefore', 'tokensAfter']) {
    const value = compaction[field];
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      fail(`${path}.${field}`, `must be a finite number, got ${JSON.stringify(value)}`, value);
    }
  }
  checkContent(compaction.compactedContent, `${path}.compactedContent`);
  if (!triggers.has(compaction.trigger as string)) {
    fail(
      `${path}.trigger`,
      `unknown trigger ${JSON.stringify(compaction.trigger)}`,
      compaction.trigger,
    );
  }
  if (typeof compaction.summarizer !== 'string') {
    fail(`${path}.summarizer`, 'must be a string', compaction.summarizer);
  }
}

/**
 * Checks an event before a store writes it. `kind: 'compaction'` requires `actions.compaction`
 * (and no content); `kind: 'event'` refuses it (compactions go through `appendCompaction`).
 */
export function assertValidNewEvent(
  event: unknown,
  options: { kind: 'event' | 'compaction'; path?: string },
): asserts event is NewEvent {
  const path = options.path ?? 'event';
  if (!isRecord(event)) fail(path, 'must be an object', event);
  for (const field of ['id', 'invocationId', 'author']) {
    const value = event[field];
    if (typeof value !== 'string' || value.length === 0) {
      fail(`${path}.${field}`, `must be a non-empty string, got ${JSON.stringify(value)}`, value);
    }
  }
  if (typeof event.timestamp !== 'number' || !Number.isFinite(event.timestamp)) {
    fail(
      `${path}.timestamp`,
      `must be finite epoch seconds, got ${JSON.stringify(event.timestamp)}`,
      event.timestamp,
    );
  }
  if (!isRecord(event.actions)) fail(`${path}.actions`, 'must be an object', event.actions);
  if (event.content !== undefined) checkContent(event.content, `${path}.content`);
  if (event.actions.stateDelta !== undefined && !isRecord(event.actions.stateDelta)) {
    fail(`${path}.actions.stateDelta`, 'must be an object', event.actions.stateDelta);
  }
  const compaction = event.actions.compaction;
  if (options.kind === 'event') {
    if (compaction !== undefined) {
      fail(
        `${path}.actions.compaction`,
        'compaction events must be appended with appendCompaction',
        compaction,
      );
    }
    return;
  }
  if (compaction === undefined) {
    fail(
      `${path}.actions.compaction`,
      'is required: appendCompaction only takes compaction events',
      compaction,
    );
  }
  checkCompaction(compaction, `${path}.actions.compaction`);
  if (event.content !== undefined) {
    fail(
      `${path}.content`,
      'a compaction event has no content (use compaction.compactedContent)',
      event.content,
    );
  }
}

/** A compaction at `seq` may only cover events before it. */
export function assertCompactionFits(event: NewEvent, seq: number, path = 'event'): void {
  const endSeq = event.actions.compaction?.endSeq ?? 0;
  if (endSeq >= seq) {
    fail(
      `${path}.actions.compaction.endSeq`,
      `must be below the compaction's own seq ${seq} (last stored seq is ${seq - 1}), got ${endSeq}`,
      endSeq,
    );
  }
}

export interface StateDeltaParts {
  app: Record<string, unknown>;
  user: Record<string, unknown>;
  session: Record<string, unknown>;
}

/** Splits a state (or delta) by ADK prefix; `temp:` keys are dropped. Prefixes are kept on keys. */
export function splitState(state: Record<string, unknown> | undefined): StateDeltaParts {
  const parts: StateDeltaParts = { app: {}, user: {}, session: {} };
  for (const [key, value] of Object.entries(state ?? {})) {
    if (key.startsWith(TEMP_PREFIX)) continue;
    if (key.startsWith(APP_PREFIX)) parts.app[key] = value;
    else if (key.startsWith(USER_PREFIX)) parts.user[key] = value;
    else parts.session[key] = value;
  }
  return parts;
}

/** The state a reader sees: session keys, then the user's and the app's shared keys. */
export function mergeState(parts: StateDeltaParts): Record<string, unknown> {
  return { ...parts.session, ...parts.user, ...parts.app };
}

/**
 * The event as stored: a deep copy with the assigned `seq` and `temp:` keys removed from its
 * `stateDelta` (ADK does the same: temporary state never reaches storage).
 */
export function toStoredEvent(event: NewEvent, seq: number): Event {
  const copy = structuredClone(event) as Event;
  copy.seq = seq;
  const delta = copy.actions.stateDelta;
  if (delta) {
    for (const key of Object.keys(delta)) {
      if (key.startsWith(TEMP_PREFIX)) delete delta[key];
    }
  }
  return copy;
}

/** Checks a `listEvents` page size. */
export function resolvePageSize(limit: number | undefined): number {
  const size = limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(size) || size < 1) {
    throw new RangeError(`listEvents: limit must be an integer >= 1, got ${limit}`);
  }
  return size;
}
