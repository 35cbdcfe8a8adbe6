/**
 * ADK for TypeScript events to orrery's and back, through orrery's ADK session JSON rules
 * (`fromAdkSessionJson`, `toAdkEventJson`): timestamps are epoch milliseconds in ADK-JS and
 * seconds in orrery; the original is kept so an event reads back as ADK-JS wrote it.
 */

import type { Event as AdkEvent } from '@google/adk';
import { elideEvent, isElisionEvent, latestElision } from '../../compaction/elision.js';
import { adkJsSummaryEnd } from '../../events/adk-js-summary-end.js';
import { fromAdkSessionJson } from '../../events/adk-json.js';
import { toAdkEventJson } from '../../events/adk-json-export.js';
import type { NewEvent } from '../../events/types.js';
import type { StoredView } from '../../sessions/session-service.js';

const ADK_JS_FORM = { casing: 'camel', timestampUnit: 'milliseconds', dialect: 'adk-js' } as const;

/** One ADK-JS event as an orrery event to append (validated; the bad field named). */
export function toOrreryEvent(event: AdkEvent): NewEvent {
  // JSON drops what ADK-JS leaves `undefined` and its symbol markers, as its database does.
  const plain: unknown = JSON.parse(JSON.stringify(event));
  const [imported] = fromAdkSessionJson([plain]).events;
  const { seq: _seq, ...newEvent } = imported!;
  return newEvent;
}

/** ADK-JS's `isCompactedEvent`, without loading ADK. */
export function isAdkCompactedEvent(event: AdkEvent): boolean {
  return (event as { isCompacted?: unknown }).isCompacted === true;
}

/**
 * The view as ADK-JS events: the summary as a `CompactedEvent` first, then the tail. ADK-JS
 * sends a summary and only the events strictly after its `endTime` (`getActiveEvents`), while
 * orrery's tail is decided by `seq`; so `endTime` is kept below every tail event's time. A tail
 * event in the summary's last millisecond (fast tools and models write several per ms), or one
 * written with an earlier clock, would otherwise vanish from the request, and a call dropped
 * with its result kept makes ADK-JS's Runner throw "No function call event found".
 */
export function viewToAdkEvents(view: StoredView): AdkEvent[] {
  // Under an elision rule the tail shows its placeholders and the rule itself is no event ADK
  // knows (docs/architecture.md#elision-the-cheap-tier).
  const rule = latestElision(view.tail)?.actions.elision;
  const tail = view.tail
    .filter((event) => !isElisionEvent(event))
    .map((event) => toAdkEventJson(elideEvent(event, rule), ADK_JS_FORM));
  if (!view.checkpoint) return tail as unknown as AdkEvent[];
  const summary = toAdkEventJson(view.checkpoint, ADK_JS_FORM);
  if (typeof summary.endTime === 'number') {
    const laterTimestamps = tail.map((event) => event.timestamp);
    summary.endTime = adkJsSummaryEnd({ endTime: summary.endTime, laterTimestamps });
  }
  return [summary, ...tail] as unknown as AdkEvent[];
}
