/**
 * `InMemorySessionService.importSession`'s first half: every event checked and numbered (as
 * appends would) before anything is stored, so the store can then add the whole session in one
 * synchronous step that no reader can see half done.
 */
import type { Event, SessionKey } from '../events/types.js';
import { SessionAlreadyExistsError } from './errors.js';
import { prepareImport, storedEventBatches } from './import-events.js';
import type { ImportSessionOptions } from './session-service.js';
import type { StateDeltaParts } from './store-helpers.js';

export interface CollectedImport {
  key: SessionKey;
  /** The initial state, split by scope; the events' deltas are not applied to it. */
  state: StateDeltaParts;
  /** Stored copies, `seq` from 1. */
  events: Event[];
}

/** `exists` is asked before the events are read, so a taken id fails at once. */
export async function collectImport(
  options: ImportSessionOptions & { exists: (key: SessionKey) => boolean },
): Promise<CollectedImport> {
  options.signal?.throwIfAborted();
  const { key, state } = prepareImport(options);
  if (options.exists(key)) throw new SessionAlreadyExistsError(key);
  const events: Event[] = [];
  const scratch: StateDeltaParts = { session: {}, app: {}, user: {} };
  for await (const batch of storedEventBatches({
    events: options.events,
    state: scratch,
    signal: options.signal,
  })) {
    for (const event of batch) events.push(event);
  }
  return { key, state, events };
}
