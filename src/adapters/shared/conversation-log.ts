/**
 * The orrery session as the log of one conversation (the AI SDK and LangChain adapters share it):
 * each call appends only the messages that are new since the last call, found by chained message
 * identity (`message-identity.ts`).
 * A prompt that leaves the log (a regenerate drops the last answer, an edit changes an earlier
 * message) records a branch: an ADK rewind event annulling the invocation where the prompt left
 * the log, then the prompt's messages from that invocation's start. Nothing stored is rewritten.
 *
 * Each logged message event carries `customMetadata['orrery:aiSdk'] = { index, chain }`. A cursor
 * per conversation (in memory, checked against the store's `lastSeq`) makes a step's cost
 * independent of the history: one view read and the new messages' appends. Without a cursor
 * (another process wrote, a restart), the log is read backwards only until the prompt matches.
 */
import { rewindTarget } from '../../compaction/expanded-view.js';
import { newId } from '../../events/event-helpers.js';
import type { Content, Event, NewEvent, SessionKey, UsageMetadata } from '../../events/types.js';
import { loadActiveView } from '../../runtime/view/active-view.js';
import { SessionAlreadyExistsError, SessionNotFoundError } from '../../sessions/errors.js';
import type { SessionService, StoredView } from '../../sessions/session-service.js';

/** Where a logged message event keeps its place in the conversation. */
export const AI_SDK_METADATA_KEY = 'orrery:aiSdk';

/** Page size of the backwards read that rebuilds a cursor. */
const REBUILD_PAGE_SIZE = 200;

interface LoggedMessage {
  index: number;
  chain: string;
  seq: number;
  invocationId: string;
}

interface Cursor {
  /** The logged messages from some invocation's start to the newest, by index. */
  entries: LoggedMessage[];
  /** The store's `lastSeq` this cursor describes. */
  lastSeq: number;
}

export interface SyncOptions {
  key: SessionKey;
  /** The prompt's non-system messages as contents, and their chained identities. */
  contents: readonly Content[];
  chains: readonly string[];
  /** Usage to store on the message at `index` when it is appended (`prepareStep` mode). */
  usage?: { index: number; usageMetadata: UsageMetadata };
  signal?: AbortSignal;
}

export interface SyncResult {
  /** The stored view after this sync, when known without another read. */
  stored?: StoredView;
  /** The invocation of the newest message (the step in progress). */
  invocationId: string;
  /** Whether the prompt left the log and a branch (rewind) was recorded. */
  branched: boolean;
  /** Events this sync appended (rewind included). */
  appended: number;
}

export interface ConversationLogOptions {
  sessionService: SessionService;
  /** Author of the assistant's events (usage anchors on it). */
  agentName: string;
  /** Conversations whose cursor is kept in memory (least recently used dropped). */
  maxCursors?: number;
}

function metadataOf(event: Event): { index: number; chain: string } | undefined {
  const value = event.customMetadata?.[AI_SDK_METADATA_KEY];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const index: unknown = Reflect.get(value, 'index');
  const chain: unknown = Reflect.get(value, 'chain');
  if (typeof index !== 'number' || !Number.isSafeInteger(index) || typeof chain !== 'string') {
    return undefined;
  }
  return { index, chain };
}

/** A user's own turn (not tool results): it starts a new invocation. */
function isUserTurn(content: Content): boolean {
  return content.role === 'user' && !content.parts.some((part) => part.functionResponse);
}

function cursorId(key: SessionKey): string {
  return JSON.stringify([key.appName, key.userId, key.sessionId]);
}

export class ConversationLog {
  private readonly sessionService: SessionService;
  private readonly agentName: string;
  private readonly maxCursors: number;
  private readonly cursors = new Map<string, Cursor>();

  constructor(options: ConversationLogOptions) {
    this.sessionService = options.sessionService;
    this.agentName = options.agentName;
    this.maxCursors = options.maxCursors ?? 1000;
  }

