/**
 * A `BaseSessionService` for ADK for TypeScript (`@google/adk` 2.x) backed by any orrery
 * `SessionService` (memory, SQLite, PostgreSQL, your own). `getSession` loads orrery's view (the
 * summary as an ADK-JS `CompactedEvent`, then the tail) in O(tail) instead of the whole history;
 * `appendEvent` stores each event through orrery (numbered, append-only) and, at a safe point
 * (no call waiting for its result), runs orrery's Compactor. When it compacts, the session the
 * Runner holds is cut to the new view in place, so the next model request of the same
 * invocation is already small. The full history stays in the orrery store.
 */

import type {
  Event as AdkEvent,
  Session as AdkSession,
  AppendEventRequest,
  CreateSessionRequest,
  DeleteSessionRequest,
  GetSessionRequest,
  ListSessionsRequest,
  ListSessionsResponse,
} from '@google/adk';
import { BaseSessionService } from '@google/adk';
import type { EventsCompactionConfig } from '../../compaction/types.js';
import type { SessionKey } from '../../events/types.js';
import type { Compactor } from '../../runtime/compaction/compactor.js';
import { loadActiveView } from '../../runtime/view/active-view.js';
import { SessionNotFoundError } from '../../sessions/errors.js';
import type { SessionService } from '../../sessions/session-service.js';
import { type AdapterCompactionOptions, AdapterCore } from '../shared/adapter-core.js';
import { AdapterOptionError } from '../shared/adapter-option-error.js';
import { isAdkCompactedEvent, toOrreryEvent, viewToAdkEvents } from './adk-events.js';

export interface OrreryAdkSessionServiceOptions extends AdapterCompactionOptions {
  /**
   * When and how much to compact (`createEventsCompactionConfig()` reads it from the
   * environment); `null`: never compact (every event is still stored).
   */
  compaction: EventsCompactionConfig | null;
}

/** Whether the event leaves a call without its result (compacting then would split the pair). */
function waitsForResults(event: AdkEvent): boolean {
  return (event.content?.parts ?? []).some((part) => part.functionCall !== undefined);
}

export class OrreryAdkSessionService extends BaseSessionService {
  private readonly sessionService: SessionService;
  /** The adapter core: the compaction after a stored turn, reported and never thrown. */
  private readonly core: AdapterCore;
  private readonly compactor?: Compactor;

  constructor(options: OrreryAdkSessionServiceOptions) {
    super();
    this.core = new AdapterCore(options);
    this.sessionService = options.sessionService;
    this.compactor = this.core.createCompactor();
  }

  async createSession(request: CreateSessionRequest): Promise<AdkSession> {
    const created = await this.sessionService.createSession({
      appName: request.appName,
      userId: request.userId,
      sessionId: request.sessionId,
      state: request.state ?? {},
    });
    return {
      id: created.sessionId,
      appName: created.appName,
      userId: created.userId,
      state: structuredClone(created.state),
      events: [],
      lastUpdateTime: Math.round(created.lastUpdateTime * 1000),
    };
  }

  /**
   * The session with orrery's view as its events. `config.numRecentEvents` keeps the newest
   * events of the view; `config.afterTimestamp` (epoch ms) those after it.
   */
  async getSession(request: GetSessionRequest): Promise<AdkSession | undefined> {
    const key = { appName: request.appName, userId: request.userId, sessionId: request.sessionId };
    let session: Awaited<ReturnType<SessionService['getSession']>>;
    let events: AdkEvent[];
    try {
      session = await this.sessionService.getSession({ ...key, events: 'view' });
      if (!session) return undefined;
      events = viewToAdkEvents(
        await loadActiveView({ sessionService: this.sessionService, ...key }),
      );
    } catch (error) {
      if (SessionNotFoundError.isInstance(error)) return undefined;
      throw error;
    }
    const after = request.config?.afterTimestamp;
    if (after !== undefined) events = events.filter((event) => event.timestamp > after);
    const recent = request.config?.numRecentEvents;
    if (recent !== undefined) events = recent > 0 ? events.slice(-recent) : [];
    return {
      id: session.sessionId,
      appName: session.appName,
      userId: session.userId,
      state: structuredClone(session.state),
      events,
      lastUpdateTime: Math.round(session.lastUpdateTime * 1000),
    };
  }

  async listSessions(request: ListSessionsRequest): Promise<ListSessionsResponse> {
    if (request.userId === undefined) {
      throw new AdapterOptionError({
        field: 'userId',
        value: undefined,
        message: 'orrery lists the sessions of one user: pass userId',
      });
    }
    const summaries = await this.sessionService.listSessions({
      appName: request.appName,
      userId: request.userId,
    });
    const sorted = [...summaries];
    if (request.order) {
      const sign = request.order === 'asc' ? 1 : -1;
      sorted.sort((left, right) => sign * (left.lastUpdateTime - right.lastUpdateTime));
    }
    const limit = request.limit ?? sorted.length;
    const start =
      request.page !== undefined && request.limit !== undefined
        ? (request.page - 1) * request.limit
        : (request.offset ?? 0);
    const sessions = sorted.slice(start, start + limit).map((summary) => ({
      id: summary.sessionId,
      appName: summary.appName,
      userId: summary.userId,
      state: {},
      events: [],
      lastUpdateTime: Math.round(summary.lastUpdateTime * 1000),
    }));
    return {
      sessions,
      page: limit > 0 ? Math.floor(start / limit) + 1 : 1,
      limit,
      totalItems: sorted.length,
      totalPages: limit > 0 ? Math.ceil(sorted.length / limit) : 0,
    };
  }

  async deleteSession(request: DeleteSessionRequest): Promise<void> {
    await this.sessionService.deleteSession({
      appName: request.appName,
      userId: request.userId,
      sessionId: request.sessionId,
    });
  }

  /**
   * Stores the event through orrery, then (at a safe point) compacts. ADK-JS's own
   * `CompactedEvent`s are refused: with this service, orrery compacts (drop `contextCompactors`).
   */
  override async appendEvent(request: AppendEventRequest): Promise<AdkEvent> {
    const { session, event } = request;
    if (event.partial) return event;
    if (isAdkCompactedEvent(event)) {
      throw new AdapterOptionError({
        field: 'event.isCompacted',
        value: true,
        message:
          'ADK-JS compacted the session; OrreryAdkSessionService compacts with orrery (remove the agent’s contextCompactors)',
      });
    }
    const key: SessionKey = {
      appName: session.appName,
      userId: session.userId,
      sessionId: session.id,
    };
    // Checked before ADK's in-memory session changes: a bad event changes nothing.
    const stored = toOrreryEvent(event);
    await this.sessionService.appendEvent({ ...key, event: stored });
    const appended = await super.appendEvent(request);
    if (this.compactor && !waitsForResults(event)) {
      await this.compact(session, key, event.invocationId);
    }
    return appended;
  }

  /** orrery's token trigger, then its sliding window; on success the session becomes the view. */
  private async compact(session: AdkSession, key: SessionKey, invocationId: string): Promise<void> {
    const load = () => loadActiveView({ sessionService: this.sessionService, ...key });
    const changed = await this.core.compactAfterTurn({
      key,
      compact: async (trigger) =>
        this.compactor!.compact({
          ...key,
          trigger,
          currentInvocationId: invocationId === '' ? undefined : invocationId,
          stored: await load(),
        }),
    });
    // An elision rule changed the view as a summary does (docs/architecture.md#elision-the-cheap-tier).
    if (changed) session.events.splice(0, session.events.length, ...viewToAdkEvents(await load()));
  }
}
