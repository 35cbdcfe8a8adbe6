/** Writes an imported transcript into a store: a new session holding every event in order. */
import type { Event, SessionKey } from '../events/types.js';
import type { ImportResult, Repair } from '../importers/types.js';
import type { SessionService } from '../sessions/session-service.js';

/** Session state key of the transcript's system instruction (kept out of the events). */
export const INSTRUCTION_STATE_KEY = 'orrery:instruction';
/** Session state key describing where an imported session came from. */
export const IMPORT_STATE_KEY = 'orrery:import';

export function importedState(result: ImportResult, file: string): Record<string, unknown> {
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

/**
 * Appends events in order; compaction events (ADK imports) go through `appendCompaction`. An
 * imported compaction's range counts positions in `result.events` (1-based): it is moved to the
 * seqs the store gave those events, so it summarizes the same events whatever the store numbers.
 */
export async function appendImported(options: {
  service: SessionService;
  key: SessionKey;
  result: ImportResult;
  signal?: AbortSignal;
  onEvent?: (event: Event, index: number) => void;
}): Promise<void> {
  const { service, key, signal } = options;
  const storedSeqs: number[] = [];
  let index = 0;
  for (const event of options.result.events) {
    let stored: Event;
    const compaction = event.actions.compaction;
    if (compaction) {
      const view = await service.loadView({ ...key, signal });
      stored = await service.appendCompaction({
        ...key,
        event: {
          ...event,
          actions: {
            ...event.actions,
            compaction: {
              ...compaction,
              startSeq: storedSeqs[compaction.startSeq - 1] ?? compaction.startSeq,
              endSeq: storedSeqs[compaction.endSeq - 1] ?? compaction.endSeq,
            },
          },
        },
        expectedCheckpointSeq: view.checkpoint?.seq ?? null,
        signal,
      });
    } else {
      stored = await service.appendEvent({ ...key, event, signal });
    }
    storedSeqs.push(stored.seq);
    options.onEvent?.(stored, index++);
  }
}

/** "5 call ids renamed, 2 results paired by position": one line of counts by kind. */
export function summarizeRepairs(repairs: Repair[]): string {
  if (repairs.length === 0) return 'nothing to repair';
  const labels: Record<Repair['kind'], string> = {
    call_id_assigned: 'call ids assigned',
    call_id_renamed: 'reused call ids renamed',
    result_paired_by_position: 'results paired by position',
    call_synthesized: 'calls synthesized for orphan results',
    call_without_result: 'calls without a result (kept)',
    system_message_moved: 'system messages moved to the instruction',
    records_merged: 'streamed records merged',
    timestamp_adjusted: 'timestamp adjustments',
    compaction_range_renumbered: 'compaction ranges renumbered',
  };
  const counts = new Map<Repair['kind'], number>();
  for (const repair of repairs) counts.set(repair.kind, (counts.get(repair.kind) ?? 0) + 1);
  return [...counts].map(([kind, count]) => `${count} ${labels[kind]}`).join(', ');
}
