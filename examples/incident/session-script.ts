import { createRandom } from './random.js';
import { investigate } from './session-investigation.js';
import { resolve } from './session-resolution.js';
import { ToolOutputs } from './tool-outputs.js';
import { TranscriptWriter } from './transcript-writer.js';

/**
 * The whole incident session as JSONL lines. Deterministic: one seeded generator whose draws
 * happen in script order (the pod names first), and a fixed clock.
 */
export function incidentSessionLines(): string[] {
  const random = createRandom(20250611);
  const transcript = new TranscriptWriter(random);
  const tools = new ToolOutputs(random);
  const context = { random, transcript, tools };
  investigate(context);
  resolve(context);
  return transcript.lines;
}
