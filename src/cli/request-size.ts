/**
 * The size of a session's next request, counted one way for `view` and `compact` (and labelled
 * wherever a second figure appears). Two figures exist for a reason:
 *
 * - `tokens`: orrery's estimate of the request it would send: the view's contents plus the
 *   session's system instruction (an imported transcript's tool declarations are not stored).
 * - `trigger`: what the token trigger compares with the threshold: the latest prompt size a
 *   model *reported* plus an estimate of what came after. For an imported session the report
 *   counts everything the recording harness sent (its own system prompt and tools), so it can be
 *   far larger than `tokens`.
 */
import { estimateContentListTokens } from '../compaction/token-estimate.js';
import { estimateNextRequest, type RequestEstimate } from '../compaction/triggers.js';
import type { ActiveView } from '../compaction/view.js';
import type { SessionKey } from '../events/types.js';
import { IMPORT_STATE_KEY, INSTRUCTION_STATE_KEY } from '../importers/imported-state.js';
import { estimateRequestOverhead } from '../runtime/compaction/context-guard.js';
import { loadActiveView } from '../runtime/view/active-view.js';
import { OrphanCallRestorer } from '../runtime/view/restore-calls.js';
import type { SessionService, StoredView } from '../sessions/session-service.js';
import { plural } from '../util/plural.js';

export interface RequestSize {
  /** Estimated tokens of the request: contents + system instruction. */
  tokens: number;
  /** Of which the system instruction. */
  overheadTokens: number;
  /** Imported from a transcript (`orrery import`): a reported prompt size is the recorder's. */
  imported: boolean;
  /** The token trigger's figure and its basis (see the file comment). */
  trigger: RequestEstimate & {
    /** `reported_usage`: the prompt tokens the model reported at `usageSeq`. */
    reportedTokens?: number;
    /** `reported_usage`: events after `usageSeq` whose tokens were estimated. */
    eventsSince?: number;
  };
}

export interface MeasuredRequest {
  stored: StoredView;
  /** The contents as the runtime would send them (orphan calls restored from storage). */
  view: ActiveView;
  systemInstruction?: string;
  size: RequestSize;
}

/** The session's system instruction, as an import records it in the state. */
export function systemInstructionOf(state: Record<string, unknown>): string | undefined {
  const instruction = state[INSTRUCTION_STATE_KEY];
  return typeof instruction === 'string' ? instruction : undefined;
}

/** Reads the view and measures the request it makes. */
export async function measureNextRequest(options: {
  service: SessionService;
  key: SessionKey;
  state: Record<string, unknown>;
  signal?: AbortSignal;
}): Promise<MeasuredRequest> {
  const { service, key, signal } = options;
  const stored = await loadActiveView({ sessionService: service, ...key, signal });
  const view = await new OrphanCallRestorer({ sessionService: service }).assemble({
    key,
    stored,
    signal,
  });
  const systemInstruction = systemInstructionOf(options.state);
  const overheadTokens = estimateRequestOverhead({ systemInstruction }).tokens;
  const estimate = estimateNextRequest({
    checkpoint: stored.checkpoint,
    tail: stored.tail,
    overheadTokens,
  });
  const trigger: RequestSize['trigger'] = { ...estimate };
  if (estimate.usageSeq !== undefined) {
    const anchor = stored.tail.findIndex((event) => event.seq === estimate.usageSeq);
    trigger.reportedTokens = stored.tail[anchor]?.usageMetadata?.promptTokenCount;
    trigger.eventsSince = stored.tail.length - anchor - 1;
  }
  return {
    stored,
    view,
    systemInstruction,
    size: {
      tokens: overheadTokens + estimateContentListTokens(view.contents),
      overheadTokens,
      imported: options.state[IMPORT_STATE_KEY] !== undefined,
      trigger,
    },
  };
}

/**
 * Why the trigger's figure differs from the estimate, or `undefined` when it is the estimate:
 * "the token trigger counts 201,240: the model reported 200,100 prompt tokens at seq 296 ...".
 */
export function explainTrigger(size: RequestSize): string | undefined {
  const { trigger } = size;
  if (trigger.basis !== 'reported_usage') return undefined;
  const reported = (trigger.reportedTokens ?? 0).toLocaleString('en-US');
  const eventsSince = trigger.eventsSince ?? 0;
  const since = eventsSince > 0 ? ` and the ${plural(eventsSince, 'event')} after it` : '';
  // Only an imported transcript was recorded by a harness orrery never saw; a live session's
  // report counts the agent's own instruction and tool declarations.
  const whatElse = size.imported
    ? "the recording harness's own instruction and tools included"
    : "the agent's instruction and tool declarations included";
  return `the token trigger counts ${trigger.tokens.toLocaleString('en-US')}: the model reported ${reported} prompt tokens at seq ${trigger.usageSeq} (all it was sent, ${whatElse}), + an estimate of its answer${since}`;
}
