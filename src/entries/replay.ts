/**
 * `orrery-runtime/replay`: a recorded transcript replayed under a compaction config, with what
 * each request would have held and cost (the CLI's `orrery replay`, docs/cli.md).
 */

export {
  type ReplayCompaction,
  type ReplayElision,
  type ReplayProgress,
  type ReplayReport,
  type ReplayRequest,
  type ReplayTranscriptOptions,
  replayTranscript,
} from '../runtime/replay/replay.js';
export {
  type PricedModel,
  type ReplayCost,
  type ReplayCostFigures,
  type ReplayCostOptions,
  replayCost,
} from '../runtime/replay/replay-cost.js';
