/**
 * `SessionMemoryService`: memory across sessions over any session store (docs/memory.md). The
 * store already holds every event of every session, so memory is a search of the user's
 * sessions (`searchEvents` without a session), not a second copy: a session the store holds
 * is searchable as soon as it is stored, and `addSessionToMemory` copies only a session the
 * store does not hold (one from another store or framework). Scoped by app and user like every
 * store method: another user's events are never found.
 */
import { isElisionEvent } from '../compaction/elision.js';
import { InvalidArgumentError } from '../events/errors.js';
import type { Event, NewEvent, Session } from '../events/types.js';
import { SessionAlreadyExistsError, SessionNotFoundError } from './errors.js';
import { definedHitFilters, passesHitFilters } from './hit-filters.js';
import type {
  AddSessionToMemoryOptions,
  MemoryEntry,
  MemoryService,
  ReadMemoriesOptions,
  SearchMemoryOptions,
  SearchMemoryResponse,
} from './memory-service.js';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from './search-text.js';
import type { SessionService } from './session-service.js';

export interface SessionMemoryServiceOptions {
  /** A store with `searchEvents` (memory, SQLite and PostgreSQL all have it). */
  sessionService: SessionService;
}

/** What memory keeps of a foreign session's event: what it said, who said it, when. */
function memoryCopy(event: Event): NewEvent {
  return {
    id: event.id,
    invocationId: event.invocationId,
    author: event.author,
    timestamp: event.timestamp,
    ...(event.branch !== undefined ? { branch: event.branch } : {}),
    ...(event.content !== undefined ? { content: event.content } : {}),
    actions: {},
  };
}

/** Events worth remembering: ones with content (summaries and elision records have none). */
function remembered(event: Event): boolean {
  return !event.actions.compaction && (event.content?.parts.length ?? 0) > 0;
}

/** Most events one `readMemories` call reads (a passage is a few turns, not a session). */
export const MAX_READ_MEMORIES = 100;

export class SessionMemoryService implements MemoryService {
  private readonly sessionService: SessionService;

  constructor(options: SessionMemoryServiceOptions) {
    if (typeof options?.sessionService?.searchEvents !== 'function') {
      throw new InvalidArgumentError({
        argument: 'sessionService',
        message: 'must implement searchEvents (memory searches the user sessions with it)',
      });
    }
    this.sessionService = options.sessionService;
  }

  /**
   * A session the store holds (same app, user and id) is already in memory: nothing is copied.
   * Any other is copied into the store as a new session with the same id: the events that have
   * content, with their ids, authors and timestamps (state and state deltas are not copied, so
   * a foreign session never changes this user's state). Pass a session read with its full
   * history (`events: 'full'`): a view holds only the newest events.
   */
  async addSessionToMemory(
    session: Session,
    options: AddSessionToMemoryOptions = {},
  ): Promise<void> {
    const { appName, userId, sessionId } = session;
    const { signal } = options;
    const stored = await this.sessionService.getSession({
      appName,
      userId,
      sessionId,
      events: 'view',
      signal,
    });
    if (stored) return;
    const events = session.events.filter(remembered).map(memoryCopy);
    try {
      if (this.sessionService.importSession) {
        await this.sessionService.importSession({ appName, userId, sessionId, events, signal });
        return;
      }
      await this.sessionService.createSession({ appName, userId, sessionId, signal });
    } catch (error) {
      // Another call added it meanwhile: it is in memory.
      if (SessionAlreadyExistsError.isInstance(error)) return;
      throw error;
    }
    for (const event of events) {
      await this.sessionService.appendEvent({ appName, userId, sessionId, event, signal });
    }
  }

  async searchMemory(options: SearchMemoryOptions): Promise<SearchMemoryResponse> {
    if (typeof options?.query !== 'string') {
      throw new InvalidArgumentError({
        argument: 'query',
        value: options?.query,
        message: 'must be a string',
      });
    }
    const { appName, userId, query, signal, excludeSessionId } = options;
    const limit = options.limit ?? DEFAULT_SEARCH_LIMIT;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) {
      throw new InvalidArgumentError({
        argument: 'limit',
        value: options.limit,
        message: `must be an integer from 1 to ${MAX_SEARCH_LIMIT}`,
      });
    }
    const filters = { after: options.after, before: options.before, authors: options.authors };
    const hits = await this.sessionService.searchEvents!({
      appName,
      userId,
      query,
      // The excluded session's hits are dropped below: ask for enough to fill the page anyway.
      limit: excludeSessionId === undefined ? limit : Math.min(MAX_SEARCH_LIMIT, limit * 4 + 20),
      ...definedHitFilters(filters),
      signal,
    });
    const memories: MemoryEntry[] = [];
    for (const hit of hits) {
      if (memories.length === limit) break;
      if (hit.sessionId === excludeSessionId) continue;
      if (!hit.event.content || !passesHitFilters(hit, filters)) continue;
      memories.push({
        content: hit.event.content,
        author: hit.author,
        timestamp: hit.timestamp,
        sessionId: hit.sessionId,
        seq: hit.seq,
      });
    }
    return { memories };
  }

  /**
   * The remembered events of one of the user's sessions from `fromSeq` to `toSeq` (at most
   * `MAX_READ_MEMORIES` seqs), in `seq` order: one `listEvents` page, summaries and events
   * without content left out. A session the user does not have reads as none.
   */
  async readMemories(options: ReadMemoriesOptions): Promise<MemoryEntry[]> {
    const { appName, userId, sessionId, fromSeq, toSeq, signal } = options;
    for (const [argument, value] of [
      ['fromSeq', fromSeq],
      ['toSeq', toSeq],
    ] as const) {
      if (!Number.isSafeInteger(value) || value < 1) {
        throw new InvalidArgumentError({ argument, value, message: 'must be an integer >= 1' });
      }
    }
    if (toSeq < fromSeq || toSeq - fromSeq + 1 > MAX_READ_MEMORIES) {
      throw new InvalidArgumentError({
        argument: 'toSeq',
        value: toSeq,
        message: `must be from fromSeq (${fromSeq}) to fromSeq + ${MAX_READ_MEMORIES - 1}`,
      });
    }
    let page: Awaited<ReturnType<SessionService['listEvents']>>;
    try {
      page = await this.sessionService.listEvents({
        appName,
        userId,
        sessionId,
        afterSeq: fromSeq - 1,
        beforeSeq: toSeq + 1,
        limit: toSeq - fromSeq + 1,
        signal,
      });
    } catch (error) {
      if (SessionNotFoundError.isInstance(error)) return [];
      throw error;
    }
    return page.events
      .filter((event) => remembered(event) && !isElisionEvent(event))
      .map((event) => ({
        content: event.content!,
        author: event.author,
        timestamp: event.timestamp,
        sessionId,
        seq: event.seq,
      }));
  }
}
