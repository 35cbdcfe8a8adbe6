/**
 * The store's own append rules, applied by the importers: an event a store would refuse is an
 * `ImportError` naming the file's line or message it was made from, raised before anything is
 * written, never a store error without a position.
 */
import { InvalidEventError } from '../events/errors.js';
import type { NewEvent } from '../events/types.js';
import { assertCompactionFits, assertValidNewEvent } from '../sessions/store-helpers.js';
import { ImportError } from './errors.js';

/** Where an event came from: `line 12`, `lines 3-5`, `messages[4]`, `events[7]`. */
export type SourceLocation = string;

/** Latest epoch seconds a `Date` holds (year 275760): later "times" are not times. */
export const MAX_EPOCH_SECONDS = 8.64e12;

const LONG_MESSAGE = 300;

/** `{ line }` for a JSONL location, `{ path }` otherwise. */
export function splitLocation(location: SourceLocation): { line?: number; path?: string } {
  const match = /^lines? (\d+)(?:-\d+)?(?:, )?(.*)$/.exec(location);
  if (!match) return { path: location };
  return { line: Number(match[1]), path: match[2] === '' ? undefined : match[2] };
}

/**
 * Checks each event as `appendEvent` (or, for a compaction, `appendCompaction` at its position)
 * would; `locate(index)` names the source of event `index`.
 */
export function assertStorableEvents(
  events: readonly NewEvent[],
  options: {
    format?: string;
    locate: (index: number) => SourceLocation;
    /** Session position (1-based) of `events[0]`, when the list is part of a stream. */
    firstPosition?: number;
  },
): void {
  const first = options.firstPosition ?? 1;
  events.forEach((event, index) => {
    const kind = event.actions?.compaction === undefined ? 'event' : 'compaction';
    try {
      assertValidNewEvent(event, { kind });
      if (kind === 'compaction') assertCompactionFits(event, first + index);
    } catch (error) {
      if (!InvalidEventError.isInstance(error)) throw error;
      throw new ImportError({
        message: `the store would refuse the event made from it: ${shorten(error.message)}`,
        ...splitLocation(options.locate(index)),
        format: options.format,
        cause: error,
      });
    }
  });
}

/** A path 500 levels deep is not worth reading whole: its two ends are. */
function shorten(message: string): string {
  if (message.length <= LONG_MESSAGE) return message;
  const half = LONG_MESSAGE / 2;
  return `${message.slice(0, half)}...${message.slice(-half)}`;
}