  /** Appends what the prompt holds beyond the log (branching first when it left the log). */
  async sync(options: SyncOptions): Promise<SyncResult> {
    const { key, contents, chains, signal } = options;
    const loaded = await this.loadOrCreate(key, signal);
    let stored: StoredView | undefined = loaded;
    let cursor = this.cursors.get(cursorId(key));
    if (cursor?.lastSeq !== loaded.lastSeq) cursor = undefined;
    let diverge = cursor ? divergence(cursor, chains) : undefined;
    if (!cursor || diverge === undefined) {
      cursor = await this.rebuild({ key, chains, lastSeq: loaded.lastSeq, signal });
      diverge = divergence(cursor, chains) ?? 0;
    }
    const logged = cursor.entries.length === 0 ? 0 : cursor.entries.at(-1)!.index + 1;
    let from = diverge;
    let branched = false;
    let appended = 0;
    if (diverge < logged) {
      // The prompt left the log: annul the invocation it left in, then log the prompt from there.
      const position = diverge - cursor.entries[0]!.index;
      const target = cursor.entries[position]!.invocationId;
      let start = position;
      while (start > 0 && cursor.entries[start - 1]!.invocationId === target) start--;
      from = cursor.entries[start]!.index;
      const rewind = await this.sessionService.appendEvent({
        ...key,
        event: {
          id: newId(),
          invocationId: newId(),
          author: 'user',
          timestamp: Date.now() / 1000,
          actions: { rewindBeforeInvocationId: target },
          customMetadata: { [AI_SDK_METADATA_KEY]: { rewindTo: from } },
        },
        signal,
      });
      cursor.entries.length = start;
      cursor.lastSeq = rewind.seq;
      branched = true;
      appended++;
      // The view must be read again: it is expanded around the rewind.
      stored = undefined;
    }
    let invocationId = cursor.entries.at(-1)?.invocationId;
    for (let index = from; index < contents.length; index++) {
      const content = contents[index]!;
      if (invocationId === undefined || isUserTurn(content) || (branched && index === from)) {
        invocationId = newId();
      }
      const event: NewEvent = {
        id: newId(),
        invocationId,
        author: isUserTurn(content) ? 'user' : this.agentName,
        timestamp: Date.now() / 1000,
        content: content.parts.length > 0 ? content : { ...content, parts: [{ text: '' }] },
        actions: {},
        customMetadata: { [AI_SDK_METADATA_KEY]: { index, chain: chains[index]! } },
      };
      if (options.usage?.index === index) event.usageMetadata = options.usage.usageMetadata;
      const saved = await this.sessionService.appendEvent({ ...key, event, signal });
      stored = extendView(stored, saved);
      this.note(cursor, saved, index, chains[index]!);
      appended++;
    }
    this.remember(key, cursor);
    return { stored, invocationId: invocationId ?? newId(), branched, appended };
  }

  /** Appends a model's response as the message at `index`, with the provider's usage. */
  async appendResponse(options: {
    key: SessionKey;
    content: Content;
    index: number;
    chain: string;
    invocationId: string;
    usageMetadata?: UsageMetadata;
    signal?: AbortSignal;
  }): Promise<Event> {
    const { key, index, chain } = options;
    const event: NewEvent = {
      id: newId(),
      invocationId: options.invocationId,
      author: this.agentName,
      timestamp: Date.now() / 1000,
      content: options.content,
      actions: {},
      customMetadata: { [AI_SDK_METADATA_KEY]: { index, chain } },
    };
    if (options.usageMetadata) event.usageMetadata = options.usageMetadata;
    const saved = await this.sessionService.appendEvent({ ...key, event, signal: options.signal });
    const cursor = this.cursors.get(cursorId(key));
    const last = cursor?.entries.at(-1);
    // Extend the cursor only when it described the store right before this append.
    if (cursor && saved.seq === cursor.lastSeq + 1 && (last?.index ?? -1) + 1 === index) {
      this.note(cursor, saved, index, chain);
    } else {
      this.cursors.delete(cursorId(key));
    }
    return saved;
  }

  /** A write this log did not make (the guard's compaction): the cursor follows it or is dropped. */
  noteAppended(key: SessionKey, seq: number): void {
    const cursor = this.cursors.get(cursorId(key));
    if (!cursor) return;
    if (cursor.lastSeq === seq - 1) cursor.lastSeq = seq;
    else this.cursors.delete(cursorId(key));
  }

