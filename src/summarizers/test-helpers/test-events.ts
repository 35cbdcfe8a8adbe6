/** Builders for summarizer tests (test-only; not exported from the area index). */
import type { Content, Event, Part } from '../../events/types.js';

export function makeEvent(
  seq: number,
  author: string,
  parts: Part[],
  extra: Partial<Event> = {},
): Event {
  const role: Content['role'] =
    author === 'user' || parts.some((part) => part.functionResponse) ? 'user' : 'model';
  return {
    id: `event-${seq}`,
    invocationId: `invocation-${Math.ceil(seq / 4)}`,
    author,
    timestamp: 1_700_000_000 + seq,
    seq,
    content: { role, parts },
    actions: {},
    ...extra,
  };
}

export function userText(seq: number, text: string): Event {
  return makeEvent(seq, 'user', [{ text }]);
}

export function agentText(seq: number, text: string): Event {
  return makeEvent(seq, 'agent', [{ text }]);
}
