/** Writes an imported transcript into a store: a new session holding every event in order. */
import type { Event, NewEvent, SessionKey } from '../events/types.js';
import { importedState } from '../importers/imported-state.js';
import type { StreamedImport } from '../importers/streamed-import.js';
import type { Repair } from '../importers/types.js';
import type { SessionService } from '../sessions/session-service.js';

/**
 * Appends events in order; compaction events (ADK imports) go through `appendCompaction`. An
 * imported compaction's range counts positions in `events` (1-based): it is moved to the
 * seqs the store gave those events, so it summarizes the same events whatever the store numbers.
 */
async function appendEvents(options: {
  service: SessionService;
  key: SessionKey;
  events: Iterable<NewEvent> | AsyncIterable<NewEvent>;
  signal?: AbortSignal;
  onEvent?: (event: Event, index: number) => void;
}): Promise<void> {
  const { service, key, signal } = options;
  // One number per event, for compaction ranges (ADK imports): the events themselves are not kept.
  const storedSeqs: number[] = [];
  let index = 0;
  for await (const event of options.events) {
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

/** Events handed to the store so far, of how many. */
export type ImportProgress = (written: number, total: number) => void;

/** How often `onProgress` is called, in events. */
export const PROGRESS_EVERY = 1000;

/**
 * Stores one imported transcript as a new session, all or nothing: through the store's
 * `importSession` (one transaction) when it has one; otherwise event by event, the session
 * deleted again if any append fails (a process killed part-way can then leave a partial one).
 * The events flow from the file to the store as it pulls them (docs/architecture.md#edge), none
 * held; the state (meta, repair count) was known first.
 */
export async function storeStreamed(options: {
  service: SessionService;
  key: SessionKey;
  imported: StreamedImport;
  file: string;
  signal?: AbortSignal;
  onProgress?: ImportProgress;
}): Promise<void> {
  const { service, key, imported, signal, onProgress } = options;
  const state = importedState(imported, options.file);
  const total = imported.stats.events;
  if (service.importSession) {
    // Positions are seqs here (the session is new), so compaction ranges need no renumbering.
    await service.importSession({
      ...key,
      state,
      events: counted(imported.events({ signal }), total, onProgress),
      signal,
    });
    return;
  }
  await service.createSession({ ...key, state, signal });
  try {
    await appendEvents({
      service,
      key,
      events: imported.events({ signal }),
      signal,
      onEvent: (_event, index) => {
        if ((index + 1) % PROGRESS_EVERY === 0 || index + 1 === total)
          onProgress?.(index + 1, total);
      },
    });
  } catch (error) {
    await service.deleteSession(key).catch(() => undefined);
    throw error;
  }
}

/** The events, reporting every `PROGRESS_EVERY` handed out (the store pulls them as it writes). */
async function* counted(
  events: AsyncIterable<NewEvent>,
  total: number,
  onProgress: ImportProgress | undefined,
): AsyncGenerator<NewEvent> {
  let written = 0;
  for await (const event of events) {
    yield event;
    written++;
    if (written % PROGRESS_EVERY === 0 || written === total) onProgress?.(written, total);
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
    invalid_utf8_replaced: 'lines with invalid UTF-8 replaced (U+FFFD)',
  };
  const counts = new Map<Repair['kind'], number>();
  for (const repair of repairs) counts.set(repair.kind, (counts.get(repair.kind) ?? 0) + 1);
  return [...counts].map(([kind, count]) => `${count} ${labels[kind]}`).join(', ');
}
