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
    if (InvalidEventError.isInstance(error)) {
      throw new ImportError({ message: error.message, format: FORMAT, cause: error });
    }
    throw error;
  }
  const repairs: Repair[] = [];
  const events = renumberCompactions(session.events, repairs);
  const result: ImportResult = {
    events,
    repairs,
    meta: { format: FORMAT, state: session.state },
  };
  if (session.sessionId) result.meta.sourceId = session.sessionId;
  return result;
}

/**
 * The events without their file numbers, compaction ranges moved to positions (1-based): a range
 * starts at the first event numbered at or after its start and ends at the last numbered at or
 * before its end. Events without a number follow the previous one (as `fromAdkSessionJson` counts).
 */
function renumberCompactions(imported: ImportedEvent[], repairs: Repair[]): NewEvent[] {
  const numbers: number[] = [];
  let previous = 0;
  for (const event of imported) {
    previous = event.seq ?? previous + 1;
    numbers.push(previous);
  }
  return imported.map(({ seq: _seq, ...event }, index) => {
    const compaction = event.actions.compaction;
    if (!compaction) return event;
    const position = index + 1;
    const own = numbers[index] as number;
    if (compaction.endSeq >= own) {
      throw new ImportError({
        message: `the compaction ends at seq ${compaction.endSeq}, not before its own seq ${own}`,
        path: `events[${index}].actions.compaction`,
        format: FORMAT,
      });
    }
    const first = numbers.findIndex((number) => number >= compaction.startSeq);
    let last = -1;
    for (let candidate = 0; candidate < index; candidate++) {
      if ((numbers[candidate] as number) <= compaction.endSeq) last = candidate;
    }
    const startSeq = first + 1;
    const endSeq = last + 1;
    if (first === -1 || last === -1 || startSeq > endSeq || endSeq >= position) {
      throw new ImportError({
        message: `the compaction covers seq ${compaction.startSeq}-${compaction.endSeq}, but no earlier event in the file has a seq in that range`,
        path: `events[${index}].actions.compaction`,
        format: FORMAT,
      });
    }
    if (startSeq === compaction.startSeq && endSeq === compaction.endSeq) return event;
    repairs.push({
      kind: 'compaction_range_renumbered',
      message: `compaction range seq ${compaction.startSeq}-${compaction.endSeq} renumbered ${startSeq}-${endSeq}: the events it covers are stored at those positions`,
      location: `events[${index}]`,
    });
    return {
      ...event,
      actions: { ...event.actions, compaction: { ...compaction, startSeq, endSeq } },
    };
  });
}
