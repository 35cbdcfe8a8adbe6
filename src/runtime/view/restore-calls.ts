/**
 * Orphan responses (docs/architecture.md#the-view): a function response whose call is not in the
 * view. The safe split never produces one, but imported or legacy data can (a compaction whose
 * range ends between a call and its response). The call is looked up in storage, paging backwards
 * from the response, and put back in the view right before it; a call not found within
 * `MAX_RESTORE_SCAN_EVENTS` leaves the response dropped with a warning, as the pure view does.
 */
import type { ContentTokenMemo } from '../../compaction/token-estimate.js';
import { type ActiveView, assembleView } from '../../compaction/view.js';
import type { Content, Event, SessionKey } from '../../events/types.js';
import type { SessionService, StoredView } from '../../sessions/session-service.js';
import { ViewExtender } from './view-extender.js';

/** Stored events read backwards, at most, to find the calls of one view's orphan responses. */
export const MAX_RESTORE_SCAN_EVENTS = 5_000;
const RESTORE_PAGE_SIZE = 500;
/** Lookups remembered per Runner (found or not: stored events never change). */
const CACHE_LIMIT = 1_000;

export interface FindOrphanCallsOptions {
  sessionService: SessionService;
  key: SessionKey;
  view: ActiveView;
  maxScanEvents?: number;
  signal?: AbortSignal;
}

/** The stored events holding the calls of the view's dropped orphan responses, by call id. */
export async function findOrphanCalls(
  options: FindOrphanCallsOptions,
): Promise<Map<string, Event>> {
  const found = new Map<string, Event>();
  const wanted = new Set<string>();
  let beforeSeq = Number.POSITIVE_INFINITY;
  for (const warning of options.view.warnings) {
    if (warning.kind !== 'orphan_response_dropped' || warning.callId === undefined) continue;
    wanted.add(warning.callId);
    beforeSeq = Math.min(beforeSeq, warning.seq);
  }
  const maxScan = options.maxScanEvents ?? MAX_RESTORE_SCAN_EVENTS;
  let scanned = 0;
  let cursor: number | undefined = Number.isFinite(beforeSeq) ? beforeSeq : undefined;
  while (cursor !== undefined && found.size < wanted.size && scanned < maxScan) {
    const page = await options.sessionService.listEvents({
      ...options.key,
      beforeSeq: cursor,
      order: 'desc',
      limit: Math.min(RESTORE_PAGE_SIZE, maxScan - scanned),
      signal: options.signal,
    });
    for (const event of page.events) {
      scanned++;
      for (const part of event.content?.parts ?? []) {
        const id = part.functionCall?.id;
        // The latest call before the response is the one it answers.
        if (id !== undefined && wanted.has(id) && !found.has(id)) found.set(id, event);
      }
    }
    cursor = page.events.length > 0 ? page.nextCursor : undefined;
  }
  return found;
}

/**
 * Assembles the view from a stored checkpoint + tail, restoring orphan responses' calls from
 * storage. Lookups are remembered in `cache` (keyed by the response event's id and the call id).
 */
export class OrphanCallRestorer {
  private readonly cache = new Map<string, Event | null>();
  private readonly extender: ViewExtender;

  constructor(
    private readonly options: {
      sessionService: SessionService;
      maxScanEvents?: number;
      /** Token estimates by content identity, shared with the caller's other measures. */
      memo?: ContentTokenMemo;
    },
  ) {
    this.extender = new ViewExtender({ memo: options.memo });
  }

  /**
   * `estimateContentListTokens(contents)`: for the contents `assemble` just returned under
   * `viewKey`, the view's running total (the previous turn's plus what was appended).
   */
  contentTokens(options: { viewKey: string; contents: readonly Content[] }): number {
    return this.extender.contentTokens(options);
  }

  async assemble(options: {
    key: SessionKey;
    stored: StoredView;
    /**
     * Names the view (the session's, as one scope sees it) so the next call can extend this
     * one by the events appended since instead of re-assembling it (`ViewExtender`).
     */
    viewKey?: string;
    signal?: AbortSignal;
  }): Promise<ActiveView> {
    const { checkpoint, tail, warnings } = options.stored;
    const view =
      options.viewKey !== undefined && (warnings?.length ?? 0) === 0
        ? this.extender.assemble({ viewKey: options.viewKey, checkpoint, tail })
        : assembleView({ checkpoint, tail, warnings });
    const orphans = view.warnings.filter(
      (warning) => warning.kind === 'orphan_response_dropped' && warning.callId !== undefined,
    );
    if (orphans.length === 0) return view;

    const eventIdOf = new Map(view.events.map((event) => [event.seq, event.id]));
    const cacheKey = (seq: number, callId: string) => `${eventIdOf.get(seq)}\u0000${callId}`;
    const restoredCalls = new Map<string, Event>();
    const unknown = orphans.filter((warning) => {
      const cached = this.cache.get(cacheKey(warning.seq, warning.callId!));
      if (cached) restoredCalls.set(warning.callId!, cached);
      return cached === undefined;
    });
    if (unknown.length > 0) {
      const found = await findOrphanCalls({
        sessionService: this.options.sessionService,
        key: options.key,
        view: { ...view, warnings: unknown },
        maxScanEvents: this.options.maxScanEvents,
        signal: options.signal,
      });
      for (const warning of unknown) {
        const event = found.get(warning.callId!);
        this.remember(cacheKey(warning.seq, warning.callId!), event ?? null);
        if (event) restoredCalls.set(warning.callId!, event);
      }
    }
    if (restoredCalls.size === 0) return view;
    return assembleView({ checkpoint, tail, restoredCalls, warnings });
  }

  private remember(key: string, value: Event | null): void {
    if (this.cache.size >= CACHE_LIMIT) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.set(key, value);
  }
}
