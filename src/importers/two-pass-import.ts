/**
 * The two passes of a streamed import read by the transcript builder (Claude Code JSONL, an
 * OpenAI chat array): the first pass's result with `events()` running the second, and the second
 * pass handing out the events each record made as soon as it made them, so memory holds one
 * record's events, never the file's. See docs/architecture.md#edge (importers).
 */
import type { NewEvent } from '../events/types.js';
import type { StatsCounter, StreamedImport } from './streamed-import.js';
import type { TimestampPlan } from './timestamp-plan.js';
import type { ImportResult, Repair } from './types.js';

/** A reader whose whole input the first pass has added. */
export interface FirstPassReader {
  finish(): Pick<ImportResult, 'meta' | 'repairs'>;
  timestampPlan(): TimestampPlan | undefined;
}

/**
 * Finishes the first pass: its meta, `repairs` (those found reading the file) then the reader's,
 * the counts; `events()` runs `secondPass` with the first pass's timestamp plan and the caller's
 * signal, else the import's own.
 */
export function finishFirstPass(options: {
  reader: FirstPassReader;
  repairs: Repair[];
  counter: StatsCounter;
  signal?: AbortSignal;
  secondPass(pass: { plan: TimestampPlan; signal?: AbortSignal }): AsyncIterable<NewEvent>;
}): StreamedImport {
  const result = options.reader.finish();
  const plan = options.reader.timestampPlan() as TimestampPlan;
  return {
    meta: result.meta,
    repairs: [...options.repairs, ...result.repairs],
    stats: options.counter.stats,
    source: 'file',
    events: (eventOptions = {}) =>
      options.secondPass({ plan, signal: eventOptions.signal ?? options.signal }),
  };
}

/**
 * The second pass: each record of `records` added to the reader `start` makes (handing it the
 * sink its events go to), the events a record made yielded before the next record is read.
 */
export async function* secondPassEvents<Record>(options: {
  records: AsyncIterable<Record>;
  start(sink: (event: NewEvent) => void): { add(record: Record): void; finish(): unknown };
}): AsyncGenerator<NewEvent> {
  let ready: NewEvent[] = [];
  const reader = options.start((event) => ready.push(event));
  for await (const record of options.records) {
    reader.add(record);
    if (ready.length > 0) {
      const batch = ready;
      ready = [];
      yield* batch;
    }
  }
  reader.finish();
  yield* ready;
}
