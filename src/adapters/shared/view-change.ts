/**
 * What an adapter does after a compaction attempt: a summary and an elision rule both change
 * the view (docs/architecture.md#elision-the-cheap-tier), so both are followed the same way (the
 * log's cursor notes the append; the view handed to the framework is rebuilt).
 */
import { ELIDED_RESPONSE_KEY, ELISION_PLACEHOLDER_PREFIX } from '../../compaction/elision.js';
import type { ActiveView } from '../../compaction/view.js';
import type { Event } from '../../events/types.js';
import type { CompactionReport } from '../../runtime/compaction/compactor.js';
import { AI_SDK_METADATA_KEY } from './conversation-log.js';

/** The attempt changed the view: a summary (`compacted`) or an elision rule (`elided`). */
export { changedView } from '../../runtime/compaction/compactor.js';

/** The event the attempt appended when it changed the view (the summary or the rule). */
export function appendedRecord(report: CompactionReport): Event | undefined {
  if (report.outcome === 'compacted') return report.event;
  if (report.outcome === 'elided') return report.elisionEvent;
  return undefined;
}

/** Whether a view event shows an elided tool output (so it is not the stored message). */
export function showsElision(event: Event): boolean {
  return (event.content?.parts ?? []).some((part) => {
    const elided = part.functionResponse?.response[ELIDED_RESPONSE_KEY];
    return typeof elided === 'string' && elided.startsWith(ELISION_PLACEHOLDER_PREFIX);
  });
}

/**
 * The view holds exactly the logged messages, `messageCount` of them: no summary, elision,
 * repair or cut (then a framework sends its own request unchanged).
 */
export function viewIsLoggedMessages(view: ActiveView, messageCount: number): boolean {
  if (view.checkpoint || view.warnings.length > 0 || view.events.length !== messageCount) {
    return false;
  }
  return view.events.every(
    (event) => event.customMetadata?.[AI_SDK_METADATA_KEY] !== undefined && !showsElision(event),
  );
}
