/**
 * The session state an imported transcript is stored with (by `orrery import`) or replayed
 * under (`orrery replay`, the inspector's replay): the transcript's own state, its system
 * instruction (kept out of the events) and where it came from.
 */
import type { ImportResult } from './types.js';

/** Session state key of the transcript's system instruction (kept out of the events). */
export const INSTRUCTION_STATE_KEY = 'orrery:instruction';
/** Session state key describing where an imported session came from. */
export const IMPORT_STATE_KEY = 'orrery:import';

export function importedState(
  result: Pick<ImportResult, 'meta' | 'repairs'>,
  file: string,
): Record<string, unknown> {
  const state: Record<string, unknown> = { ...(result.meta.state ?? {}) };
  if (result.meta.systemInstruction !== undefined)
    state[INSTRUCTION_STATE_KEY] = result.meta.systemInstruction;
  const source: Record<string, unknown> = {
    file,
    format: result.meta.format,
    repairs: result.repairs.length,
  };
  if (result.meta.model) source.model = result.meta.model;
  if (result.meta.sourceId) source.sourceId = result.meta.sourceId;
  if (result.meta.run !== undefined) source.run = result.meta.run;
  state[IMPORT_STATE_KEY] = source;
  return state;
}
