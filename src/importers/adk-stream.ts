/**
 * An ADK session file (an exported session object, orrery's own `sessions export` included, or a
 * top-level array of events) imported one event at a time, in two passes like JSONL: the events
 * array is streamed (`json-object-splitter.ts`), the session's other members are held (each up
 * to `maxRecordBytes`). Memory holds one event, the open calls and 25 bytes per event read
 * (numbers and times for compaction ranges), never the file. See docs/architecture.md#edge.
 */
import { AdkEventReader, type AdkSessionImport, readSessionFields } from '../events/adk-json.js';
import { invalid } from '../events/schema.js';
import type { NewEvent } from '../events/types.js';
import { asImportError, CompactionRenumbering } from './adk.js';
import { readFileChunks } from './file-source.js';
import { splitJsonArray } from './json-array-splitter.js';
import { parseJsonRecord } from './json-input.js';
import { splitJsonObject } from './json-object-splitter.js';
import { assertStorableEvents } from './store-rules.js';
import { StatsCounter, type StreamedImport } from './streamed-import.js';
import { invalidUtf8Repair, MAX_INPUT_DEPTH } from './text-input.js';
import type { Repair } from './types.js';

const FORMAT = 'adk';

export interface AdkFileOptions {
  path: string;
  fileName?: string;
  maxRecordBytes?: number;
  signal?: AbortSignal;
  /** The file's first non-blank character: `[` (events) or `{` (a session object). */
  shape: '[' | '{';
}

interface RawEvent {
  index: number;
  value: unknown;
  invalidUtf8: boolean;
}

function parse(bytes: Uint8Array, path: string, offset: number, depth: number) {
  return parseJsonRecord({
    bytes,
    path,
    offset,
    format: FORMAT,
    maxDepth: MAX_INPUT_DEPTH - depth,
  });
}

/**
 * The raw events of the file, in order; the session's other members go into `fields` as they
 * are read (an object file may put them before or after its events).
 */
async function* rawEvents(
  options: AdkFileOptions,
  fields: Record<string, unknown>,
): AsyncGenerator<RawEvent> {
  const common = {
    source: readFileChunks({ path: options.path, signal: options.signal }),
    maxRecordBytes: options.maxRecordBytes,
    fileName: options.fileName ?? options.path,
    format: FORMAT,
    signal: options.signal,
  };
  if (options.shape === '[') {
    for await (const element of splitJsonArray(common)) {
      const parsed = parse(element.bytes, `events[${element.index}]`, element.offset, 1);
      yield { index: element.index, ...parsed };
    }
    return;
  }
  for await (const part of splitJsonObject({ ...common, streamKeys: ['events'] })) {
    if (part.kind === 'element') {
      const parsed = parse(part.bytes, `events[${part.index}]`, part.offset, 2);
      yield { index: part.index, ...parsed };
    } else if (part.kind === 'member') {
      const parsed = parse(part.value, part.key, part.offset, 1);
      if (part.key === 'events')
        throw asImportError(invalid('events', 'expected an array of events', parsed.value));
      fields[part.key] = parsed.value;
    }
  }
}

/** Each event as `importAdk` makes it, checked by the store's rules when `check`. */
async function* importedEvents(
  options: AdkFileOptions,
  fields: Record<string, unknown>,
  check: boolean,
  renumber: CompactionRenumbering,
  utf8: Repair[],
): AsyncGenerator<NewEvent> {
  const reader = new AdkEventReader();
  for await (const raw of rawEvents(options, fields)) {
    if (raw.invalidUtf8) {
      utf8.push(invalidUtf8Repair(`events[${raw.index}]`));
    }
    let event: NewEvent;
    try {
      event = renumber.add(reader.add(raw.value, raw.index), raw.index);
    } catch (error) {
      throw asImportError(error);
    }
    if (check) {
      // A compaction is checked at its position, as `importTranscripts` checks the whole list.
      assertStorableEvents([event], {
        format: FORMAT,
        locate: () => `events[${raw.index}]`,
        firstPosition: raw.index + 1,
      });
    }
    yield event;
  }
}

/** The first pass; the result's `events()` runs the second. */
export async function streamAdkFile(options: AdkFileOptions): Promise<StreamedImport> {
  const fields: Record<string, unknown> = {};
  const counter = new StatsCounter(false);
  const renumber = new CompactionRenumbering();
  const utf8: Repair[] = [];
  for await (const event of importedEvents(options, fields, true, renumber, utf8)) {
    counter.add(event);
  }
  const session: AdkSessionImport = { state: {}, events: [] };
  try {
    readSessionFields(fields, session);
  } catch (error) {
    throw asImportError(error);
  }
  const meta: StreamedImport['meta'] = { format: FORMAT, state: session.state };
  if (session.sessionId) meta.sourceId = session.sessionId;
  return {
    meta,
    repairs: [...utf8, ...renumber.repairs],
    stats: counter.stats,
    source: 'file',
    events: (eventOptions = {}) =>
      importedEvents(
        { ...options, signal: eventOptions.signal ?? options.signal },
        {},
        false,
        new CompactionRenumbering(),
        [],
      ),
  };
}
