/** An import with no event would be an empty session or replay: almost surely the wrong file. */
import { plural } from '../util/plural.js';
import { ImportError } from './errors.js';
import type { ImportMeta } from './types.js';

/** Throws an `ImportError` naming the file (and run) of the first import with no event. */
export function requireEvents(
  results: ReadonlyArray<{
    meta: ImportMeta;
    events?: readonly unknown[] | unknown;
    stats?: { events: number };
  }>,
  fileName: string,
): void {
  for (const result of results) {
    const count = result.stats?.events ?? (Array.isArray(result.events) ? result.events.length : 0);
    if (count > 0) continue;
    const run = result.meta.run === undefined ? '' : ` run ${result.meta.run}`;
    const skipped = result.meta.skipped
      ? ` (${plural(result.meta.skipped, 'record')} that ${result.meta.skipped === 1 ? 'is not a message was' : 'are not messages were'} skipped)`
      : '';
    throw new ImportError({
      message: `${fileName}${run} holds no conversation to import${skipped}`,
      format: result.meta.format,
    });
  }
}
