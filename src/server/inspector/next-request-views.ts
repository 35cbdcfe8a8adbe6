/**
 * The next-request views of recently inspected sessions, each remembered with the session's last
 * stored event: a page of `GET .../view` then costs one one-event read and the page itself, not
 * the whole view loaded, assembled and estimated again. Stored events never change (see
 * `docs/architecture.md#storage`), so a view is current while the last event (`seq` and id: a
 * session deleted and created again differs) is the one it was assembled after. When events were
 * appended since, only they are read; the view is assembled again (pure, O(tail)) with every part
 * estimated before remembered. A new compaction, or a view expanded from the full history, is
 * loaded anew.
 */
import { needsExpandedView } from '../../compaction/expanded-view.js';
import type { Event, SessionKey } from '../../events/types.js';
import type { Agent } from '../../runtime/agents/agent.js';
import { PartTokens } from '../../runtime/compaction/part-tokens.js';
import { sessionKeyString } from '../../runtime/turn/runner-telemetry.js';
import { loadActiveView } from '../../runtime/view/active-view.js';
import { OrphanCallRestorer } from '../../runtime/view/restore-calls.js';
import type { SessionService, StoredView } from '../../sessions/session-service.js';
import { assembleNextRequestView, type NextRequestView } from './next-request-view.js';
import { rememberRecent } from './remember-recent.js';
import { readHistory } from './session-history.js';

/** Sessions whose view is remembered: a never-compacted session's view holds its whole history. */
export const CACHED_VIEWS = 8;

interface KnownView {
  /** The last stored event the view holds (`seq` 0: none). */
  lastSeq: number;
  lastId?: string;
  stored: StoredView;
  view: NextRequestView;
  restorer: OrphanCallRestorer;
  parts: PartTokens;
}

/** The last event a stored view was loaded after, when it is in the view. */
function lastEventOf(stored: StoredView): Event | undefined {
  const lastOfTail = stored.tail[stored.tail.length - 1];
  if (lastOfTail?.seq === stored.lastSeq) return lastOfTail;
  return stored.checkpoint?.seq === stored.lastSeq ? stored.checkpoint : undefined;
}

export class NextRequestViews {
  private readonly known = new Map<string, KnownView>();

  constructor(private readonly options: { sessionService: SessionService; agent: Agent }) {}

  /**
   * The session's next-request view. Throws `SessionNotFoundError` for a missing session (the
   * last-event read is the existence check).
   */
  async read(options: { key: SessionKey; signal?: AbortSignal }): Promise<NextRequestView> {
    const { key, signal } = options;
    const { sessionService, agent } = this.options;
    const id = sessionKeyString(key);
    const latest = await sessionService.listEvents({ ...key, order: 'desc', limit: 1, signal });
    const last = latest.events[0];
    let known = this.known.get(id);
    if (known && known.lastSeq === (last?.seq ?? 0) && known.lastId === last?.id) {
      rememberRecent(this.known, id, known, CACHED_VIEWS);
      return known.view;
    }
    const extended = known && (await this.extend({ known, key, signal }));
    if (!extended) known = undefined;
    const stored = extended ?? (await loadActiveView({ sessionService, ...key, signal }));
    const restorer = known?.restorer ?? new OrphanCallRestorer({ sessionService });
    const parts = known?.parts ?? new PartTokens();
    const view = await assembleNextRequestView({
      sessionService,
      agent,
      key,
      stored,
      restorer,
      estimatePart: parts.part,
      signal,
    });
    // The marker is the stored view's own last event: one appended meanwhile makes a miss later.
    const marker = lastEventOf(stored);
    rememberRecent(
      this.known,
      id,
      { lastSeq: stored.lastSeq, lastId: marker?.id, stored, view, restorer, parts },
      CACHED_VIEWS,
    );
    return view;
  }

  /**
   * The known stored view with the events appended since, or `undefined` when only a full load
   * will do: a compaction appended, an expanded view, or not the same session any more.
   */
  private async extend(options: {
    known: KnownView;
    key: SessionKey;
    signal?: AbortSignal;
  }): Promise<StoredView | undefined> {
    const { known, key, signal } = options;
    if (known.stored.expandedFromCheckpointSeq !== undefined) return undefined;
    if (known.lastSeq === 0 || known.lastId === undefined) return undefined;
    const appended: Event[] = [];
    let first = true;
    const history = readHistory({
      sessionService: this.options.sessionService,
      key,
      afterSeq: known.lastSeq - 1,
      signal,
    });
    for await (const page of history) {
      for (const event of page) {
        if (first) {
          first = false;
          if (event.seq !== known.lastSeq || event.id !== known.lastId) return undefined;
        } else if (event.actions?.compaction) {
          return undefined;
        } else {
          appended.push(event);
        }
      }
    }
    if (first) return undefined;
    const tail = [...known.stored.tail, ...appended];
    const stored: StoredView = {
      ...known.stored,
      tail,
      lastSeq: appended[appended.length - 1]?.seq ?? known.lastSeq,
    };
    // An appended ADK rewind changes what the whole history means.
    return needsExpandedView({ tail: appended }) ? undefined : stored;
  }
}
