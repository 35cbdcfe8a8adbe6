/** Replay's losslessness check: the stored history holds every replayed event, unchanged. */
import { branchCompactionOf } from '../../compaction/branch-view.js';
import { isElisionEvent } from '../../compaction/elision.js';
import { isCompactionEvent } from '../../events/event-helpers.js';
import type { Event, NewEvent, SessionKey } from '../../events/types.js';
import type { SessionService } from '../../sessions/session-service.js';

/** The full history holds every replayed event, unchanged, in order (`seq` ignored). */
export async function isLossless(options: {
  service: SessionService;
  key: SessionKey;
  replayed: NewEvent[];
  signal?: AbortSignal;
}): Promise<boolean> {
  const stored: Event[] = [];
  let afterSeq: number | undefined;
  for (;;) {
    const page = await options.service.listEvents({
      ...options.key,
      afterSeq,
      signal: options.signal,
    });
    stored.push(...page.events);
    if (page.nextCursor === undefined || page.events.length === 0) break;
    afterSeq = page.nextCursor;
  }
  // Summaries and elision rules are compaction's own records, not replayed events.
  const raw = stored.filter(
    (event) => !isCompactionEvent(event) && !isElisionEvent(event) && !branchCompactionOf(event),
  );
  if (raw.length !== options.replayed.length) return false;
  return raw.every(({ seq: _seq, ...event }, index) => {
    const replayed = options.replayed[index];
    // Equal values are the usual case, decided without serializing; equal JSON is equal
    // canonical JSON, and key order is what canonical JSON forgives.
    return (
      jsonEqual(event, replayed) ||
      JSON.stringify(event) === JSON.stringify(replayed) ||
      canonical(event) === canonical(replayed)
    );
  });
}

/**
 * Deep equality of JSON values, members that are `undefined` left out (as JSON leaves them out),
 * key order ignored. `true` implies equal canonical JSON; anything it cannot tell (a `NaN`, a
 * value JSON turns into something else) is `false` and left to the serializing checks.
 */
function jsonEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) {
    return false;
  }
  if (Array.isArray(left) || Array.isArray(right)) {
    if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false;
    return left.every((item, index) => item !== undefined && jsonEqual(item, right[index]));
  }
  if (Object.getPrototypeOf(left) !== Object.prototype) return false;
  if (Object.getPrototypeOf(right) !== Object.prototype) return false;
  const leftRecord = left as Record<string, unknown>;
  const rightRecord = right as Record<string, unknown>;
  let members = 0;
  for (const key of Object.keys(leftRecord)) {
    const value = leftRecord[key];
    if (value === undefined) continue;
    members++;
    if (!Object.hasOwn(rightRecord, key) || !jsonEqual(value, rightRecord[key])) return false;
  }
  for (const key of Object.keys(rightRecord)) if (rightRecord[key] !== undefined) members--;
  return members === 0;
}

/** JSON with sorted keys and no `undefined` members: equal events give equal strings. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, entry: unknown) => {
    if (entry && typeof entry === 'object' && !Array.isArray(entry)) {
      return Object.fromEntries(
        Object.entries(entry as Record<string, unknown>)
          .filter(([, inner]) => inner !== undefined)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
      );
    }
    return entry;
  });
}
