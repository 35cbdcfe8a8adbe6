/**
 * The inspector's reads of a whole history, server side (the page never downloads it): events
 * page by page, and the session's compactions, remembered per session so that a reload reads
 * only what was appended since (stored events never change; see `docs/architecture.md#storage`).
 */
import type { Event, SessionKey } from '../../events/types.js';
import { sessionKeyString } from '../../runtime/turn/runner-telemetry.js';
import type { SessionService } from '../../sessions/session-service.js';
import type { CompactionSpan } from './api-types.js';
import { rememberRecent } from './remember-recent.js';
import { isSpanEvent, toCompactionSpan } from './timeline-event.js';

/** Events read per store call. */
export const HISTORY_PAGE_SIZE = 1000;
/** Sessions whose compactions are remembered. */
const CACHED_SESSIONS = 256;

/** Every stored event with `seq > afterSeq`, in `seq` order, a page at a time. */
export async function* readHistory(options: {
  sessionService: SessionService;
  key: SessionKey;
  afterSeq?: number;
  signal?: AbortSignal;
}): AsyncGenerator<Event[]> {
  let afterSeq = options.afterSeq;
  for (;;) {
    const page = await options.sessionService.listEvents({
      ...options.key,
      afterSeq,
      limit: HISTORY_PAGE_SIZE,
      signal: options.signal,
    });
    if (page.events.length > 0) yield page.events;
    if (page.nextCursor === undefined || page.events.length === 0) return;
    afterSeq = page.nextCursor;
  }
}

interface KnownCompactions {
  /** Events up to this `seq` were read. */
  scannedSeq: number;
  /** The id of the event at `scannedSeq` (a session deleted and created again differs). */
  scannedId?: string;
  eventCount: number;
  spans: CompactionSpan[];
}

export interface SessionCompactions {
  spans: CompactionSpan[];
  /** Stored events in the session. */
  eventCount: number;
}

/** Every compaction of a session, and its event count, read incrementally. */
/**
 * What an index read before, if the session still holds it: the last event it scanned is still
 * there with the same id. A session deleted and created again under the same id starts over at
 * seq 1, so its old records are dropped.
 */
export async function stillKnown<
  Known extends { scannedSeq: number; scannedId?: string },
>(options: {
  sessionService: SessionService;
  key: SessionKey;
  known: Known | undefined;
  signal?: AbortSignal;
}): Promise<Known | undefined> {
  const { known, key, signal } = options;
  if (!known || known.scannedSeq === 0) return known;
  const page = await options.sessionService.listEvents({
    ...key,
    afterSeq: known.scannedSeq - 1,
    limit: 1,
    signal,
  });
  const last = page.events[0];
  return last?.seq === known.scannedSeq && last.id === known.scannedId ? known : undefined;
}

export class CompactionIndex {
  private readonly known = new Map<string, KnownCompactions>();

  constructor(private readonly sessionService: SessionService) {}

  async read(options: { key: SessionKey; signal?: AbortSignal }): Promise<SessionCompactions> {
    const { key, signal } = options;
    const id = sessionKeyString(key);
    const known = await stillKnown({
      sessionService: this.sessionService,
      key,
      known: this.known.get(id),
      signal,
    });
    const next: KnownCompactions = known
      ? { ...known, spans: [...known.spans] }
      : { scannedSeq: 0, eventCount: 0, spans: [] };
    for await (const page of readHistory({
      sessionService: this.sessionService,
      key,
      afterSeq: next.scannedSeq,
      signal,
    })) {
      for (const event of page) {
        next.eventCount++;
        next.scannedSeq = event.seq;
        next.scannedId = event.id;
        if (isSpanEvent(event)) next.spans.push(toCompactionSpan(event));
      }
    }
    rememberRecent(this.known, id, next, CACHED_SESSIONS);
    return { spans: next.spans, eventCount: next.eventCount };
  }
}
