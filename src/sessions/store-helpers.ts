/**
 * Pure helpers shared by the session stores (memory, SQLite, PostgreSQL, users' own): event
 * validation and ADK state prefixes. No I/O. Which compaction is the checkpoint is decided by
 * `isValidCompaction` and `isBetterCheckpoint` in `compaction/view.ts`.
 */
import { InvalidArgumentError, InvalidEventError } from '../events/errors.js';
import { assertJsonValue } from '../events/json-value.js';
import type { Event, NewEvent, SessionKey } from '../events/types.js';
import { assertValidEvent } from '../events/validate-event.js';

/** ADK state prefixes: `app:` keys are shared by an app, `user:` keys by a user, `temp:` never stored. */
export const APP_PREFIX = 'app:';
export const USER_PREFIX = 'user:';
export const TEMP_PREFIX = 'temp:';

/** Default page size of `listEvents`. */
export const DEFAULT_PAGE_SIZE = 1000;

/**
 * Longest `appName`, `userId` or `sessionId`, in UTF-8 bytes. The three form the primary key of
 * the SQL stores; PostgreSQL refuses index entries over about 2.7 kB, so every store holds keys to
 * this one limit rather than let a long id work in one store and fail in another.
 */
export const MAX_KEY_BYTES = 512;

function fail(path: string, message: string, value: unknown): never {
  throw new InvalidEventError({ path, message, value });
}

/**
 * Checks an event before a store writes it, by the one event rule (`assertValidEvent` in
 * events/validate-event.ts, which `parseEvent` and the ADK codec apply too). `kind: 'compaction'`
 * requires `actions.compaction` (and no content); `kind: 'event'` refuses it (compactions go
 * through `appendCompaction`).
 */
export function assertValidNewEvent(
  event: unknown,
  options: { kind: 'event' | 'compaction'; path?: string },
): asserts event is NewEvent {
  assertValidEvent(event, { kind: options.kind, path: options.path ?? 'event' });
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
 * `stateDelta` (ADK does the same: temporary state never reaches storage). The copy goes through
 * JSON, as every SQL store's does, so what an append returns is what any store reads back
 * (properties set to `undefined` are absent, `-0` is `0`).
 */
export function toStoredEvent(event: NewEvent, seq: number): Event {
  return toStoredEventWithJson(event, seq).event;
}

/**
 * `toStoredEvent`, and the stored event's JSON without `seq` (what the SQL stores write), from
 * one `JSON.stringify` when the input has neither `seq` nor `temp:` keys (the usual event).
 */
export function toStoredEventWithJson(
  event: NewEvent,
  seq: number,
): { event: Event; bodyJson: string } {
  let bodyJson = JSON.stringify(event);
  const copy = JSON.parse(bodyJson) as Event;
  const delta = copy.actions.stateDelta;
  let changed = 'seq' in copy;
  if (changed) delete (copy as Partial<Event>).seq;
  if (delta) {
    for (const key of Object.keys(delta)) {
      if (key.startsWith(TEMP_PREFIX)) {
        delete delta[key];
        changed = true;
      }
    }
  }
  if (changed) bodyJson = JSON.stringify(copy);
  copy.seq = seq;
  return { event: copy, bodyJson };
}

/**
 * Checks a `listEvents` page size: an integer >= 1 (`InvalidArgumentError` naming `limit`
 * otherwise). There is no upper bound: a page never holds more than the session's events.
 */
export function resolvePageSize(limit: number | undefined): number {
  const size = limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isSafeInteger(size) || size < 1) {
    throw new InvalidArgumentError({
      argument: 'limit',
      message: `listEvents page size must be an integer >= 1, got ${limit}`,
      value: limit,
    });
  }
  return size;
}

/**
 * The `listEvents` bounds as integers: `afterSeq` defaults to 0, `beforeSeq` to the largest safe
 * integer. A bound that is not an integer is an `InvalidArgumentError` naming it (a seq is never
 * fractional; one store would round it and another reject it). Out-of-range bounds are fine: they
 * select nothing or everything.
 */
export function resolveSeqBounds(options: { afterSeq?: number; beforeSeq?: number }): {
  afterSeq: number;
  beforeSeq: number;
} {
  for (const argument of ['afterSeq', 'beforeSeq'] as const) {
    const value = options[argument];
    if (value !== undefined && !Number.isSafeInteger(value)) {
      throw new InvalidArgumentError({
        argument,
        message: `listEvents cursor must be an integer seq, got ${value}`,
        value,
      });
    }
  }
  return {
    afterSeq: options.afterSeq ?? 0,
    beforeSeq: options.beforeSeq ?? Number.MAX_SAFE_INTEGER,
  };
}

/**
 * Checks `appName`, `userId` and `sessionId` (`InvalidArgumentError` naming the field): non-empty
 * strings of at most `MAX_KEY_BYTES` UTF-8 bytes without NUL characters (PostgreSQL text cannot
 * hold them).
 */
export function assertValidSessionKey(key: Partial<SessionKey>): asserts key is SessionKey {
  for (const argument of ['appName', 'userId', 'sessionId'] as const) {
    const value: unknown = key[argument];
    let problem: string | undefined;
    if (typeof value !== 'string' || value.length === 0) {
      problem = `must be a non-empty string, got ${JSON.stringify(value)}`;
    } else if (value.includes('\u0000')) {
      problem = `must not contain NUL characters, got ${JSON.stringify(value)}`;
    } else if (
      // A UTF-16 code unit is at most 3 UTF-8 bytes: a short key needs no encoding.
      value.length * 3 > MAX_KEY_BYTES &&
      utf8Length(value) > MAX_KEY_BYTES
    ) {
      problem = `must be at most ${MAX_KEY_BYTES} bytes in UTF-8, got ${utf8Length(value)} bytes ('${value.slice(0, 40)}...')`;
    }
    if (problem) throw new InvalidArgumentError({ argument, message: problem, value });
  }
}

const encoder = new TextEncoder();

function utf8Length(value: string): number {
  return encoder.encode(value).length;
}

/** Checks a state given to `createSession` (`InvalidEventError` naming `state.<key>`). */
export function assertValidState(state: unknown): void {
  if (state === undefined) return;
  if (typeof state !== 'object' || state === null || Array.isArray(state)) {
    throw new InvalidEventError({ path: 'state', message: 'must be an object', value: state });
  }
  assertJsonValue(state, 'state');
}
