/**
 * What an OpenAI Agents session shows: orrery's view (the summary, then the tail) with the
 * session's tombstones honoured. `popItem` and `clearSession` never delete: they append a
 * tombstone event naming what it hides (one event's `seq`, or everything through a `seq`), and
 * every read and every compaction here leaves the hidden events out. A tombstone always comes
 * after what it hides, so whenever a hidden event is in the tail its tombstone is too.
 *
 * `addItems` is all or nothing on any store (docs/resilience.md#adapter-writes-are-whole): the
 * events of one call carry a batch mark (`{ id, index, size }`) and are shown only once the
 * batch's last event is stored. Later events of a batch have larger `seq`s, so when any of them
 * is in the tail, its last one is too, if it was stored at all.
 */
import {
  ELIDED_RESPONSE_KEY,
  elideEvent,
  isElisionEvent,
  latestElision,
} from '../../compaction/elision.js';
import { EXPANDED_SUMMARY_KEY } from '../../compaction/expanded-view.js';
import { summaryContent } from '../../compaction/view.js';
import { getText } from '../../events/event-helpers.js';
import type { CompactionEvent, Event, EventElision, NewEvent } from '../../events/types.js';
import type { StoredView } from '../../sessions/session-service.js';
import {
  callIdOf,
  contentToItems,
  type ItemRecord,
  isResultItem,
  isUserMessage,
} from './item-content.js';

/** Where a stored event keeps this adapter's data: `{ item }` or `{ tombstone }`. */
export const OPENAI_AGENTS_METADATA_KEY = 'orrery:openaiAgents';

/** The events one `addItems` call stored: shown only when the last (`index = size - 1`) is. */
export interface ItemBatch {
  id: string;
  index: number;
  size: number;
}

/** What a tombstone hides: one event (`seq`) or every event through `throughSeq`. */
export type Tombstone = { seq: number } | { throughSeq: number };

