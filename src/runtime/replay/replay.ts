import { IMPORT_REPAIR_KEY } from '../../events/metadata-keys.js';
import type { NewEvent } from '../../events/types.js';
import { PartTokens } from '../compaction/part-tokens.js';
import { replayWith } from './replay-run.js';

export { hasUnpaired } from '../view/unpaired-calls.js';
export type {
  ReplayBranch,
  ReplayCompaction,
  ReplayElision,
  ReplayProgress,
  ReplayReport,
  ReplayRequest,
  ReplayTranscriptOptions,
} from './types.js';

import type { ReplayReport, ReplayTranscriptOptions } from './types.js';

/** A model-authored event stands for one model request; synthesized repair calls do not. */
export function isRecordedModelCall(event: NewEvent): boolean {
  return (
    event.author !== 'user' &&
    event.content?.role === 'model' &&
    event.customMetadata?.[IMPORT_REPAIR_KEY] === undefined
  );
}

/** Replays `events` through compaction and reports each request's size, orphans and losslessness. */
export function replayTranscript(options: ReplayTranscriptOptions): Promise<ReplayReport> {
  return replayWith({
    ...options,
    defaultIsModelCall: isRecordedModelCall,
    estimates: new PartTokens(),
  });
}
