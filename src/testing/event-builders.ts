/**
 * Event builders for tests: plain data, no store involved. The free functions build a
 * `NewEvent` to append to any `SessionService`; `HistoryBuilder` numbers events as a store would
 * (seq 1, 2, ...) for the pure compaction functions, which take stored events.
 */
import { newId } from '../events/event-helpers.js';
import type {
  CompactionEvent,
  Event,
  EventActions,
  EventCompaction,
  NewEvent,
  Part,
} from '../events/types.js';

/** Fields every builder accepts; anything not given gets a fresh id, the current time, etc. */
export type EventFields = Partial<Omit<NewEvent, 'content'>>;

export interface TextEventOptions extends EventFields {
  text: string;
}

/** A call as a builder takes it: an id alone means tool `tool_<id>` with no arguments. */
export type FunctionCallSpec =
  | string
  | { id: string; name?: string; args?: Record<string, unknown> };

/** A response as a builder takes it: an id alone means tool `tool_<id>` answering `{ ok: id }`. */
export type FunctionResponseSpec =
  | string
  | { id: string; name?: string; response?: Record<string, unknown> };

export interface FunctionCallEventOptions extends EventFields {
  /** One `functionCall` part per entry, in order (parallel calls). */
  calls: FunctionCallSpec[];
}

export interface FunctionResponseEventOptions extends EventFields {
  /** One `functionResponse` part per entry, in order. */
  responses: FunctionResponseSpec[];
}

export interface CompactionEventOptions
  extends EventFields,
    Partial<Omit<EventCompaction, 'compactedContent' | 'startSeq' | 'endSeq'>> {
  startSeq: number;
  endSeq: number;
  /** The summary text (`compactedContent`, role `model`). Default: `"summary"`. */
  text?: string;
}

/** A `NewEvent` whose `actions.compaction` is set. */
export type NewCompactionEvent = NewEvent & {
  actions: EventActions & { compaction: EventCompaction };
};

/** The common fields, with a fresh id and invocation id and the current time when unset. */
function baseEvent(fields: EventFields, defaultAuthor: string): NewEvent {
  return {
    ...fields,
    id: fields.id ?? newId(),
    invocationId: fields.invocationId ?? newId(),
    author: fields.author ?? defaultAuthor,
    timestamp: fields.timestamp ?? Date.now() / 1000,
    actions: fields.actions ?? {},
  };
}

/** A user message (author `user`, role `user`). */
export function userTextEvent(options: TextEventOptions): NewEvent {
  const { text, ...fields } = options;
  return { ...baseEvent(fields, 'user'), content: { role: 'user', parts: [{ text }] } };
}

/** A model's text answer (author `agent` unless given, role `model`). */
export function modelTextEvent(options: TextEventOptions): NewEvent {
  const { text, ...fields } = options;
  return { ...baseEvent(fields, 'agent'), content: { role: 'model', parts: [{ text }] } };
}

/** A model turn that calls tools (author `agent` unless given, role `model`). */
export function functionCallEvent(options: FunctionCallEventOptions): NewEvent {
  const { calls, ...fields } = options;
  const parts = calls.map((call): Part => {
    const spec = typeof call === 'string' ? { id: call } : call;
    return {
      functionCall: { id: spec.id, name: spec.name ?? `tool_${spec.id}`, args: spec.args ?? {} },
    };
  });
  return { ...baseEvent(fields, 'agent'), content: { role: 'model', parts } };
}

/** Tool results: their own event, role `user`, author the agent (`agent` unless given). */
export function functionResponseEvent(options: FunctionResponseEventOptions): NewEvent {
  const { responses, ...fields } = options;
  const parts = responses.map((response): Part => {
    const spec = typeof response === 'string' ? { id: response } : response;
    return {
      functionResponse: {
        id: spec.id,
        name: spec.name ?? `tool_${spec.id}`,
        response: spec.response ?? { ok: spec.id },
      },
    };
  });
  return { ...baseEvent(fields, 'agent'), content: { role: 'user', parts } };
}

/**
 * A rolling-summary compaction of `startSeq..endSeq`: author `user`, no content, a fresh
 * invocation id (docs/architecture.md#the-event-model). Unset fields: trigger `manual`, zero tokens
 * and timestamps, summarizer `test`.
 */
export function compactionEvent(options: CompactionEventOptions): NewCompactionEvent {
  const {
    startSeq,
    endSeq,
    text = 'summary',
    startTimestamp = 0,
    endTimestamp = 0,
    trigger = 'manual',
    tokensBefore = 0,
    tokensAfter = 0,
    summarizer = 'test',
    ...fields
  } = options;
  const event = baseEvent(fields, 'user');
  const compaction: EventCompaction = {
    startSeq,
    endSeq,
    startTimestamp,
    endTimestamp,
    compactedContent: { role: 'model', parts: [{ text }] },
    trigger,
    tokensBefore,
    tokensAfter,
    summarizer,
  };
  return { ...event, actions: { ...event.actions, compaction } };
}

export interface HistoryBuilderOptions {
  /** Timestamp of seq 0; event `seq` gets `startTimestamp + seq`. Default 1000. */
  startTimestamp?: number;
}

/**
 * A stored history built in memory: each append gets the next `seq`, the id `e<seq>` and the
 * timestamp `startTimestamp + seq` unless the options say otherwise. Events are returned (and
 * kept) as mutable objects, so a test may adjust one after appending it.
 */
export class HistoryBuilder {
  readonly events: Event[] = [];
  private readonly startTimestamp: number;

  constructor(options: HistoryBuilderOptions = {}) {
    this.startTimestamp = options.startTimestamp ?? 1000;
  }

  /** The `seq` the next append gets. */
  get nextSeq(): number {
    return this.events.length + 1;
  }

  /** Appends any event; `id`, `timestamp` and `actions` are filled in when missing. */
  append(event: Omit<NewEvent, 'id' | 'timestamp' | 'actions'> & Partial<NewEvent>): Event {
    const seq = this.nextSeq;
    const stored: Event = {
      ...event,
      id: event.id ?? `e${seq}`,
      timestamp: event.timestamp ?? this.startTimestamp + seq,
      actions: event.actions ?? {},
      seq,
    };
    this.events.push(stored);
    return stored;
  }

  userText(options: TextEventOptions): Event {
    return this.append(userTextEvent(this.defaults(options)));
  }

  modelText(options: TextEventOptions): Event {
    return this.append(modelTextEvent(this.defaults(options)));
  }

  functionCalls(options: FunctionCallEventOptions): Event {
    return this.append(functionCallEvent(this.defaults(options)));
  }

  functionResponses(options: FunctionResponseEventOptions): Event {
    return this.append(functionResponseEvent(this.defaults(options)));
  }

  compaction(options: CompactionEventOptions): CompactionEvent {
    const invocationId = options.invocationId ?? `compaction-${this.nextSeq}`;
    return this.append(
      compactionEvent(this.defaults({ ...options, invocationId })),
    ) as CompactionEvent;
  }

  /** Deterministic id and timestamp for the next seq, unless the caller set them. */
  private defaults<T extends EventFields>(options: T): T {
    const seq = this.nextSeq;
    return {
      ...options,
      id: options.id ?? `e${seq}`,
      timestamp: options.timestamp ?? this.startTimestamp + seq,
    };
  }
}
