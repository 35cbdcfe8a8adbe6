/**
 * The inspector's per-call trace: for each stored model call, the request it was sent (the view
 * as it stood then: the checkpoint stored before it, its summary, the tail), its answer, the
 * tokens the provider reported, its time and its tool calls with their results. One pass over the
 * history in `seq` order, as the chart (`RequestChart`, whose estimate each call carries) counts
 * its requests. Nothing is recorded at call time: the request is rebuilt from the events stored
 * before the answer, with the chart's limits (orphan repairs, ceilings, rewinds not modelled).
 */
import { isBetterCheckpoint, isValidCompaction } from '../../compaction/view.js';
import type { CompactionEvent, Event, UsageMetadata } from '../../events/types.js';
import {
  type CallToolUse,
  type CallTraceEntry,
  type CallUsage,
  PREVIEW_MAX_CHARS,
} from './api-types.js';
import { RequestChart } from './request-chart.js';
import { toTimelineEvent } from './timeline-event.js';

function clippedJson(value: unknown): string {
  const text = JSON.stringify(value ?? null) ?? 'null';
  return text.length <= PREVIEW_MAX_CHARS ? text : `${text.slice(0, PREVIEW_MAX_CHARS - 1)}…`;
}

export function usageOf(usage: UsageMetadata | undefined): CallUsage | undefined {
  if (!usage) return undefined;
  const result: CallUsage = {};
  if (usage.promptTokenCount !== undefined) result.input = usage.promptTokenCount;
  if (usage.cachedContentTokenCount !== undefined) result.cached = usage.cachedContentTokenCount;
  if (usage.candidatesTokenCount !== undefined) result.output = usage.candidatesTokenCount;
  if (usage.thoughtsTokenCount !== undefined) result.thoughts = usage.thoughtsTokenCount;
  if (usage.totalTokenCount !== undefined) result.total = usage.totalTokenCount;
  return Object.keys(result).length > 0 ? result : undefined;
}

export class CallTrace {
  private readonly chart: RequestChart;
  private readonly calls: CallTraceEntry[] = [];
  private checkpoint?: CompactionEvent;
  /** `seq`s of the non-compaction, non-partial events after the checkpoint's range. */
  private tail: number[] = [];
  private previousTimestamp?: number;
  /** Tool calls whose result has not been stored yet, by call id. */
  private readonly pending = new Map<string, CallToolUse>();

  constructor(options: { overheadTokens: number }) {
    this.chart = new RequestChart({ overheadTokens: options.overheadTokens });
  }

  /** The next stored events, in `seq` order. */
  add(events: readonly Event[]): void {
    for (const event of events) this.addEvent(event);
  }

  result(): CallTraceEntry[] {
    return this.calls;
  }

  private addEvent(event: Event): void {
    const points = this.chart.result(null).points;
    const before = points.length;
    this.chart.add([event]);
    const point = points.length > before ? points[points.length - 1] : undefined;
    if (point) this.addCall(event, point.tokens);
    if (!event.partial) this.previousTimestamp = event.timestamp;
    if (event.actions?.compaction) {
      if (isValidCompaction(event) && isBetterCheckpoint(event, this.checkpoint)) {
        this.checkpoint = event;
        const endSeq = event.actions.compaction.endSeq;
        this.tail = this.tail.filter((seq) => seq > endSeq);
      }
      return;
    }
    if (event.partial) return;
    for (const part of event.content?.parts ?? []) {
      const response = part.functionResponse;
      const use = response ? this.pending.get(response.id) : undefined;
      if (response && use) {
        use.resultSeq = event.seq;
        use.result = clippedJson(response.response);
        this.pending.delete(response.id);
      }
    }
    this.tail.push(event.seq);
  }

  private addCall(event: Event, estimatedTokens: number): void {
    const toolCalls: CallToolUse[] = [];
    for (const part of event.content?.parts ?? []) {
      const call = part.functionCall;
      if (!call) continue;
      const use: CallToolUse = { id: call.id, name: call.name, args: clippedJson(call.args) };
      toolCalls.push(use);
      this.pending.set(call.id, use);
    }
    const usage = usageOf(event.usageMetadata);
    this.calls.push({
      call: this.calls.length + 1,
      seq: event.seq,
      invocationId: event.invocationId,
      author: event.author,
      request: {
        summarySeq: this.checkpoint?.seq ?? null,
        fromSeq: this.tail[0] ?? null,
        toSeq: this.tail[this.tail.length - 1] ?? null,
        eventCount: this.tail.length + (this.checkpoint ? 1 : 0),
        estimatedTokens,
      },
      answer: toTimelineEvent(event),
      ...(event.finishReason !== undefined && { finishReason: event.finishReason }),
      ...(event.errorMessage !== undefined && { errorMessage: event.errorMessage }),
      ...(usage && { usage }),
      timestamp: event.timestamp,
      seconds:
        this.previousTimestamp === undefined
          ? null
          : Math.max(0, event.timestamp - this.previousTimestamp),
      toolCalls,
    });
  }
}

/** Whether a stored event between a call's request bounds is one of its request's events. */
export function isRequestEvent(event: Event): boolean {
  return !event.partial && !event.actions?.compaction;
}
