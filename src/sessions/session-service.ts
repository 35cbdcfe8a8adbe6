/**
 * The storage contract (docs/architecture.md#storage). Small on purpose: every store (memory,
 * SQLite, PostgreSQL, a user's own) implements these methods and passes
 * `runSessionServiceConformance` from `orrery/testing`. Every method is scoped by app and user: no
 * session is reachable from another user.
 */
import type { ViewWarning } from '../compaction/view.js';
import type { CompactionEvent, Event, NewEvent, Session, SessionKey } from '../events/types.js';

export interface CreateSessionOptions {
  appName: string;
  userId: string;
  /** Generated (UUID) when omitted. */
  sessionId?: string;
  state?: Record<string, unknown>;
  signal?: AbortSignal;
}

export interface GetSessionOptions extends SessionKey {
  /**
   * `view` (default): the active view's events, checkpoint + tail, loaded in O(tail).
   * `full`: every stored event in `seq` order (use `listEvents` to page through long ones).
   */
  events?: 'view' | 'full';
  signal?: AbortSignal;
}

/**
 * The active view's raw material, loaded straight from the store (docs/architecture.md#the-view).
 */
export interface StoredView {
  /** The valid compaction event with the largest `endSeq` (ties: the later `seq`). */
  checkpoint?: CompactionEvent;
  /** Every non-compaction event with `seq > checkpoint.endSeq`, in `seq` order. */
  tail: Event[];
  /** The largest `seq` stored in the session (0 when empty). */
  lastSeq: number;
  /**
   * What the store passed over while loading: a `checkpoint_skipped` warning for each stored
   * compaction it would not use as checkpoint (corrupt, or a range that cannot be). Absent when
   * there was none. `assembleView({ warnings })` puts them first in the view's warnings.
   */
  warnings?: ViewWarning[];
  /**
   * Set only on a view the runtime expanded from the full history (`loadActiveView`: imported
   * ADK summaries that are not rolling, or an ADK rewind): `checkpoint` is then unset, `tail`
   * holds the summaries as events, and this is the stored checkpoint's `seq` (`null`: none),
   * which a compaction planned from this view must expect. Stores never set it.
   */
  expandedFromCheckpointSeq?: number | null;
}

export interface ListEventsOptions extends SessionKey {
  /** Only events with `seq > afterSeq`. */
  afterSeq?: number;
  /** Only events with `seq < beforeSeq`. */
  beforeSeq?: number;
  /** Page size; default 1000. */
  limit?: number;
  /** `asc` (default) or `desc` by `seq`. */
  order?: 'asc' | 'desc';
  signal?: AbortSignal;
}

export interface EventPage {
  events: Event[];
  /** Pass as `afterSeq` (asc) or `beforeSeq` (desc) to read the next page; absent at the end. */
  nextCursor?: number;
}

export interface AppendEventOptions extends SessionKey {
  event: NewEvent;
  signal?: AbortSignal;
}

/** `appendEventAndReleaseLease`'s options: `appendEvent`'s, and the held lease to release. */
export interface AppendEventAndReleaseLeaseOptions extends AppendEventOptions {
  /** A lease on this session that this service's `acquireLease` (or a sibling) returned. */
  lease: SessionLease;
}

export interface AppendCompactionOptions extends SessionKey {
  /** A compaction event (`actions.compaction` set, no content). */
  event: NewEvent;
  /**
   * The `seq` of the checkpoint the compaction was computed from, or `null` when there was none.
   * The append succeeds only if that is still the session's checkpoint; otherwise it throws
   * `CompactionConflictError` and stores nothing.
   */
  expectedCheckpointSeq: number | null;
  signal?: AbortSignal;
}

export interface ListSessionsOptions {
  appName: string;
  userId: string;
  signal?: AbortSignal;
}

export interface SessionSummary extends SessionKey {
  lastUpdateTime: number;
  eventCount: number;
}

export interface ListAllSessionsOptions {
  /** Only this app's sessions; omitted: every app's. */
  appName?: string;
  /** Only these users' sessions (an empty list matches none); omitted: every user's. */
  userIds?: readonly string[];
  /** At most this many, newest `lastUpdateTime` first; default 50, at most 1000. */
  limit?: number;
  signal?: AbortSignal;
}

