/**
 * ADK session JSON (ADK for Python's snake_case dumps, its camelCase API form, or orrery's own
 * export): delegates to `fromAdkSessionJson`, which validates every event and names the bad
 * field. Compaction events are kept (the CLI appends them through `appendCompaction`).
 */
import { fromAdkSessionJson } from '../events/adk-json.js';
import { InvalidEventError } from '../events/errors.js';
import type { NewEvent } from '../events/types.js';
import { ImportError } from './errors.js';
import type { ImportOptions, ImportResult } from './types.js';

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
  const events: NewEvent[] = session.events.map(({ seq: _seq, ...event }) => event);
  const result: ImportResult = {
    events,
    repairs: [],
    meta: { format: FORMAT, state: session.state },
  };
  if (session.sessionId) result.meta.sourceId = session.sessionId;
  return result;
}
