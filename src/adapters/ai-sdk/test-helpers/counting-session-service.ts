/** A store that counts the calls made to it and the events it returned (cost per step). */

import type { CompactionEvent, Event, Session, SessionKey } from '../../../events/types.js';
import type {
  AppendCompactionOptions,
  AppendEventOptions,
  CreateSessionOptions,
  EventPage,
  GetSessionOptions,
  ListEventsOptions,
  ListSessionsOptions,
  SessionService,
  SessionSummary,
  StoredView,
} from '../../../sessions/session-service.js';

export interface StoreCounts {
  loadView: number;
  listEvents: number;
  getSession: number;
  appendEvent: number;
  appendCompaction: number;
  /** Events returned by reads (view tails, pages, sessions). */
  eventsRead: number;
}

export function zeroCounts(): StoreCounts {
  return {
    loadView: 0,
    listEvents: 0,
    getSession: 0,
    appendEvent: 0,
    appendCompaction: 0,
    eventsRead: 0,
  };
}

export class CountingSessionService implements SessionService {
  counts = zeroCounts();
  constructor(private readonly inner: SessionService) {}

  /** The counts since the last call, then zero. */
  take(): StoreCounts {
    const counts = this.counts;
    this.counts = zeroCounts();
    return counts;
  }

  createSession(options: CreateSessionOptions): Promise<Session> {
    return this.inner.createSession(options);
  }
  async getSession(options: GetSessionOptions): Promise<Session | undefined> {
    this.counts.getSession++;
    const session = await this.inner.getSession(options);
    this.counts.eventsRead += session?.events.length ?? 0;
    return session;
  }
  async loadView(options: SessionKey & { signal?: AbortSignal }): Promise<StoredView> {
    this.counts.loadView++;
    const view = await this.inner.loadView(options);
    this.counts.eventsRead += view.tail.length + (view.checkpoint ? 1 : 0);
    return view;
  }
  async listEvents(options: ListEventsOptions): Promise<EventPage> {
    this.counts.listEvents++;
    const page = await this.inner.listEvents(options);
    this.counts.eventsRead += page.events.length;
    return page;
  }
  appendEvent(options: AppendEventOptions): Promise<Event> {
    this.counts.appendEvent++;
    return this.inner.appendEvent(options);
  }
  appendCompaction(options: AppendCompactionOptions): Promise<CompactionEvent> {
    this.counts.appendCompaction++;
    return this.inner.appendCompaction(options);
  }
  listSessions(options: ListSessionsOptions): Promise<SessionSummary[]> {
    return this.inner.listSessions(options);
  }
  deleteSession(options: SessionKey & { signal?: AbortSignal }): Promise<void> {
    return this.inner.deleteSession(options);
  }
}
