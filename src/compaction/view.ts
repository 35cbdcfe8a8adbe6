// CONTRACT STUB — implemented by the core-logic work. Signatures are fixed; bodies are not.
import type { CompactionEvent, Content, Event } from '../events/types.js';

/** Marks the summary when it reaches the model as the first user-role content. */
export const SUMMARY_PREFIX = 'Summary of the conversation so far:\n';

export interface ViewWarning {
  kind: 'orphan_response_dropped' | 'dangling_call_answered' | 'tool_output_truncated';
  seq: number;
  callId?: string;
  message: string;
}

export interface ActiveView {
  checkpoint?: CompactionEvent;
  /** The tail events in `seq` order (what follows the checkpoint). */
  events: Event[];
  /** Provider-ready contents: summary first (user role), roles merged, orphans repaired. */
  contents: Content[];
  warnings: ViewWarning[];
}

export interface AssembleViewOptions {
  checkpoint?: CompactionEvent;
  tail: Event[];
  /**
   * Calls of the last model event may be pending (tools about to run): keep them as they are.
   * Default true. Other calls without a response get a synthetic error response in the view.
   */
  allowPendingCalls?: boolean;
}

/** A compaction event whose range is well formed (`startSeq <= endSeq < seq`). */
export function isValidCompaction(event: Event): event is CompactionEvent {
  throw new Error('not implemented');
}

/** The valid compaction with the largest `endSeq`; ties: the later `seq`. */
export function selectCheckpoint(events: Event[]): CompactionEvent | undefined {
  throw new Error('not implemented');
}

/** The view from a checkpoint + tail (what stores load in O(tail)). */
export function assembleView(options: AssembleViewOptions): ActiveView {
  throw new Error('not implemented');
}

/** The view from a whole event list (any order; sorted by `seq`). */
export function activeView(options: { events: Event[]; allowPendingCalls?: boolean }): ActiveView {
  throw new Error('not implemented');
}
