/**
 * `orrery-runtime/compaction`: the pure core's building blocks, for tools that plan, inspect or
 * test compaction themselves (the view, triggers, the safe split, estimates, elision, branch
 * views) and for authors of their own summarizer (the prompt template, event rendering). An app
 * that runs agents needs none of it: the root entry point's Runner and Compactor use it.
 */

export {
  branchOf,
  eventsOnBranch,
  isBranchResult,
  isOnBranchPath,
  isVisibleOnBranch,
  scopeView,
} from '../compaction/branch-view.js';
export { resolveSummarizerModel, validateEventsCompactionConfig } from '../compaction/config.js';
export {
  applyElision,
  ELISION_DEFAULTS,
  type ElisionEvent,
  isValidElision,
  latestElision,
} from '../compaction/elision.js';
export {
  type ExpandedView,
  expandView,
  isNonRollingCompaction,
} from '../compaction/expanded-view.js';
export {
  findSafeSplit,
  type Obligation,
  type ObligationKind,
  openObligations,
  type SafeSplit,
  type SafeSplitOptions,
} from '../compaction/safe-split.js';
export {
  estimateContentBytes,
  estimateContentListBytes,
  estimateContentListTokens,
  estimateContentTokens,
  estimateEventTokens,
} from '../compaction/token-estimate.js';
export {
  countCompletedInvocations,
  type EstimateNextRequestOptions,
  estimateNextRequest,
  type PlanCompactionOptions,
  planCompaction,
  planTieredCompaction,
  type RequestEstimate,
} from '../compaction/triggers.js';
export type {
  CompactionDecision,
  CompactionPlan,
  CompactionRequest,
  CompactionSkip,
  DeadCall,
  ElisionPlan,
  RetentionOverride,
  TieredCompactionDecision,
  ViewScope,
} from '../compaction/types.js';
export {
  type ActiveView,
  type AssembleViewOptions,
  activeView,
  assembleView,
  isBetterCheckpoint,
  isValidCompaction,
  type ViewWarning,
} from '../compaction/view.js';
export { type ChunkProgress, SUMMARY_CHUNK_EVENTS } from '../runtime/compaction/chunked-summary.js';
export {
  estimateRequestOverhead,
  type RequestOverhead,
} from '../runtime/compaction/context-guard.js';
export type { CoolDownDetails } from '../runtime/compaction/summarize-plan.js';
export {
  SummarizerCoolDown,
  type SummarizerCoolDownOptions,
  type SummarizerCoolDownReport,
  type SummarizerPermit,
} from '../runtime/compaction/summarizer-cool-down.js';
export {
  CONVERSATION_HISTORY_PLACEHOLDER,
  DEFAULT_SUMMARY_PROMPT,
  fillPromptTemplate,
  PREVIOUS_SUMMARY_PLACEHOLDER,
} from '../summarizers/default-prompt.js';
export { DEFAULT_DIGEST_MAX_CHARS } from '../summarizers/digest-summarizer.js';
export {
  DEFAULT_MAX_INPUT_TOKENS,
  DEFAULT_SUMMARIZER_MAX_RETRIES,
  DEFAULT_SUMMARIZER_TIMEOUT_MS,
} from '../summarizers/llm-event-summarizer.js';
export { type RenderOptions, renderEvent, renderEvents } from '../summarizers/render.js';
