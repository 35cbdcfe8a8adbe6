import type { Random } from './random.js';
import type { ToolOutputs } from './tool-outputs.js';
import type { TranscriptWriter } from './transcript-writer.js';

/** What the scenario parts share: one generator, so their draws interleave in script order. */
export interface SessionContext {
  random: Random;
  transcript: TranscriptWriter;
  tools: ToolOutputs;
}
