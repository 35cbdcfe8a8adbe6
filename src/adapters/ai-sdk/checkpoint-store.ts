/**
 * `mode: 'checkpoints'`: the app's own message array is the log; orrery stores only its
 * summaries. A checkpoint record is an ordinary event holding the compaction (its range in
 * message positions: `seq` = message index + 1) and the chained identity of the last message it
 * covers, so a checkpoint is used only while the app's array still starts with what it
 * summarized (an edit or a truncation before its end makes the previous matching one apply).
 *
 * `MessagesSessionView` shows the guard and the Compactor the app's messages as a session (built
 * per call, in memory) and turns the compaction they append into a checkpoint record.
 */
import type {
  CompactionEvent,
  Content,
  Event,
  EventCompaction,
  Session,
  SessionKey,
  UsageMetadata,
} from '../../events/types.js';
import {
  CompactionConflictError,
  SessionAlreadyExistsError,
  SessionNotFoundError,
} from '../../sessions/errors.js';
import type {
  AppendCompactionOptions,
  EventPage,
  ListEventsOptions,
  SessionService,
  SessionSummary,
  StoredView,
} from '../../sessions/session-service.js';
import { AdapterOptionError } from '../shared/adapter-option-error.js';
import { AI_SDK_METADATA_KEY } from '../shared/conversation-log.js';

/** Where a checkpoint record keeps its compaction. */
export const AI_SDK_CHECKPOINT_KEY = 'orrery:aiSdkCheckpoint';

/** Checkpoint records read per page while looking for one that matches the prompt. */
const CHECKPOINT_PAGE_SIZE = 20;

export interface FoundCheckpoint {
  id: string;
  invocationId: string;
  compaction: EventCompaction;
}

function checkpointOf(event: Event, chains: readonly string[]): FoundCheckpoint | undefined {
  const record = event.customMetadata?.[AI_SDK_CHECKPOINT_KEY];
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return undefined;
  const chain: unknown = Reflect.get(record, 'chain');
  const compaction: unknown = Reflect.get(record, 'compaction');
  if (typeof chain !== 'string' || compaction === null || typeof compaction !== 'object') {
    return undefined;
  }
  const endSeq: unknown = Reflect.get(compaction, 'endSeq');
  if (typeof endSeq !== 'number' || chains[endSeq - 1] !== chain) return undefined;
  const content: unknown = Reflect.get(compaction, 'compactedContent');
  if (content === null || typeof content !== 'object') return undefined;
  // Written by `saveCheckpoint` below from an `EventCompaction`; the store validated its JSON.
  return {
    id: event.id,
    invocationId: event.invocationId,
    compaction: structuredClone(compaction as EventCompaction),
  };
}

/** The newest checkpoint that still matches the app's messages (creating the session if new). */
export async function findCheckpoint(options: {
  sessionService: SessionService;
  key: SessionKey;
  chains: readonly string[];
  signal?: AbortSignal;
}): Promise<FoundCheckpoint | undefined> {
  const { sessionService, key, chains, signal } = options;
  let beforeSeq: number | undefined;
  for (;;) {
    let page: EventPage;
    try {
      page = await sessionService.listEvents({
        ...key,
        order: 'desc',
        limit: CHECKPOINT_PAGE_SIZE,
        ...(beforeSeq === undefined ? {} : { beforeSeq }),
        signal,
      });
    } catch (error) {
      if (!SessionNotFoundError.isInstance(error)) throw error;
      await createQuietly(sessionService, key, signal);
      return undefined;
    }
    for (const event of page.events) {
      const found = checkpointOf(event, chains);
      if (found) return found;
    }
    if (page.nextCursor === undefined || page.events.length === 0) return undefined;
    beforeSeq = page.nextCursor;
  }
}

async function createQuietly(
  sessionService: SessionService,
  key: SessionKey,
  signal?: AbortSignal,
) {
  try {
    await sessionService.createSession({ ...key, signal });
  } catch (error) {
    if (!SessionAlreadyExistsError.isInstance(error)) throw error;
  }
}

/** Stores a checkpoint record: the compaction and the identity of the last message it covers. */
export async function saveCheckpoint(options: {
  sessionService: SessionService;
  key: SessionKey;
  event: { id: string; invocationId: string; timestamp: number; compaction: EventCompaction };
  chain: string;
  signal?: AbortSignal;
}): Promise<void> {
  const { event } = options;
  await options.sessionService.appendEvent({
    ...options.key,
    event: {
      id: event.id,
      invocationId: event.invocationId,
      author: 'orrery',
      timestamp: event.timestamp,
      actions: {},
      customMetadata: {
        [AI_SDK_CHECKPOINT_KEY]: { compaction: { ...event.compaction }, chain: options.chain },
      },
    },
    signal: options.signal,
  });
}

