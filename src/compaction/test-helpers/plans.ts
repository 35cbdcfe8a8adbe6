/** Shared by the trigger tests: a plan made from a history, checked, and applied. */
import type { Event } from '../../events/types.js';
import type { HistoryBuilder } from '../../testing/event-builders.js';
import { type PlanCompactionOptions, planCompaction } from '../triggers.js';
import type { CompactionPlan } from '../types.js';
import { activeView, selectCheckpoint } from '../view.js';

/** Appends the compaction a plan describes, as the Compactor would. */
export function apply(
  history: HistoryBuilder,
  plan: CompactionPlan,
  text: string,
  tokensAfter = 0,
) {
  const { startSeq, endSeq, trigger } = plan;
  return history.compaction({ startSeq, endSeq, text, trigger, tokensAfter });
}

export function plan(
  history: HistoryBuilder,
  options: Omit<PlanCompactionOptions, 'tail' | 'checkpoint'>,
) {
  const checkpoint = selectCheckpoint(history.events);
  const view = activeView({ events: history.events });
  return planCompaction({ ...options, checkpoint, tail: view.events });
}

export function expectPlan(decision: ReturnType<typeof planCompaction>): CompactionPlan {
  if (decision.kind !== 'compact') throw new Error(`expected a plan, got skip ${decision.reason}`);
  return decision;
}

export const seqs = (events: Event[]) => events.map((event) => event.seq);
