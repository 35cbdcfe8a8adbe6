/**
 * ADK-JS's `BaseMemoryService` over any orrery store (docs/memory.md#the-adk-adapter): give it
 * to ADK's `Runner({ memoryService })` and ADK's own `load_memory` and `preload_memory` tools
 * search the user's sessions in the store. Sessions an `OrreryAdkSessionService` wrote are
 * already there (adding one copies nothing); a session from another ADK session service is
 * copied in once. Each memory is ADK's `MemoryEntry` (timestamp ISO 8601) plus the session and
 * `seq` it came from.
 */
import type {
  Session as AdkSession,
  BaseMemoryService,
  MemoryEntry,
  SearchMemoryRequest,
  SearchMemoryResponse,
} from '@google/adk';
import type { Content as GenaiContent } from '@google/genai';
import type { Event, Session } from '../../events/types.js';
import type { MemoryService } from '../../sessions/memory-service.js';
import { SessionMemoryService } from '../../sessions/session-memory-service.js';
import type { SessionService } from '../../sessions/session-service.js';
import { checkSessionService } from '../shared/adapter-options.js';
import { MemoryTelemetry } from '../shared/memory-telemetry.js';
import { isAdkCompactedEvent, toOrreryEvent } from './adk-events.js';

export interface OrreryAdkMemoryServiceOptions {
  /** The orrery store (the same one an `OrreryAdkSessionService` writes, usually). */
  sessionService: SessionService;
  /** Memories one search returns (default 10). */
  limit?: number;
}

/** ADK's memory entry, and where in the store it came from. */
export interface OrreryAdkMemoryEntry extends MemoryEntry {
  sessionId: string;
  seq: number;
}

export class OrreryAdkMemoryService implements BaseMemoryService {
  private readonly memory: MemoryService;
  private readonly limit?: number;
  private readonly telemetry = new MemoryTelemetry();

  constructor(options: OrreryAdkMemoryServiceOptions) {
    checkSessionService(options);
    this.memory = new SessionMemoryService({ sessionService: options.sessionService });
    this.limit = options.limit;
  }

  async addSessionToMemory(session: AdkSession): Promise<void> {
    // ADK-JS's summaries are not conversation: memory keeps what was said.
    const events = session.events
      .filter((event) => !isAdkCompactedEvent(event))
      .map((event, index): Event => ({ ...toOrreryEvent(event), seq: index + 1 }));
    const converted: Session = {
      appName: session.appName,
      userId: session.userId,
      sessionId: session.id,
      state: {},
      lastUpdateTime: session.lastUpdateTime / 1000,
      events,
    };
    await this.telemetry.trace({
      operation: 'add',
      attributes: {
        'gen_ai.conversation.id': session.id,
        'orrery.memory.events': events.length,
      },
      action: () => this.memory.addSessionToMemory(converted),
    });
  }

  async searchMemory(request: SearchMemoryRequest): Promise<SearchMemoryResponse> {
    const { memories } = await this.telemetry.trace({
      operation: 'search',
      attributes: { 'orrery.memory.limit': this.limit },
      action: () =>
        this.memory.searchMemory({
          appName: request.appName,
          userId: request.userId,
          query: request.query,
          ...(this.limit !== undefined ? { limit: this.limit } : {}),
        }),
      describe: (result) => ({ 'orrery.memory.results': result.memories.length }),
    });
    return {
      memories: memories.map(
        (entry): OrreryAdkMemoryEntry => ({
          content: entry.content as unknown as GenaiContent,
          author: entry.author,
          timestamp: new Date(entry.timestamp * 1000).toISOString(),
          sessionId: entry.sessionId,
          seq: entry.seq,
        }),
      ),
    };
  }
}
