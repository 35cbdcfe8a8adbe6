/**
 * The events of an `importSession`, checked and numbered exactly as the store's appends would:
 * each one by `assertValidNewEvent` (a compaction by the `appendCompaction` rules, including
 * that it covers only events before it), given `seq` 1, 2, 3... and copied by `toStoredEvent`.
 * Batches are yielded one at a time, so a store holds one batch, not the whole import, and
 * the caller's signal is checked between them. Pure apart from yielding to the event loop.
 */
import type { Event, NewEvent, SessionKey } from '../events/types.js';
import { raceAbort } from '../util/abort.js';
import type { ImportSessionOptions } from './session-service.js';
import {
  assertCompactionFits,
  assertValidNewEvent,
  assertValidSessionKey,
  assertValidState,
  type StateDeltaParts,
  splitState,
  toStoredEvent,
} from './store-helpers.js';

/** Events per batch: one multi-row insert in the SQL stores. */
export const IMPORT_BATCH_SIZE = 500;

/** The key (a new UUID when `sessionId` is omitted) and initial state, both checked. */
export function prepareImport(options: ImportSessionOptions): {
  key: SessionKey;
  state: StateDeltaParts;
} {
  const key = {
    appName: options.appName,
    userId: options.userId,
    sessionId: options.sessionId ?? crypto.randomUUID(),
  };
  assertValidSessionKey(key);
  assertValidState(options.state);
  return { key, state: splitState(JSON.parse(JSON.stringify(options.state ?? {}))) };
}

export interface StoredEventBatchesOptions {
  events: Iterable<NewEvent> | AsyncIterable<NewEvent>;
  /** Every event's `stateDelta` is merged into it (as appends apply them), `temp:` keys dropped. */
  state: StateDeltaParts;
  batchSize?: number;
  signal?: AbortSignal;
  /** A store's own extra rule (PostgreSQL: no NUL in state), called with each stored event. */
  checkEvent?: (event: Event, path: string) => void;
}

function isCompaction(event: unknown): boolean {
  if (typeof event !== 'object' || event === null) return false;
  const actions = (event as { actions?: unknown }).actions;
  return typeof actions === 'object' && actions !== null && 'compaction' in actions
    ? (actions as { compaction?: unknown }).compaction !== undefined
    : false;
}

/**
 * Stored events in batches, `seq` from 1. A bad event is the `InvalidEventError` an append would
 * throw, its path naming the position (`events[12].timestamp`). A sync iterable yields to the
 * event loop between batches, so a signal (SIGINT) is seen mid-import.
 */
export async function* storedEventBatches(
  options: StoredEventBatchesOptions,
): AsyncGenerator<Event[]> {
  const size = options.batchSize ?? IMPORT_BATCH_SIZE;
  const { signal } = options;
  const sync = Symbol.iterator in options.events;
  const iterator =
    Symbol.asyncIterator in options.events
      ? options.events[Symbol.asyncIterator]()
      : (options.events as Iterable<NewEvent>)[Symbol.iterator]();
  let batch: Event[] = [];
  let seq = 0;
  let done = false;
  try {
    signal?.throwIfAborted();
    for (;;) {
      const next = await raceAbort(iterator.next(), signal);
      if (next.done) break;
      const input: unknown = next.value;
      const path = `events[${seq}]`;
      seq++;
      const kind = isCompaction(input) ? 'compaction' : 'event';
      assertValidNewEvent(input, { kind, path });
      if (kind === 'compaction') assertCompactionFits(input, seq, path);
      const event = toStoredEvent(input, seq);
      options.checkEvent?.(event, path);
      const delta = splitState(event.actions.stateDelta);
      Object.assign(options.state.session, delta.session);
      Object.assign(options.state.app, delta.app);
      Object.assign(options.state.user, delta.user);
      batch.push(event);
      if (batch.length >= size) {
        yield batch;
        batch = [];
        if (sync) await new Promise((resolve) => setImmediate(resolve));
        signal?.throwIfAborted();
      }
    }
    done = true;
    if (batch.length > 0) yield batch;
    signal?.throwIfAborted();
  } finally {
    // A source left part-way is told to stop (not awaited: it may be the wait that was aborted).
    if (!done) Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
}
