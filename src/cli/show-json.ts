/**
 * `orrery sessions show ID --json`: what the drawing shows, as stable JSON. Fields are only
 * added, never renamed: scripts may rely on them.
 */
import { getText, isCompactionEvent } from '../events/event-helpers.js';
import type { Content, Event, Session, SessionKey } from '../events/types.js';
import { creditOfCompaction } from './summarizer-label.js';

export interface ShowCompactionJson {
  /** The compaction event's own seq. */
  seq: number;
  timestamp: number;
  trigger: string;
  /** The range of seqs it summarizes, inclusive. */
  startSeq: number;
  endSeq: number;
  tokensBefore: number;
  tokensAfter: number;
  /** The summarizer that wrote the summary. */
  summarizer: string;
  /** Set when a fallback wrote it: the summarizer that failed first, and why. */
  fallback?: { from: string; reason?: string };
  /** The checkpoint the next request starts from. */
  current: boolean;
  summary: string;
}

export interface ShowEventJson {
  seq: number;
  timestamp: number;
  invocationId: string;
  author: string;
  branch?: string;
  /** Summarized by the current checkpoint: left out of the next request. */
  summarized: boolean;
  content?: Content;
}

export interface ShowJson extends SessionKey {
  lastUpdateTime: number;
  state: Record<string, unknown>;
  /** Every stored event, compaction events included. */
  eventCount: number;
  /** seq of the current checkpoint, `null` when nothing is compacted. */
  checkpointSeq: number | null;
  compactions: ShowCompactionJson[];
  /** The events other than compactions, in seq order. */
  events: ShowEventJson[];
}

export function showJson(options: {
  key: SessionKey;
  session: Session;
  events: Event[];
  checkpointSeq?: number;
}): ShowJson {
  const { key, session, events } = options;
  const checkpoint = events.find((event) => event.seq === options.checkpointSeq);
  const hiddenUpTo = checkpoint?.actions.compaction?.endSeq ?? 0;
  const compactions: ShowCompactionJson[] = [];
  const others: ShowEventJson[] = [];
  for (const event of events) {
    const compaction = event.actions.compaction;
    if (compaction && isCompactionEvent(event)) {
      const credit = creditOfCompaction(compaction);
      compactions.push({
        seq: event.seq,
        timestamp: event.timestamp,
        trigger: compaction.trigger,
        startSeq: compaction.startSeq,
        endSeq: compaction.endSeq,
        tokensBefore: compaction.tokensBefore,
        tokensAfter: compaction.tokensAfter,
        summarizer: credit.summarizer,
        ...(credit.fallback ? { fallback: credit.fallback } : {}),
        current: event.seq === options.checkpointSeq,
        summary: getText(compaction.compactedContent),
      });
      continue;
    }
    others.push({
      seq: event.seq,
      timestamp: event.timestamp,
      invocationId: event.invocationId,
      author: event.author,
      ...(event.branch ? { branch: event.branch } : {}),
      summarized: event.seq <= hiddenUpTo,
      ...(event.content ? { content: event.content } : {}),
    });
  }
  return {
    ...key,
    lastUpdateTime: session.lastUpdateTime,
    state: session.state,
    eventCount: events.length,
    checkpointSeq: options.checkpointSeq ?? null,
    compactions,
    events: others,
  };
}