function unsupported(operation: string): never {
  throw new AdapterOptionError({
    field: 'mode',
    value: 'checkpoints',
    message: `${operation} is not available on the app's messages (they are not stored by orrery)`,
  });
}

/** The app's messages (as events, `seq` = index + 1) and the checkpoint, as a session. */
export class MessagesSessionView implements SessionService {
  private readonly key: SessionKey;
  private readonly events: Event[];
  private checkpoint?: CompactionEvent;
  private lastSeq: number;
  private readonly persist: (event: CompactionEvent) => Promise<void>;

  constructor(options: {
    key: SessionKey;
    events: Event[];
    checkpoint?: FoundCheckpoint;
    persist: (event: CompactionEvent) => Promise<void>;
  }) {
    this.key = options.key;
    this.events = options.events;
    this.lastSeq = options.events.length;
    this.persist = options.persist;
    const found = options.checkpoint;
    if (found) {
      this.lastSeq++;
      this.checkpoint = {
        id: found.id,
        invocationId: found.invocationId,
        author: 'user',
        timestamp: found.compaction.endTimestamp,
        actions: { compaction: found.compaction },
        seq: this.lastSeq,
      };
    }
  }

  async loadView(): Promise<StoredView> {
    const endSeq = this.checkpoint?.actions.compaction.endSeq ?? 0;
    return {
      ...(this.checkpoint ? { checkpoint: this.checkpoint } : {}),
      tail: this.events.slice(endSeq),
      lastSeq: this.lastSeq,
    };
  }

  async listEvents(options: ListEventsOptions): Promise<EventPage> {
    const all: Event[] = this.checkpoint ? [...this.events, this.checkpoint] : this.events;
    const limit = options.limit ?? 1000;
    const selected = all.filter(
      (event) =>
        (options.afterSeq === undefined || event.seq > options.afterSeq) &&
        (options.beforeSeq === undefined || event.seq < options.beforeSeq),
    );
    if (options.order === 'desc') selected.reverse();
    const events = selected.slice(0, limit);
    const last = events.at(-1);
    return events.length === limit && selected.length > limit && last
      ? { events, nextCursor: last.seq }
      : { events };
  }

  async appendCompaction(options: AppendCompactionOptions): Promise<CompactionEvent> {
    const actual = this.checkpoint?.seq ?? null;
    if (options.expectedCheckpointSeq !== actual) {
      throw new CompactionConflictError({
        sessionId: this.key.sessionId,
        expectedCheckpointSeq: options.expectedCheckpointSeq,
        actualCheckpointSeq: actual,
      });
    }
    const compaction = options.event.actions.compaction;
    if (!compaction) unsupported('appendCompaction without actions.compaction');
    const event: CompactionEvent = {
      ...options.event,
      actions: { ...options.event.actions, compaction },
      seq: this.lastSeq + 1,
    };
    await this.persist(event);
    this.lastSeq = event.seq;
    this.checkpoint = event;
    return event;
  }

  createSession(): Promise<Session> {
    return unsupported('createSession');
  }
  getSession(): Promise<Session | undefined> {
    return unsupported('getSession');
  }
  appendEvent(): Promise<Event> {
    return unsupported('appendEvent');
  }
  listSessions(): Promise<SessionSummary[]> {
    return unsupported('listSessions');
  }
  deleteSession(): Promise<void> {
    return unsupported('deleteSession');
  }
}

/**
 * The app's messages as events: `seq` = index + 1, ids and invocation ids derived from the
 * message identities (stable from call to call), a new invocation at each user turn.
 */
export function messageEvents(options: {
  contents: readonly Content[];
  chains: readonly string[];
  agentName: string;
  usage?: { index: number; usageMetadata: UsageMetadata };
}): { events: Event[]; invocationId: string } {
  const { contents, chains, agentName } = options;
  const events: Event[] = [];
  let invocationId = 'ai-sdk-start';
  contents.forEach((content, index) => {
    const chain = chains[index]!;
    const userTurn =
      content.role === 'user' && !content.parts.some((part) => part.functionResponse);
    if (userTurn) invocationId = `ai-sdk-${chain.slice(0, 22)}`;
    const event: Event = {
      id: `ai-sdk-${index}-${chain.slice(0, 16)}`,
      invocationId,
      author: userTurn ? 'user' : agentName,
      timestamp: 0,
      content: content.parts.length > 0 ? content : { ...content, parts: [{ text: '' }] },
      actions: {},
      customMetadata: { [AI_SDK_METADATA_KEY]: { index, chain } },
      seq: index + 1,
    };
    if (options.usage?.index === index) event.usageMetadata = options.usage.usageMetadata;
    events.push(event);
  });
  return { events, invocationId };
}
