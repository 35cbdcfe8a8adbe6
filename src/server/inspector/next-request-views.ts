/**
 * The next-request views of recently inspected sessions, each remembered with the session's last
 * stored event: a page of `GET .../view` then costs one one-event read and the page itself, not
 * the whole view loaded, assembled and estimated again. Stored events never change (see
 * `docs/architecture.md#storage`), so a view is current while the last event (`seq` and id: a
 * session deleted and created again differs) is the one it was assembled after.
 */
import type { SessionKey } from '../../events/types.js';
import type { Agent } from '../../runtime/agents/agent.js';
import type { SessionService } from '../../sessions/session-service.js';
import { loadNextRequestView, type NextRequestView } from './next-request-view.js';

/** Sessions whose view is remembered: a never-compacted session's view holds its whole history. */
export const CACHED_VIEWS = 8;

interface KnownView {
  lastSeq: number;
  lastId?: string;
  view: NextRequestView;
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
    const id = JSON.stringify([key.appName, key.userId, key.sessionId]);
    // Read before the view: an event appended in between makes the next read miss, never stale.
    const latest = await sessionService.listEvents({ ...key, order: 'desc', limit: 1, signal });
    const last = latest.events[0];
    const lastSeq = last?.seq ?? 0;
    const known = this.known.get(id);
    if (known && known.lastSeq === lastSeq && known.lastId === last?.id) {
      this.known.delete(id);
      this.known.set(id, known);
      return known.view;
    }
    const view = await loadNextRequestView({ sessionService, agent, key, signal });
    this.known.delete(id);
    this.known.set(id, { lastSeq, lastId: last?.id, view });
    if (this.known.size > CACHED_VIEWS) {
      const oldest = this.known.keys().next().value;
      if (oldest !== undefined) this.known.delete(oldest);
    }
    return view;
  }
}
