/**
 * A SessionService held in process memory: tests, examples, short-lived runs. Events are kept
 * as their JSON text; `listEvents`, full `getSession` reads and appends parse a new copy, so
 * callers never share those objects with the store (parsing is about twice as fast as
 * `structuredClone` of the objects, and the text is smaller). View reads (`loadView`, the
 * view-mode `getSession`) parse each event of the view once and hand out that object on every
 * later read, as the SQL stores' view cache does (docs/performance.md#the-view-cache): a caller
 * must not change an event of a view in place (the runtime does not). The checkpoint pointer
 * is kept current on append, so `loadView` costs O(tail).
 */
import { isBetterCheckpoint, isValidCompaction } from '../compaction/view.js';
import type { CompactionEvent, Event, Session, SessionKey } from '../events/types.js';
import {
  CompactionConflictError,
  SessionAlreadyExistsError,
  SessionNotFoundError,
} from './errors.js';
import { collectImport } from './in-memory-import-session.js';
import { InMemoryLeases } from './in-memory-lease.js';
import { InMemoryEventSearch } from './in-memory-search.js';
import { compareOverviews, resolveListAllSessionsOptions } from './list-all-sessions.js';
import { resolveSearchLanguage, type SearchLanguage } from './query-terms.js';
import { resolveSearchOptions } from './search-text.js';
import type {
  AcquireLeaseOptions,
  AppendCompactionOptions,
  AppendEventOptions,
  CreateSessionOptions,
  EventPage,
  GetSessionOptions,
  ImportSessionOptions,
  ImportSessionResult,
  ListAllSessionsOptions,
  ListEventsOptions,
  ListSessionsOptions,
  SearchEventsOptions,
  SearchHit,
  SessionLease,
  SessionOverview,
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
  toStoredEventWithJson,
} from './store-helpers.js';

/** One stored event: its JSON (with `seq`), which reads parse into a new copy. */
interface StoredEvent {
  json: string;
  isCompaction: boolean;
  /** Parsed once for view reads, while the event is in the view (dropped once it leaves). */
  viewed?: Event;
}

interface StoredSession {
  key: SessionKey;
  state: Record<string, unknown>;
  lastUpdateTime: number;
  /** Index `seq - 1`: seqs are gapless, never removed except with the whole session. */
  events: StoredEvent[];
  /** How many of `events` are compactions (kept on append for `listAllSessions`). */
  compactionCount: number;
  /** The checkpoint (its object only decides the next checkpoint; reads parse `events`). */
  checkpoint?: { seq: number; endSeq: number; event: CompactionEvent };
}

function parse(stored: StoredEvent): Event {
  return JSON.parse(stored.json) as Event;
}

/** The event as view reads hand it out: parsed on the first view read, then shared. */
function viewed(stored: StoredEvent): Event {
  stored.viewed ??= parse(stored);
  return stored.viewed;
}

function parseAll(events: readonly StoredEvent[]): Event[] {
  const parsed: Event[] = new Array(events.length);
  for (let index = 0; index < events.length; index++) parsed[index] = parse(events[index]!);
  return parsed;
}

function now(): number {
  return Date.now() / 1000;
}

export interface InMemorySessionServiceOptions {
  /** How `searchEvents` stems query words: `english` (default) or `none` (docs/search.md). */
  searchLanguage?: SearchLanguage;
}

export class InMemorySessionService implements SessionService {
  private readonly sessions = new Map<string, StoredSession>();
  private readonly appStates = new Map<string, Record<string, unknown>>();
  private readonly userStates = new Map<string, Record<string, unknown>>();
  private readonly leases = new InMemoryLeases();
  private readonly search: InMemoryEventSearch;

