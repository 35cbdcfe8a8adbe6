/**
 * ADK session JSON (ADK for Python's snake_case dumps, its camelCase API form, or orrery's own
 * export): delegates to `fromAdkSessionJson`, which validates every event and names the bad
 * field. Compaction events are kept (the CLI appends them through `appendCompaction`).
 *
 * The imported events are stored in a new session, numbered 1, 2, 3... in file order. The file's
 * own numbers (orrery's `seq`, when the export carried it) need not be those: an export may start
 * later, or have gaps (events left out, rows skipped as corrupt). Compaction ranges are therefore
 * renumbered to the positions of the events they covered, so they summarize the same events.
 */
import { fromAdkSessionJson, type ImportedEvent } from '../events/adk-json.js';
import { InvalidEventError } from '../events/errors.js';
import type { NewEvent } from '../events/types.js';
import { ImportError } from './errors.js';
import type { ImportOptions, ImportResult, Repair } from './types.js';

const FORMAT = 'adk';

export function importAdk(input: string | unknown, _options: ImportOptions = {}): ImportResult {
  let session: ReturnType<typeof fromAdkSessionJson>;
  try {
    session = fromAdkSessionJson(input);
  } catch (error) {
    throw asImportError(error);
  }
  const renumber = new CompactionRenumbering();
  const events = session.events.map((event, index) => renumber.add(event, index));
  const result: ImportResult = {
    events,
    repairs: renumber.repairs,
    meta: { format: FORMAT, state: session.state },
  };
  if (session.sessionId) result.meta.sourceId = session.sessionId;
  return result;
}

/** `fromAdkSessionJson`'s `InvalidEventError` as the `ImportError` every importer throws. */
export function asImportError(error: unknown): unknown {
  if (InvalidEventError.isInstance(error)) {
    return new ImportError({ message: error.message, format: FORMAT, cause: error });
  }
  return error;
}

/**
 * The events without their file numbers, compaction ranges moved to positions (1-based), one
 * event at a time: a range starts at the first event numbered at or after its start and ends at
 * the last numbered at or before its end. Events without a number follow the previous one (as
 * `fromAdkSessionJson` counts). Keeps one number an event (8 bytes), never the events.
 */
export class CompactionRenumbering {
  readonly repairs: Repair[] = [];
  private numbers = new Float64Array(1024);
  private count = 0;
  private previous = 0;

  add(imported: ImportedEvent, index: number): NewEvent {
    const { seq, ...event } = imported;
    this.previous = seq ?? this.previous + 1;
    const own = this.previous;
    if (this.count === this.numbers.length) {
      const grown = new Float64Array(this.count * 2);
      grown.set(this.numbers);
      this.numbers = grown;
    }
    this.numbers[this.count++] = own;
    const compaction = event.actions.compaction;
    if (!compaction) return event;
    const position = index + 1;
    if (compaction.endSeq >= own) {
      throw new ImportError({
        message: `the compaction ends at seq ${compaction.endSeq}, not before its own seq ${own}`,
        path: `events[${index}].actions.compaction`,
        format: FORMAT,
      });
    }
    // Numbers strictly increase (the reader refuses a seq that does not): binary searches.
    const first = this.firstAtLeast(compaction.startSeq, index);
    const last = this.firstAtLeast(compaction.endSeq + 1, index) - 1;
    const startSeq = first + 1;
    const endSeq = last + 1;
    if (first >= index || last === -1 || startSeq > endSeq || endSeq >= position) {
      throw new ImportError({
        message: `the compaction covers seq ${compaction.startSeq}-${compaction.endSeq}, but no earlier event in the file has a seq in that range`,
        path: `events[${index}].actions.compaction`,
        format: FORMAT,
      });
    }
    if (startSeq === compaction.startSeq && endSeq === compaction.endSeq) return event;
    this.repairs.push({
      kind: 'compaction_range_renumbered',
      message: `compaction range seq ${compaction.startSeq}-${compaction.endSeq} renumbered ${startSeq}-${endSeq}: the events it covers are stored at those positions`,
      location: `events[${index}]`,
    });
    return {
      ...event,
      actions: { ...event.actions, compaction: { ...compaction, startSeq, endSeq } },
    };
  }

  /** The first of the events before `end` numbered at least `number` (`end` when none is). */
  private firstAtLeast(number: number, end: number): number {
    let low = 0;
    let high = end;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.numbers[middle] as number) < number) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