/** One session in a listing across users: its summary and how many compactions it stores. */
export interface SessionOverview extends SessionSummary {
  /**
   * Stored compaction events (valid or not, superseded or not): the trunk's. A workflow branch's
   * summaries (`actions.branchCompaction`) are not counted.
   */
  compactionCount: number;
}

export interface AcquireLeaseOptions extends SessionKey {
  /**
   * How long to wait for another holder to release, in ms (default 30_000). Past it the call
   * throws `SessionBusyError`; the caller's `signal` ends the wait at once.
   */
  waitMs?: number;
  /**
   * How long the lease outlives its holder, in ms (default 30_000): the holder renews it every
   * third of this, so a holder that dies (SIGKILL, lost connection) frees it within `ttlMs`.
   */
  ttlMs?: number;
  /**
   * `true` (default): renewed every `ttlMs / 3` until released. `false`: never renewed, so it
   * lapses `ttlMs` after it was taken unless released first (its `signal` aborts then): for a
   * holder that knows its work is shorter, and how the conformance suite plays a dead holder.
   */
  renew?: boolean;
  signal?: AbortSignal;
}

/** What `acquireLeaseAndGetSession` returns: the held lease and the session read under it. */
export interface LeasedSession {
  lease: SessionLease;
  session: Session | undefined;
}

/** `acquireLeaseAndAppend`'s options: the lease's, and the event appended once it is held. */
export interface AcquireLeaseAndAppendOptions extends AcquireLeaseOptions {
  /** Validated and stored exactly as `appendEvent` stores it. */
  event: NewEvent;
}

/** What `acquireLeaseAndAppend` returns. */
export interface LeasedAppend {
  lease: SessionLease;
  /** The session after the append (its last event `event`, unless another writer followed). */
  session: Session | undefined;
  /** The stored event; `undefined` when the session does not exist (nothing was appended). */
  event: Event | undefined;
}

/** A held lease on one session: only its holder runs invocations or compactions there. */
export interface SessionLease {
  /** Unique per acquisition. */
  readonly leaseId: string;
  /** Aborts when the lease is lost (a renewal found it expired or taken over). */
  readonly signal: AbortSignal;
  /** Releases the lease and stops renewing it. Idempotent; never throws. */
  release(): Promise<void>;
}

export interface ImportSessionOptions {
  appName: string;
  userId: string;
  /** Generated (UUID) when omitted. Must not exist yet (`SessionAlreadyExistsError`). */
  sessionId?: string;
  state?: Record<string, unknown>;
  /** Appended in order, `seq` from 1; validated exactly as `appendEvent` validates. */
  events: Iterable<NewEvent> | AsyncIterable<NewEvent>;
  signal?: AbortSignal;
}

export interface ImportSessionResult {
  /** The session as created, with `events` empty (read it back to load them). */
  session: Session;
  eventCount: number;
}

export interface SearchEventsOptions {
  appName: string;
  userId: string;
  /** Search this session only; omitted: every session of the user in the app. */
  sessionId?: string;
  /**
   * Natural language: cut into words (stemmed, paths and identifiers also whole: docs/search.md)
   * that are OR-ed and ranked by BM25 in every store, so an event matching some words is found;
   * quotes, operators and punctuation are plain characters.
   */
  query: string;
  /** At most this many hits, best first; default 10, at most 1000. */
  limit?: number;
  /** Only events with `seq < beforeSeq` (e.g. `checkpoint.endSeq + 1`: what the view left out). */
  beforeSeq?: number;
  /** Only events with `seq > afterSeq`. */
  afterSeq?: number;
  /** Only events with `timestamp > after` (epoch seconds, as events store them). */
  after?: number;
  /** Only events with `timestamp < before` (epoch seconds, as events store them). */
  before?: number;
  /** Only events by one of these authors (`'user'`, an agent's name); `[]` matches none. */
  authors?: readonly string[];
  signal?: AbortSignal;
}

/** One stored event a search found. Compaction events are never hits. */
export interface SearchHit {
  event: Event;
  sessionId: string;
  seq: number;
  timestamp: number;
  author: string;
  /** Higher is better; comparable only within one result list. */
  score: number;
}

