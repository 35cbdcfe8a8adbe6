/**
 * The SessionService contract as a vitest suite (docs/architecture.md#storage). Every store orrery
 * ships runs it, and users run it against their own stores:
 *
 *   runSessionServiceConformance({ name: 'my store', createService: async () => new MyStore() });
 *
 * Each test creates a fresh service and works in its own random app name, so a shared database
 * is fine. Contract points that are a choice, written down here:
 * - `seq` starts at 1 in each session and grows by one per append (gapless within a session).
 *   A deleted and recreated session is a new session: its `seq` starts at 1 again.
 * - A duplicate `sessionId` is a `SessionAlreadyExistsError` (a `SessionStoreError`).
 * - `appendCompaction` rejects malformed ranges (`InvalidEventError`): `1 <= startSeq <= endSeq <
 *   seq`. Stores ignore malformed ranges already in storage (imports, legacy rows) in the view.
 * - ADK state prefixes: `temp:` keys are never stored (neither in state nor in the stored
 *   event's `stateDelta`), `user:` keys are shared by the user's sessions in the app, `app:`
 *   keys by every session of the app.
 * - Another app or user sees no session: `getSession` gives `undefined`, the others throw
 *   `SessionNotFoundError`, `deleteSession` is a no-op and removes nothing.
 * - Events are JSON: what a read returns deep-equals (strictly) what `appendEvent` returned,
 *   and equals the appended event with `undefined` properties left out. A value JSON cannot
 *   hold (NaN, Infinity, bigint, Date, Map, a cycle, `undefined` in an array, nesting deeper
 *   than `MAX_JSON_DEPTH`) is an `InvalidEventError` naming its path; nothing is stored. Any
 *   string, NUL characters and lone surrogates included, is stored as it is.
 * - State deltas replace top-level keys (no deep merge); `null` is a value, not a deletion
 *   (ADK for Python does the same: `state.update(delta)`).
 * - Keys (`appName`, `userId`, `sessionId`) are non-empty, at most `MAX_KEY_BYTES` UTF-8 bytes,
 *   without NUL; anything else is an `InvalidArgumentError` naming the field. Quotes and SQL
 *   wildcards are ordinary characters.
 * - `listEvents`: `limit` is an integer >= 1 and cursors are integers, else
 *   `InvalidArgumentError` naming the option; a cursor past either end selects nothing.
 * - `acquireLease` (optional; `leases: false` skips it): one holder per session key, waiters
 *   of one service served in order; `waitMs` ends in `SessionBusyError` naming the session and
 *   the wait, the caller's signal at once with its reason; a holder that stops renewing
 *   (`renew: false`) loses it after `ttlMs` (its signal aborts with `SessionLeaseLostError`),
 *   and a stale holder's `release()` never frees the next holder's lease.
 * - Memory (`SessionMemoryService` over the store, with `searchEvents`): a search finds the
 *   user's events across sessions with their session and seq, never another user's or app's.
 */
import { describe } from 'vitest';
import { describeAppendCompaction } from './append-compaction.js';
import { describeAppendEvent } from './append-event.js';
import { describeArguments } from './arguments.js';
import { createConformanceContext } from './context.js';
import { describeCopies } from './copies.js';
import { describeCreateAndGet } from './create-and-get.js';
import { describeEventData } from './event-data.js';
import { describeIsolation } from './isolation.js';
import { describeLease } from './lease.js';
import { describeListAllSessions } from './list-all-sessions.js';
import { describeListAndDelete } from './list-and-delete.js';
import { describeListEvents } from './list-events.js';
import { describeLoadView } from './load-view.js';
import { describeMemory } from './memory.js';
import type { SessionServiceConformanceOptions } from './options.js';
import { describeRaces } from './races.js';
import { describeSearchEvents } from './search-events.js';

export type { SessionServiceConformanceOptions } from './options.js';

export function runSessionServiceConformance(options: SessionServiceConformanceOptions): void {
  describe(`SessionService conformance: ${options.name}`, () => {
    const context = createConformanceContext(options);
    describeCreateAndGet(context);
    describeAppendEvent(context);
    describeCopies(context);
    describeLoadView(context);
    describeAppendCompaction(context);
    describeListEvents(context);
    describeListAndDelete(context);
    describeEventData(context);
    describeArguments(context);
    describeRaces(context);
    describeIsolation(context);
    if (options.leases === false) describe.skip('session lease (leases: false)', () => {});
    else describeLease(context);
    if (options.search === false) describe.skip('searchEvents (search: false)', () => {});
    else {
      describeSearchEvents(context);
      describeMemory(context);
    }
    if (options.listAllSessions === false) {
      describe.skip('listAllSessions (listAllSessions: false)', () => {});
    } else describeListAllSessions(context);
  });
}