  private note(cursor: Cursor, event: Event, index: number, chain: string): void {
    cursor.entries.push({ index, chain, seq: event.seq, invocationId: event.invocationId });
    cursor.lastSeq = event.seq;
  }

  private remember(key: SessionKey, cursor: Cursor): void {
    const id = cursorId(key);
    this.cursors.delete(id);
    this.cursors.set(id, cursor);
    if (this.cursors.size > this.maxCursors) {
      const oldest = this.cursors.keys().next().value;
      if (oldest !== undefined) this.cursors.delete(oldest);
    }
  }

  private async loadOrCreate(key: SessionKey, signal?: AbortSignal): Promise<StoredView> {
    try {
      return await loadActiveView({ sessionService: this.sessionService, ...key, signal });
    } catch (error) {
      if (!SessionNotFoundError.isInstance(error)) throw error;
    }
    try {
      await this.sessionService.createSession({ ...key, signal });
    } catch (error) {
      // Another call created it first.
      if (!SessionAlreadyExistsError.isInstance(error)) throw error;
    }
    return loadActiveView({ sessionService: this.sessionService, ...key, signal });
  }

  /**
   * The cursor from storage: live message events read newest first (rewound ones skipped, as
   * ADK's rewind rule says) until one matches the prompt at its index, then on to the start of
   * that event's invocation. A prompt that matches nothing reads the whole log.
   */
  private async rebuild(options: {
    key: SessionKey;
    chains: readonly string[];
    lastSeq: number;
    signal?: AbortSignal;
  }): Promise<Cursor> {
    const { key, chains, signal } = options;
    const collected: LoggedMessage[] = [];
    let skipping: { target: string; seen: boolean } | undefined;
    let matchedInvocation: string | undefined;
    let beforeSeq: number | undefined;
    reading: for (;;) {
      const page = await this.sessionService.listEvents({
        ...key,
        order: 'desc',
        limit: REBUILD_PAGE_SIZE,
        ...(beforeSeq === undefined ? {} : { beforeSeq }),
        signal,
      });
      for (const event of page.events) {
        if (skipping) {
          if (event.invocationId === skipping.target) {
            skipping.seen = true;
            continue;
          }
          if (!skipping.seen) continue;
          skipping = undefined;
        }
        const target = rewindTarget(event);
        if (target !== undefined) {
          skipping = { target, seen: false };
          continue;
        }
        const metadata = metadataOf(event);
        if (!metadata) continue;
        if (matchedInvocation !== undefined && event.invocationId !== matchedInvocation) {
          break reading;
        }
        const expected = (collected.at(-1)?.index ?? metadata.index + 1) - 1;
        // A gap (a message logged by something else): keep only the newer, contiguous part.
        if (metadata.index !== expected) collected.length = 0;
        collected.push({ ...metadata, seq: event.seq, invocationId: event.invocationId });
        if (matchedInvocation === undefined && chains[metadata.index] === metadata.chain) {
          matchedInvocation = event.invocationId;
        }
      }
      if (page.nextCursor === undefined || page.events.length === 0) break;
      beforeSeq = page.nextCursor;
    }
    return { entries: collected.reverse(), lastSeq: options.lastSeq };
  }
}

/**
 * Where the prompt leaves the cursor's log: the first index whose chain differs (or the end of
 * the shorter one). `undefined` when it leaves before the cursor's first entry (read further).
 */
function divergence(cursor: Cursor, chains: readonly string[]): number | undefined {
  const { entries } = cursor;
  if (entries.length === 0) return 0;
  const first = entries[0]!.index;
  if (chains[first] !== entries[0]!.chain) return first === 0 ? 0 : undefined;
  // Chains match on a prefix: binary search for the last index that matches.
  let low = 0;
  let high = Math.min(entries.length, chains.length - first) - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (chains[first + middle] === entries[middle]!.chain) low = middle;
    else high = middle - 1;
  }
  return first + low + 1;
}

/** The view after an append, when the view was known and nothing else wrote in between. */
function extendView(stored: StoredView | undefined, event: Event): StoredView | undefined {
  if (!stored || event.seq !== stored.lastSeq + 1) return undefined;
  return { ...stored, tail: [...stored.tail, structuredClone(event)], lastSeq: event.seq };
}
