/**
 * A SessionService held in process memory: tests, examples, short-lived runs. Every read and
 * write is a deep copy (`structuredClone`), so callers never share objects with the store.
 * The checkpoint pointer is kept current on append, so `loadView` costs O(tail).
 */
import { isBetterCheckpoint, isValidCompaction } from '../compaction/view.js';
import type { CompactionEvent, Event, Session, SessionKey } from '../events/types.js';
import {
  CompactionConflictError,
  SessionAlreadyExistsError,
  SessionNotFoundError,
} from './errors.js';
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
} from './session-service.js';
import {
  assertCompactionFits,
  assertValidNewEvent,
  assertValidSessionKey,
  assertValidState,
  mergeState,
  resolvePageSize,
  resolveSeqBounds,
  splitState,
  toStoredEvent,
} from './store-helpers.js';

interface StoredSession {
  key: SessionKey;
  state: Record<string, unknown>;
  lastUpdateTime: number;
  /** Index `seq - 1`: seqs are gapless, never removed except with the whole session. */
  events: Event[];
  checkpoint?: CompactionEvent;
}

function now(): number {
  return Date.now() / 1000;
}

export class InMemorySessionService implements SessionService {
  private readonly sessions = new Map<string, StoredSession>();
  private readonly appStates = new Map<string, Record<string, unknown>>();
  private readonly userStates = new Map<string, Record<string, unknown>>();

  async createSession(options: CreateSessionOptions): Promise<Session> {
    options.signal?.throwIfAborted();
    const sessionId = options.sessionId ?? crypto.randomUUID();
    const key = { appName: options.appName, userId: options.userId, sessionId };
    assertValidSessionKey(key);
    assertValidState(options.state);
    const id = sessionMapKey(key);
    if (this.sessions.has(id)) throw new SessionAlreadyExistsError(key);
    const parts = splitState(JSON.parse(JSON.stringify(options.state ?? {})));
    this.mergeShared(key, parts.app, parts.user);
    const stored: StoredSession = { key, state: parts.session, lastUpdateTime: now(), events: [] };
    this.sessions.set(id, stored);
    return this.toSession(stored, []);
  }

  async getSession(options: GetSessionOptions): Promise<Session | undefined> {
    options.signal?.throwIfAborted();
    assertValidSessionKey(options);
    const stored = this.sessions.get(sessionMapKey(options));
    if (!stored) return undefined;
    if (options.events === 'full') return this.toSession(stored, stored.events);
    const view = this.view(stored);
    return this.toSession(stored, view.checkpoint ? [view.checkpoint, ...view.tail] : view.tail);
  }

  async loadView(options: SessionKey & { signal?: AbortSignal }): Promise<StoredView> {
    options.signal?.throwIfAborted();
    const view = this.view(this.require(options));
    return structuredClone(view);
  }

  async listEvents(options: ListEventsOptions): Promise<EventPage> {
    options.signal?.throwIfAborted();
    const stored = this.require(options);
    const limit = resolvePageSize(options.limit);
    const { afterSeq: after, beforeSeq: before } = resolveSeqBounds(options);
    // Array index = seq - 1, so the bounds are slice positions.
    const inRange = stored.events.slice(
      Math.max(0, after),
      Math.max(0, Math.min(before - 1, stored.events.length)),
    );
    const ordered = options.order === 'desc' ? inRange.reverse() : inRange;
    const events = ordered.slice(0, limit);
    const last = events[events.length - 1];
    return {
      events: structuredClone(events),
      nextCursor: ordered.length > limit && last ? last.seq : undefined,
    };
  }

  async appendEvent(options: AppendEventOptions): Promise<Event> {
    options.signal?.throwIfAborted();
    assertValidNewEvent(options.event, { kind: 'event' });
    const stored = this.require(options);
    const event = toStoredEvent(options.event, stored.events.length + 1);
    this.commit(stored, event);
    return structuredClone(event);
  }

  async appendCompaction(options: AppendCompactionOptions): Promise<CompactionEvent> {
    options.signal?.throwIfAborted();
    assertValidNewEvent(options.event, { kind: 'compaction' });
    const stored = this.require(options);
    const seq = stored.events.length + 1;
    assertCompactionFits(options.event, seq);
    const actual = stored.checkpoint?.seq ?? null;
    if (actual !== options.expectedCheckpointSeq) {
      throw new CompactionConflictError({
        sessionId: options.sessionId,
        expectedCheckpointSeq: options.expectedCheckpointSeq,
        actualCheckpointSeq: actual,
      });
    }
    const event = toStoredEvent(options.event, seq) as CompactionEvent;
    this.commit(stored, event);
    return structuredClone(event);
  }

  async listSessions(options: ListSessionsOptions): Promise<SessionSummary[]> {
    options.signal?.throwIfAborted();
    assertValidSessionKey({ ...options, sessionId: '-' });
    const summaries: SessionSummary[] = [];
    for (const stored of this.sessions.values()) {
      if (stored.key.appName !== options.appName || stored.key.userId !== options.userId) continue;
      summaries.push({
        ...stored.key,
        lastUpdateTime: stored.lastUpdateTime,
        eventCount: stored.events.length,
      });
    }
    return summaries.sort((a, b) => b.lastUpdateTime - a.lastUpdateTime);
  }

  async deleteSession(options: SessionKey & { signal?: AbortSignal }): Promise<void> {
    options.signal?.throwIfAborted();
    assertValidSessionKey(options);
    this.sessions.delete(sessionMapKey(options));
  }

  private commit(stored: StoredSession, event: Event): void {
    const parts = splitState(event.actions.stateDelta);
    Object.assign(stored.state, structuredClone(parts.session));
    this.mergeShared(stored.key, structuredClone(parts.app), structuredClone(parts.user));
    stored.events.push(event);
    stored.lastUpdateTime = Math.max(now(), stored.lastUpdateTime);
    if (isValidCompaction(event) && isBetterCheckpoint(event, stored.checkpoint)) {
      stored.checkpoint = event;
    }
  }

  private view(stored: StoredSession): StoredView {
    const checkpoint = stored.checkpoint;
    const tail = stored.events
      .slice(checkpoint?.actions.compaction.endSeq ?? 0)
      .filter((event) => event.actions.compaction === undefined);
    return { checkpoint, tail, lastSeq: stored.events.length };
  }

  private require(key: SessionKey): StoredSession {
    assertValidSessionKey(key);
    const stored = this.sessions.get(sessionMapKey(key));
    if (!stored) throw new SessionNotFoundError(key);
    return stored;
  }

  private mergeShared(
    key: SessionKey,
    app: Record<string, unknown>,
    user: Record<string, unknown>,
  ): void {
    if (Object.keys(app).length > 0) {
      this.appStates.set(key.appName, { ...this.appStates.get(key.appName), ...app });
    }
    if (Object.keys(user).length > 0) {
      const userKey = JSON.stringify([key.appName, key.userId]);
      this.userStates.set(userKey, { ...this.userStates.get(userKey), ...user });
    }
  }

  private toSession(stored: StoredSession, events: Event[]): Session {
    const state = mergeState({
      session: stored.state,
      user: this.userStates.get(JSON.stringify([stored.key.appName, stored.key.userId])) ?? {},
      app: this.appStates.get(stored.key.appName) ?? {},
    });
    return structuredClone({ ...stored.key, state, lastUpdateTime: stored.lastUpdateTime, events });
  }
}

/** JSON keeps app, user and id apart whatever characters they hold. */
function sessionMapKey(key: SessionKey): string {
  return JSON.stringify([key.appName, key.userId, key.sessionId]);
}