function metadataOf(event: Event): Record<string, unknown> | undefined {
  const value = event.customMetadata?.[OPENAI_AGENTS_METADATA_KEY];
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The original item an event stores, when this adapter wrote it. */
export function storedItem(event: Event): ItemRecord | undefined {
  const item = metadataOf(event)?.item;
  return item !== null && typeof item === 'object' && !Array.isArray(item)
    ? (item as ItemRecord)
    : undefined;
}

function batchOf(event: Event): ItemBatch | undefined {
  const value = metadataOf(event)?.batch;
  if (value === null || typeof value !== 'object') return undefined;
  const id: unknown = Reflect.get(value, 'id');
  const index: unknown = Reflect.get(value, 'index');
  const size: unknown = Reflect.get(value, 'size');
  if (typeof id !== 'string' || !Number.isSafeInteger(index) || !Number.isSafeInteger(size)) {
    return undefined;
  }
  return { id, index: index as number, size: size as number };
}

/** The batches whose last event is stored (in `tail`). */
function committedBatches(tail: readonly Event[]): Set<string> {
  const committed = new Set<string>();
  for (const event of tail) {
    const batch = batchOf(event);
    if (batch && batch.index === batch.size - 1) committed.add(batch.id);
  }
  return committed;
}

function tombstoneOf(event: Event): Tombstone | undefined {
  const value = metadataOf(event)?.tombstone;
  if (value === null || typeof value !== 'object') return undefined;
  const seq: unknown = Reflect.get(value, 'seq');
  if (Number.isSafeInteger(seq)) return { seq: seq as number };
  const throughSeq: unknown = Reflect.get(value, 'throughSeq');
  if (Number.isSafeInteger(throughSeq)) return { throughSeq: throughSeq as number };
  return undefined;
}

/** A tombstone event (no content: it is no turn of the conversation). */
export function tombstoneEvent(options: {
  id: string;
  invocationId: string;
  tombstone: Tombstone;
}): NewEvent {
  return {
    id: options.id,
    invocationId: options.invocationId,
    author: 'user',
    timestamp: Date.now() / 1000,
    actions: {},
    customMetadata: { [OPENAI_AGENTS_METADATA_KEY]: { tombstone: options.tombstone } },
  };
}

/** The summary as the model reads it (`summaryContent`): the first user message. */
function summaryItem(checkpoint: CompactionEvent): ItemRecord {
  return { type: 'message', role: 'user', content: getText(summaryContent(checkpoint)) };
}

/** One item of the view and what a pop of it hides. */
export interface ViewEntry {
  item: ItemRecord;
  /** The `seq` a tombstone names to hide it: the event's, or the summary's compaction. */
  seq: number;
  /** The event it came from (`undefined` for the checkpoint's summary). */
  event?: Event;
}

export interface SessionView {
  entries: ViewEntry[];
  /** The stored view with hidden events and tombstones left out: what compaction plans from. */
  stored: StoredView;
  /** The invocation of the newest item (a tool output continues it). */
  lastInvocationId?: string;
}

/** The `seq` a tombstone names for a tail event: an expanded summary's compaction, or its own. */
function hidingSeq(event: Event): number {
  const summaryOf = event.customMetadata?.[EXPANDED_SUMMARY_KEY];
  return typeof summaryOf === 'number' ? summaryOf : event.seq;
}

function eventItems(event: Event, rule: EventElision | undefined): ItemRecord[] {
  const shown = elideEvent(event, rule);
  if (shown !== event) return elidedItems(event, shown);
  const item = storedItem(event);
  if (item) return [item];
  if (event.customMetadata?.[EXPANDED_SUMMARY_KEY] !== undefined && event.content) {
    // An imported (non-rolling) summary the runtime put into the tail: already prefixed.
    return [{ type: 'message', role: 'user', content: getText(event.content) }];
  }
  return event.content ? contentToItems(event.content) : [];
}

/**
 * An event whose tool output the elision rule in force replaced
 * (docs/architecture.md#elision-the-cheap-tier): the stored result item with the placeholder as
 * its output, or the items of the elided content when the event holds no such item.
 */
function elidedItems(event: Event, shown: Event): ItemRecord[] {
  const item = storedItem(event);
  const placeholder = shown.content?.parts.find((part) => part.functionResponse)?.functionResponse
    ?.response[ELIDED_RESPONSE_KEY];
  if (item?.type === 'function_call_result' && typeof placeholder === 'string') {
    return [{ ...item, output: { type: 'text', text: placeholder } }];
  }
  return shown.content ? contentToItems(shown.content) : [];
}

/**
 * The view of a stored view: the checkpoint's summary (unless hidden), then the visible tail's
 * items. A tool output whose call is not in the view (its call was popped) is left out; a call
 * without output is left to the Runner, which drops such calls from every request.
 */
export function buildSessionView(stored: StoredView): SessionView {
  const popped = new Set<number>();
  let clearedThrough = 0;
  for (const event of stored.tail) {
    const tombstone = tombstoneOf(event);
    if (!tombstone) continue;
    if ('seq' in tombstone) popped.add(tombstone.seq);
    else clearedThrough = Math.max(clearedThrough, tombstone.throughSeq);
  }
  const hidden = (seq: number) => seq <= clearedThrough || popped.has(seq);
  // A batch whose last event never landed (the store failed midway) was never added.
  const committed = committedBatches(stored.tail);
  const uncommitted = (event: Event) => {
    const batch = batchOf(event);
    return batch !== undefined && !committed.has(batch.id);
  };
  const checkpoint: CompactionEvent | undefined =
    stored.checkpoint && !hidden(stored.checkpoint.seq) ? stored.checkpoint : undefined;
  const tail = stored.tail.filter(
    (event) =>
      !tombstoneOf(event) &&
      !event.actions?.compaction &&
      !hidden(hidingSeq(event)) &&
      !uncommitted(event),
  );

  const entries: ViewEntry[] = [];
  if (checkpoint) {
    entries.push({ item: summaryItem(checkpoint), seq: checkpoint.seq });
  }
  const calls = new Set<string>();
  let lastInvocationId: string | undefined;
  const rule = latestElision(tail)?.actions.elision;
  for (const event of tail) {
    // A rule is no turn: it shows no item and continues no invocation.
    if (isElisionEvent(event)) continue;
    for (const item of eventItems(event, rule)) {
      const callId = callIdOf(item);
      if (isResultItem(item)) {
        if (callId === undefined || !calls.has(callId)) continue;
      } else if (callId !== undefined) {
        calls.add(callId);
      }
      entries.push({ item, seq: hidingSeq(event), event });
    }
    lastInvocationId = event.invocationId;
  }

  const view: StoredView = { ...stored, checkpoint, tail };
  if (stored.checkpoint && !checkpoint) {
    // The summary is hidden: a compaction now starts over from seq 1, without it, and must
    // still find the stored checkpoint unchanged (the Compactor's expanded-view rule).
    view.checkpoint = undefined;
    view.expandedFromCheckpointSeq = stored.checkpoint.seq;
  }
  return { entries, stored: view, lastInvocationId };
}

/** Whether an item starts a new turn (a new orrery invocation). */
export function startsTurn(item: ItemRecord): boolean {
  return isUserMessage(item);
}
