/**
 * A recall hit with its context (docs/memory.md#hit-windows): the events either side of it in
 * the same session, so the model reads a stretch of conversation and not one line out of it.
 * Windows that overlap or touch are merged into one passage; passages keep the rank of their
 * best hit. Reads are one `listEvents` per passage.
 */
import { isElisionEvent } from '../../compaction/elision.js';
import type { Event } from '../../events/types.js';
import type { SessionService } from '../../sessions/session-service.js';

/** A seq range around one or more hits, `rank`: the best (lowest) rank among them. */
export interface HitWindow {
  fromSeq: number;
  toSeq: number;
  hitSeqs: number[];
  rank: number;
}

/**
 * The windows of `hits` (in rank order): `contextEvents` seqs either side of each, clamped to
 * `1..maxSeq`, merged when they overlap or touch, ordered by their best hit's rank.
 */
export function mergeHitWindows(options: {
  hitSeqs: readonly number[];
  contextEvents: number;
  maxSeq: number;
}): HitWindow[] {
  const { contextEvents, maxSeq } = options;
  const windows = options.hitSeqs
    .map((seq, rank) => ({
      fromSeq: Math.max(1, seq - contextEvents),
      toSeq: Math.min(maxSeq, seq + contextEvents),
      hitSeqs: [seq],
      rank,
    }))
    .sort((left, right) => left.fromSeq - right.fromSeq);
  const merged: HitWindow[] = [];
  for (const window of windows) {
    const last = merged[merged.length - 1];
    if (last && window.fromSeq <= last.toSeq + 1) {
      last.toSeq = Math.max(last.toSeq, window.toSeq);
      last.hitSeqs.push(...window.hitSeqs);
      last.rank = Math.min(last.rank, window.rank);
    } else {
      merged.push({ ...window, hitSeqs: [...window.hitSeqs] });
    }
  }
  for (const window of merged) window.hitSeqs.sort((left, right) => left - right);
  return merged.sort((left, right) => left.rank - right.rank);
}

/** The conversation events of each window (compaction and elision records left out). */
export async function readHitWindows(options: {
  sessionService: SessionService;
  appName: string;
  userId: string;
  sessionId: string;
  windows: readonly HitWindow[];
  signal?: AbortSignal;
}): Promise<Array<{ window: HitWindow; events: Event[] }>> {
  const { sessionService, windows, signal } = options;
  const key = { appName: options.appName, userId: options.userId, sessionId: options.sessionId };
  const read = [];
  for (const window of windows) {
    const page = await sessionService.listEvents({
      ...key,
      afterSeq: window.fromSeq - 1,
      beforeSeq: window.toSeq + 1,
      limit: window.toSeq - window.fromSeq + 1,
      signal,
    });
    const events = page.events.filter(
      (event) => !event.actions.compaction && !isElisionEvent(event),
    );
    read.push({ window, events });
  }
  return read;
}

/**
 * Drops context items, lowest-ranked passage first, until the items' `size` sum fits
 * `maxChars`; the hits always stay (a passage left with its hits alone is narrowed to them).
 */
export function fitPassages<
  Passage extends { fromSeq: number; toSeq: number; items: Array<{ seq: number; hit?: true }> },
>(
  passages: Passage[],
  maxChars: number,
  size: (item: Passage['items'][number]) => number,
): Passage[] {
  let total = passages.reduce(
    (sum, passage) => sum + passage.items.reduce((items, item) => items + size(item), 0),
    0,
  );
  for (let index = passages.length - 1; index >= 0 && total > maxChars; index--) {
    const passage = passages[index]!;
    const kept = passage.items.filter((item) => item.hit);
    total -= passage.items
      .filter((item) => !item.hit)
      .reduce((items, item) => items + size(item), 0);
    passages[index] = {
      ...passage,
      fromSeq: kept[0]?.seq ?? passage.fromSeq,
      toSeq: kept[kept.length - 1]?.seq ?? passage.toSeq,
      items: kept,
    };
  }
  return passages;
}