export interface SessionService {
  createSession(options: CreateSessionOptions): Promise<Session>;
  /** `undefined` when the session does not exist for that app and user. */
  getSession(options: GetSessionOptions): Promise<Session | undefined>;
  /** The checkpoint + tail, O(tail). Throws `SessionNotFoundError` for a missing session. */
  loadView(options: SessionKey & { signal?: AbortSignal }): Promise<StoredView>;
  /** A page of the full history (audit, export, replay, overlap reads). */
  listEvents(options: ListEventsOptions): Promise<EventPage>;
  /** Assigns `seq` atomically and applies `actions.stateDelta` to the session state. */
  appendEvent(options: AppendEventOptions): Promise<Event>;
  /** Conditional append of a compaction event (see `expectedCheckpointSeq`). */
  appendCompaction(options: AppendCompactionOptions): Promise<CompactionEvent>;
  listSessions(options: ListSessionsOptions): Promise<SessionSummary[]>;
  /**
   * Optional capability, for operators (an inspector, an admin page), not for agents: sessions
   * of every user, or of `appName` and `userIds` when given, newest `lastUpdateTime` first
   * (ties in an order of the store's). One query in the shipped stores.
   */
  listAllSessions?(options: ListAllSessionsOptions): Promise<SessionOverview[]>;
  /** The only operation that removes stored events. Missing sessions are a no-op. */
  deleteSession(options: SessionKey & { signal?: AbortSignal }): Promise<void>;
  /**
   * Optional capability: serializes invocations on one session across runners and processes.
   * A Runner holds the lease for a whole invocation and its compactions. Stores without it are
   * serialized only within one Runner.
   */
  acquireLease?(options: AcquireLeaseOptions): Promise<SessionLease>;
  /**
   * Optional capability, beside `acquireLease`: the lease, then the session as the view-mode
   * `getSession` returns it, read after the lease is held (`undefined` when the session does
   * not exist; the lease is held all the same and the caller releases it). A store may do both
   * in fewer round trips (PostgreSQL: one statement on a cached view). The Runner calls it
   * when present, `acquireLease` and `getSession` otherwise.
   */
  acquireLeaseAndGetSession?(options: AcquireLeaseOptions): Promise<LeasedSession>;
  /**
   * Optional capability, beside `acquireLease`: the lease, then `event` appended under it, then
   * the session as the view-mode `getSession` returns it (with the event). The append happens
   * only once the lease is held: when the lease cannot be taken (`SessionBusyError`, an abort)
   * nothing is appended, and when the append fails the lease is not held. A missing session
   * gives `session` and `event` `undefined`, the lease held (the caller releases it). A store
   * may do it all in fewer round trips (PostgreSQL: one statement). The Runner calls it for the
   * user's message when present and no plugin hooks the message.
   */
  acquireLeaseAndAppend?(options: AcquireLeaseAndAppendOptions): Promise<LeasedAppend>;
  /**
   * Optional capability, beside `acquireLease`: `appendEvent`, and `lease` released in the same
   * step, for a holder whose last write this is. When it returns, the event is stored and the
   * lease released (its `release()` then sends nothing), unless the lease was no longer held
   * (another holder's by then): the event is stored as `appendEvent` stores it either way. When
   * it throws, it failed as `appendEvent` fails (a lost connection's error may come after a
   * commit: never sent again) and the lease is left to the caller, who releases it as after a
   * failed `appendEvent` (a release of a record already free changes nothing). A store may do
   * it in one round trip (PostgreSQL: one statement). The Runner calls it for the root
   * `LlmAgent`'s final answer when no plugin is registered and no compaction is due after it.
   */
  appendEventAndReleaseLease?(options: AppendEventAndReleaseLeaseOptions): Promise<Event>;
  /**
   * Optional capability: a whole session and its events stored all or nothing (one
   * transaction): until it returns, no reader sees the session; on failure or abort nothing
   * of it remains.
   */
  importSession?(options: ImportSessionOptions): Promise<ImportSessionResult>;
  /**
   * Optional capability: the stored events of the user that best match a natural-language query
   * (text, tool call names and arguments, tool results), never another user's. A session given
   * and missing is `SessionNotFoundError`; a query without words gives no hits.
   */
  searchEvents?(options: SearchEventsOptions): Promise<SearchHit[]>;
  /** Releases connections and file handles. Optional. */
  close?(): Promise<void>;
}
