/**
 * ADK session JSON out (SPEC §1). ADK for Python rejects unknown fields, so a compaction holds
 * only ADK's three; orrery's range, trigger, token counts and `seq` go under
 * `customMetadata.orrery`, where `fromAdkSessionJson` finds them again.
 */
import { type AdkCasing, casedKey, isPlainObject, setDefined } from './adk-casing.js';
import { parseEvent, parseNewEvent } from './schema.js';
import type { Content, Event, NewEvent, Part, Session } from './types.js';

const ORRERY_METADATA_KEY = 'orrery';
const ADK_FIELDS_KEY = 'adkFields';

export interface ToAdkSessionJsonOptions {
  /** The session's key, state and time; `events` is used when `options.events` is absent. */
  session: Partial<Omit<Session, 'events'>> & { events?: readonly NewEvent[] };
  /**
   * The events to write (e.g. the full history). Default: `session.events`. Stored events (all
   * with `seq`) are written in `seq` order, ADK's append order: an active view (checkpoint first,
   * then the tail) is written chronologically, so `fromAdkSessionJson` reads it back.
   */
  events?: readonly NewEvent[];
  /** `camel` (ADK's API and JS form, the default) or `snake` (ADK for Python's field names). */
  casing?: AdkCasing;
}

/** ADK's session object `{id, appName, userId, state, events, lastUpdateTime}`, in `casing`. */
export function toAdkSessionJson(options: ToAdkSessionJsonOptions): Record<string, unknown> {
  const casing = options.casing ?? 'camel';
  const key = (name: string) => casedKey(name, casing);
  const session = options.session;
  const events = inSeqOrder(options.events ?? session.events ?? []);
  const output: Record<string, unknown> = {};
  setDefined(output, 'id', session.sessionId);
  setDefined(output, key('appName'), session.appName);
  setDefined(output, key('userId'), session.userId);
  output.state = structuredClone(session.state ?? {});
  output.events = events.map((event, index) => {
    const path = `events[${index}]`;
    const stored = (event as { seq?: unknown }).seq !== undefined;
    return toAdkEventJson(
      stored ? parseEvent(event, { path }) : parseNewEvent(event, { path }),
      casing,
    );
  });
  setDefined(output, key('lastUpdateTime'), session.lastUpdateTime);
  return output;
}

function inSeqOrder(events: readonly NewEvent[]): readonly NewEvent[] {
  const hasSeq = (event: NewEvent): event is Event => typeof (event as Event).seq === 'number';
  if (!events.every(hasSeq)) return events;
  return [...events].sort((a, b) => a.seq - b.seq);
}

/** One event in ADK's form. The event must already be valid (see `parseNewEvent`). */
export function toAdkEventJson(
  event: NewEvent & { seq?: number },
  casing: AdkCasing = 'camel',
): Record<string, unknown> {
  const key = (name: string) => casedKey(name, casing);
  const output: Record<string, unknown> = {};
  output.id = event.id;
  output[key('invocationId')] = event.invocationId;
  output.author = event.author;
  output.timestamp = event.timestamp;
  setDefined(output, 'branch', event.branch);
  if (event.content) output.content = contentToAdk(event.content, casing);
  if (event.usageMetadata) {
    const usage: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(event.usageMetadata)) {
      setDefined(usage, key(name), value);
    }
    output[key('usageMetadata')] = usage;
  }
  output.actions = actionsToAdk(event.actions, casing);
  if (event.longRunningToolIds) output[key('longRunningToolIds')] = [...event.longRunningToolIds];
  setDefined(output, 'partial', event.partial);
  setDefined(output, key('turnComplete'), event.turnComplete);
  setDefined(output, key('finishReason'), event.finishReason);
  setDefined(output, key('errorCode'), event.errorCode);
  setDefined(output, key('errorMessage'), event.errorMessage);

  const { [ADK_FIELDS_KEY]: adkFields, ...customMetadata } = structuredClone(
    event.customMetadata ?? {},
  );
  // ADK fields orrery has no place for were kept at import: put them back where ADK wants them.
  if (isPlainObject(adkFields)) {
    for (const [name, value] of Object.entries(adkFields)) {
      if (!(key(name) in output)) output[key(name)] = value;
    }
  } else if (adkFields !== undefined) {
    customMetadata[ADK_FIELDS_KEY] = adkFields;
  }
  const orrery: Record<string, unknown> = {};
  setDefined(orrery, 'seq', event.seq);
  const compaction = event.actions.compaction;
  if (compaction) {
    orrery.compaction = {
      startSeq: compaction.startSeq,
      endSeq: compaction.endSeq,
      trigger: compaction.trigger,
      tokensBefore: compaction.tokensBefore,
      tokensAfter: compaction.tokensAfter,
      summarizer: compaction.summarizer,
    };
  }
  if (Object.keys(orrery).length > 0) customMetadata[ORRERY_METADATA_KEY] = orrery;
  // An empty custom metadata object is written as none (and read back as none).
  if (Object.keys(customMetadata).length > 0) {
    output[key('customMetadata')] = customMetadata;
  }
  return output;
}

function contentToAdk(content: Content, casing: AdkCasing): Record<string, unknown> {
  return { role: content.role, parts: content.parts.map((part) => partToAdk(part, casing)) };
}

function partToAdk(part: Part, casing: AdkCasing): Record<string, unknown> {
  const key = (name: string) => casedKey(name, casing);
  const output: Record<string, unknown> = {};
  setDefined(output, 'text', part.text);
  setDefined(output, 'thought', part.thought);
  setDefined(output, key('thoughtSignature'), part.thoughtSignature);
  if (part.functionCall) {
    const { id, name, args } = part.functionCall;
    output[key('functionCall')] = { id, name, args: structuredClone(args) };
  }
  if (part.functionResponse) {
    const { id, name, response } = part.functionResponse;
    output[key('functionResponse')] = { id, name, response: structuredClone(response) };
  }
  if (part.inlineData) {
    const { mimeType, data } = part.inlineData;
    output[key('inlineData')] = { [key('mimeType')]: mimeType, data };
  }
  return output;
}

function actionsToAdk(actions: NewEvent['actions'], casing: AdkCasing): Record<string, unknown> {
  const output: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(actions)) {
    if (value === undefined) continue;
    if (name === 'compaction') {
      const compaction = actions.compaction!;
      output.compaction = {
        [casedKey('startTimestamp', casing)]: compaction.startTimestamp,
        [casedKey('endTimestamp', casing)]: compaction.endTimestamp,
        [casedKey('compactedContent', casing)]: contentToAdk(compaction.compactedContent, casing),
      };
    } else {
      // Only the action's own name is cased: its value (state, confirmations) is user data.
      output[casedKey(name, casing)] = structuredClone(value);
    }
  }
  return output;
}
