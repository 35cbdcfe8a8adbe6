/**
 * Memory across sessions (docs/memory.md#sessionmemoryservice), in ADK's shape: a session is
 * added to memory, and a later session of the same user searches it. Scoped by app and user:
 * a search never returns another user's memories.
 */
import type { Content, Session } from '../events/types.js';

/** One remembered event. */
export interface MemoryEntry {
  content: Content;
  author: string;
  /** The event's timestamp, epoch seconds. */
  timestamp: number;
  /** The session it was stored in, and its `seq` there: `listEvents` reads around it. */
  sessionId: string;
  seq: number;
}

export interface SearchMemoryOptions {
  appName: string;
  userId: string;
  /** Natural language, as `searchEvents` takes it. */
  query: string;
  /** At most this many memories, best first (default 10, at most 1000). */
  limit?: number;
  /** Only events with `timestamp > after` (epoch seconds). */
  after?: number;
  /** Only events with `timestamp < before` (epoch seconds). */
  before?: number;
  /** Only events by one of these authors. */
  authors?: string[];
  /**
   * Leave this session out (the memory tools pass the calling session: its own events are in
   * its view or behind `recall`, and the message just sent would match itself).
   */
  excludeSessionId?: string;
  signal?: AbortSignal;
}

export interface SearchMemoryResponse {
  memories: MemoryEntry[];
}

export interface AddSessionToMemoryOptions {
  signal?: AbortSignal;
}

export interface ReadMemoriesOptions {
  appName: string;
  userId: string;
  sessionId: string;
  /** The first and last `seq` to read (both included). */
  fromSeq: number;
  toSeq: number;
  signal?: AbortSignal;
}

export interface MemoryService {
  /** Makes `session`'s events searchable by its user's later sessions. */
  addSessionToMemory(session: Session, options?: AddSessionToMemoryOptions): Promise<void>;
  /** The user's remembered events that best match `query`, best first. */
  searchMemory(options: SearchMemoryOptions): Promise<SearchMemoryResponse>;
  /**
   * Optional: the remembered events of one of the user's sessions from `fromSeq` to `toSeq`, in
   * `seq` order (summaries and events without content left out). `load_memory` reads the turns
   * around each memory with it; without it, each memory is shown alone.
   */
  readMemories?(options: ReadMemoriesOptions): Promise<MemoryEntry[]>;
}
