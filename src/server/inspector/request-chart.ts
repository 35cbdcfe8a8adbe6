/**
 * The inspector's chart: for each stored model call, the estimated tokens of the request it was
 * sent (the view as it stood then: the checkpoint stored before it, its summary, the tail) and of
 * the request had nothing been compacted (every event so far). Kept current event by event, as
 * replay counts its requests (`UncompactedViewTokens`), so a session costs O(events) plus the
 * retained tail re-read at each new checkpoint, never a view re-assembled per call. See
 * `docs/architecture.md#inspector`.
 *
 * Estimates of the view as `assembleView` builds it from the store's checkpoint and tail; the
 * repairs a live request also gets (orphan calls restored from storage, ceilings), imported ADK
 * window summaries and rewinds are not modelled.
 */
import { isBetterCheckpoint, isValidCompaction, summaryContent } from '../../compaction/view.js';
import type { CompactionEvent, Event } from '../../events/types.js';
import { PartTokens } from '../../runtime/compaction/part-tokens.js';
import { UncompactedViewTokens } from '../../runtime/compaction/uncompacted-view-tokens.js';
import { isRecordedModelCall } from '../../runtime/replay/replay.js';
import type { ChartPoint, ChartResponse } from './api-types.js';

export class RequestChart {
  private readonly overheadTokens: number;
  private readonly points: ChartPoint[] = [];
  private readonly compactions: ChartResponse['compactions'] = [];
  /** Both counts hold the same part objects: each part is estimated once (a tail re-read too). */
  private readonly estimates = new PartTokens();
  private readonly uncompacted = new UncompactedViewTokens({ estimatePart: this.estimates.part });
  private compacted = new UncompactedViewTokens({ estimatePart: this.estimates.part });
  private checkpoint?: CompactionEvent;
  /** Non-compaction events after the checkpoint's range: re-read when a new one lands. */
  private tail: Event[] = [];

  constructor(options: { overheadTokens: number }) {
    this.overheadTokens = options.overheadTokens;
  }

  /** The next stored events, in `seq` order. */
  add(events: readonly Event[]): void {
    for (const event of events) this.addEvent(event);
  }

  result(threshold: number | null): ChartResponse {
    return { threshold, points: this.points, compactions: this.compactions };
  }

  private addEvent(event: Event): void {
    if (event.actions?.compaction) {
      if (isValidCompaction(event) && isBetterCheckpoint(event, this.checkpoint)) {
        this.useCheckpoint(event);
      }
      return;
    }
    // A model event answers the request sent just before it: everything stored so far. Partial
    // events are chunks of a streamed answer, not calls of their own.
    if (!event.partial && isRecordedModelCall(event)) {
      this.points.push({
        call: this.points.length + 1,
        seq: event.seq,
        tokens: this.compacted.total(this.overheadTokens),
        uncompactedTokens: this.uncompacted.total(this.overheadTokens),
      });
    }
    this.uncompacted.append(event);
    this.compacted.append(event);
    this.tail.push(event);
  }

  private useCheckpoint(checkpoint: CompactionEvent): void {
    const endSeq = checkpoint.actions.compaction.endSeq;
    this.checkpoint = checkpoint;
    this.compactions.push({ seq: checkpoint.seq, call: this.points.length + 1 });
    this.tail = this.tail.filter((event) => event.seq > endSeq);
    // The summary opens the view as the first user content (`assembleView`).
    this.compacted = new UncompactedViewTokens({ estimatePart: this.estimates.part });
    this.compacted.append({
      id: `summary-${checkpoint.id}`,
      invocationId: checkpoint.invocationId,
      author: 'user',
      timestamp: checkpoint.timestamp,
      actions: {},
      content: summaryContent(checkpoint),
      seq: checkpoint.seq,
    });
    for (const event of this.tail) this.compacted.append(event);
  }
}