  constructor(options: InMemorySessionServiceOptions = {}) {
    this.search = new InMemoryEventSearch(resolveSearchLanguage(options.searchLanguage));
  }

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
    const stored: StoredSession = {
      key,
      state: parts.session,
      lastUpdateTime: now(),
      events: [],
      compactionCount: 0,
    };
    this.sessions.set(id, stored);
    return this.toSession(stored, []);
  }

  async getSession(options: GetSessionOptions): Promise<Session | undefined> {
    options.signal?.throwIfAborted();
    assertValidSessionKey(options);
    const stored = this.sessions.get(sessionMapKey(options));
    if (!stored) return undefined;
    if (options.events === 'full') return this.toSession(stored, parseAll(stored.events));
    const view = this.view(stored);
    return this.toSession(stored, view.checkpoint ? [view.checkpoint, ...view.tail] : view.tail);
  }

  async loadView(options: SessionKey & { signal?: AbortSignal }): Promise<StoredView> {
    options.signal?.throwIfAborted();
    return this.view(this.require(options));
  }

  async listEvents(options: ListEventsOptions): Promise<EventPage> {
    options.signal?.throwIfAborted();
    const stored = this.require(options);
    const limit = resolvePageSize(options.limit);
    const { afterSeq: after, beforeSeq: before } = resolveSeqBounds(options);
    // Array index = seq - 1, so the bounds are slice positions. Only the page is copied: a
    // page read near the end of a long session costs the page, not the session.
    const start = Math.max(0, after);
    const end = Math.max(start, Math.min(before - 1, stored.events.length));
    const more = end - start > limit;
    const page =
      options.order === 'desc'
        ? stored.events.slice(Math.max(start, end - limit), end).reverse()
        : stored.events.slice(start, Math.min(end, start + limit));
    const events = parseAll(page);
    const last = events[events.length - 1];
    return {
      events,
      nextCursor: more && last ? last.seq : undefined,
    };
  }

  async appendEvent(options: AppendEventOptions): Promise<Event> {
    options.signal?.throwIfAborted();
    assertValidNewEvent(options.event, { kind: 'event' });
    const stored = this.require(options);
    const { event, bodyJson } = toStoredEventWithJson(options.event, stored.events.length + 1);
    // The store keeps the text only: the parsed copy is the caller's.
    this.commit(stored, event, withSeq(bodyJson, event.seq));
    return event;
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
    return parse(this.commit(stored, event)) as CompactionEvent;
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

  /** Every user's sessions (or those the filters keep), newest first. */
  async listAllSessions(options: ListAllSessionsOptions): Promise<SessionOverview[]> {
    const { appName, userIds, limit } = resolveListAllSessionsOptions(options);
    const users = userIds && new Set(userIds);
    const overviews: SessionOverview[] = [];
    for (const stored of this.sessions.values()) {
      if (appName !== undefined && stored.key.appName !== appName) continue;
      if (users && !users.has(stored.key.userId)) continue;
      overviews.push({
        ...stored.key,
        lastUpdateTime: stored.lastUpdateTime,
        eventCount: stored.events.length,
        compactionCount: stored.compactionCount,
      });
    }
    return overviews.sort(compareOverviews).slice(0, limit);
  }

  async deleteSession(options: SessionKey & { signal?: AbortSignal }): Promise<void> {
    options.signal?.throwIfAborted();
    assertValidSessionKey(options);
    this.sessions.delete(sessionMapKey(options));
  }

  /** One holder per session in this process, waiters served in order (see `in-memory-lease.ts`). */
  acquireLease(options: AcquireLeaseOptions): Promise<SessionLease> {
    return this.leases.acquire(options);
  }

  /** All or nothing: every event is checked first, then the session is added in one step. */
  async importSession(options: ImportSessionOptions): Promise<ImportSessionResult> {
    const exists = (key: SessionKey) => this.sessions.has(sessionMapKey(key));
    const { key, state, events } = await collectImport({ ...options, exists });
    // Checked again: another import or create may have taken the id while the events were read.
    if (exists(key)) throw new SessionAlreadyExistsError(key);
    const stored: StoredSession = {
      key,
      state: state.session,
      lastUpdateTime: now(),
      events: [],
      compactionCount: 0,
    };
    this.mergeShared(key, state.app, state.user);
    for (const event of events) this.commit(stored, event);
    this.sessions.set(sessionMapKey(key), stored);
    return { session: this.toSession(stored, []), eventCount: events.length };
  }

  /** BM25 over the user's sessions, indexed lazily (see `in-memory-search.ts`). */
  async searchEvents(options: SearchEventsOptions): Promise<SearchHit[]> {
    options.signal?.throwIfAborted();
    const search = resolveSearchOptions(options);
    const sessions = [...this.sessions.values()]
      .filter(
        (stored) =>
          stored.key.appName === search.appName &&
          stored.key.userId === search.userId &&
          (search.sessionId === undefined || stored.key.sessionId === search.sessionId),
      )
      .map((stored) => ({ sessionId: stored.key.sessionId, events: stored.events }));
    return this.search.search({ sessions, search });
  }

  /**
   * Stores `event` (the store's own copy; `json`, its text, when the caller has it) and returns
   * what was stored.
   */
  private commit(stored: StoredSession, event: Event, json = JSON.stringify(event)): StoredEvent {
    const parts = splitState(event.actions.stateDelta);
    Object.assign(stored.state, structuredClone(parts.session));
    this.mergeShared(stored.key, structuredClone(parts.app), structuredClone(parts.user));
    const record: StoredEvent = {
      json,
      isCompaction: event.actions.compaction !== undefined,
    };
    stored.events.push(record);
    this.search.added(stored.events, event);
    if (record.isCompaction) stored.compactionCount++;
    stored.lastUpdateTime = Math.max(now(), stored.lastUpdateTime);
    if (isValidCompaction(event) && isBetterCheckpoint(event, stored.checkpoint?.event)) {
      const previous = stored.checkpoint;
      stored.checkpoint = { seq: event.seq, endSeq: event.actions.compaction.endSeq, event };
      // Events the new checkpoint covers left the view: their parsed copies go (memory).
      if (previous) delete stored.events[previous.seq - 1]!.viewed;
      const end = Math.min(stored.checkpoint.endSeq, stored.events.length);
      for (let index = previous?.endSeq ?? 0; index < end; index++) {
        delete stored.events[index]!.viewed;
      }
    }
    return record;
  }

  /** The checkpoint + tail: a new array of the view's events, each parsed once (`viewed`). */
  private view(stored: StoredSession): StoredView {
    const checkpoint = stored.checkpoint;
    const tail: Event[] = [];
    for (let index = checkpoint?.endSeq ?? 0; index < stored.events.length; index++) {
      const record = stored.events[index]!;
      if (!record.isCompaction) tail.push(viewed(record));
    }
    return {
      checkpoint: checkpoint
        ? (viewed(stored.events[checkpoint.seq - 1]!) as CompactionEvent)
        : undefined,
      tail,
      lastSeq: stored.events.length,
    };
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

  /** `events`: new copies (parsed for this read), or a view's shared events (`viewed`). */
  private toSession(stored: StoredSession, events: Event[]): Session {
    const state = mergeState({
      session: stored.state,
      user: this.userStates.get(JSON.stringify([stored.key.appName, stored.key.userId])) ?? {},
      app: this.appStates.get(stored.key.appName) ?? {},
    });
    return {
      ...stored.key,
      state: structuredClone(state),
      lastUpdateTime: stored.lastUpdateTime,
      events,
    };
  }
}

/** An event's JSON without `seq` (a non-empty object) with `seq` added as its last key. */
function withSeq(bodyJson: string, seq: number): string {
  return `${bodyJson.slice(0, -1)},"seq":${seq}}`;
}

/** JSON keeps app, user and id apart whatever characters they hold. */
function sessionMapKey(key: SessionKey): string {
  return JSON.stringify([key.appName, key.userId, key.sessionId]);
}
