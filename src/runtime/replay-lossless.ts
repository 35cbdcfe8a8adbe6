/** Replay's losslessness check: the stored history holds every replayed event, unchanged. */
import { isCompactionEvent } from '../events/event-helpers.js';
import type { Event, NewEvent, SessionKey } from '../events/types.js';
import type { SessionService } from '../sessions/session-service.js';

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
  const raw = stored.filter((event) => !isCompactionEvent(event));
  if (raw.length !== options.replayed.length) return false;
  return raw.every(({ seq: _seq, ...event }, index) => {
    const replayed = options.replayed[index];
    // Equal JSON is equal canonical JSON; stores keep the key order, so this is the usual case.
    return (
      JSON.stringify(event) === JSON.stringify(replayed) || canonical(event) === canonical(replayed)
    );
  });
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
