/**
 * A file holding one top-level JSON array, read one element at a time (`json-array-splitter`):
 * `sniffArrayFile` decides its format as `sniffDocument` would, in one pass; an array of OpenAI
 * chat messages, or of tau-bench runs (each with `traj`), imports in two passes like JSONL. A
 * run is one element, so memory holds the largest run (its messages, its events), never the
 * file. See docs/architecture.md#edge (importers).
 */
import { createHash } from 'node:crypto';
import type { NewEvent } from '../events/types.js';
import { ImportError } from './errors.js';
import { readFileChunks, readFileRange } from './file-source.js';
import { runError } from './import-transcript.js';
import { type ArrayElement, splitJsonArray } from './json-array-splitter.js';
import { isRecord, parseJsonRecord } from './json-input.js';
import { importOpenAiChatRun, OpenAiChatImport, trajRun } from './openai-chat.js';
import { isAiSdkMessages } from './sniff.js';
import { StatsCounter, type StreamedImport } from './streamed-import.js';
import { invalidUtf8Repair, MAX_INPUT_DEPTH } from './text-input.js';
import type { TimestampPlan } from './timestamp-plan.js';
import { finishFirstPass, secondPassEvents } from './two-pass-import.js';
import type { ImportFormat, MultiRunImportOptions, Repair } from './types.js';

const FORMAT = 'openai-chat';

export interface ArrayFileOptions extends MultiRunImportOptions {
  path: string;
  fileName?: string;
  maxRecordBytes?: number;
  signal?: AbortSignal;
}

interface ParsedElement {
  index: number;
  /** Where the element starts in the file, and its bytes (held until the next element). */
  offset: number;
  bytes: Uint8Array;
  value: unknown;
  invalidUtf8: boolean;
}

/** The array's elements, parsed one at a time; a broken one names its index and offset. */
async function* elements(
  options: ArrayFileOptions,
  format: string | undefined,
): AsyncGenerator<ParsedElement> {
  const fileName = options.fileName ?? options.path;
  for await (const element of splitJsonArray({
    source: readFileChunks({ path: options.path, signal: options.signal }),
    maxRecordBytes: options.maxRecordBytes,
    fileName,
    format,
    signal: options.signal,
  })) {
    yield parseElement(element, format);
  }
}

function parseElement(element: ArrayElement, format: string | undefined): ParsedElement {
  // One level less than a whole document may nest: the array itself is one.
  const parsed = parseJsonRecord({
    bytes: element.bytes,
    path: `[${element.index}]`,
    offset: element.offset,
    format,
    maxDepth: MAX_INPUT_DEPTH - 1,
  });
  return { ...element, ...parsed };
}

/** The format `sniffDocument` would give the whole array, from one streamed pass. */
export async function sniffArrayFile(options: ArrayFileOptions): Promise<ImportFormat | undefined> {
  let count = 0;
  let allRuns = true;
  let allRoles = true;
  let anyInvocation = false;
  let anyAiSdk = false;
  for await (const { value } of elements(options, undefined)) {
    count++;
    allRuns &&= isRecord(value) && 'traj' in value;
    allRoles &&= isRecord(value) && 'role' in value;
    anyInvocation ||= isRecord(value) && ('invocationId' in value || 'invocation_id' in value);
    anyAiSdk ||= isAiSdkMessages([value]);
  }
  if (count > 0 && allRuns) return 'openai-chat';
  if (anyInvocation) return 'adk';
  if (anyAiSdk) return 'ai-sdk';
  return allRoles ? 'openai-chat' : undefined;
}

/**
 * The streamed imports of an OpenAI chat array file; `undefined` when its first element is a run
 * and a later one is not (the whole-document reader then decides, as before).
 */
export async function openAiChatArrayFile(
  options: ArrayFileOptions,
): Promise<StreamedImport[] | undefined> {
  let first: ParsedElement | undefined;
  for await (const element of elements(options, FORMAT)) {
    first = element;
    break;
  }
  if (isRecord(first?.value) && 'traj' in first.value) return runsFile(options);
  if (options.run !== undefined && options.run !== 0) {
    throw runError(options.run, 1, options.fileName ?? options.path);
  }
  return [await messagesFile(options)];
}

/** An array of messages: one run, two passes. */
async function messagesFile(options: ArrayFileOptions): Promise<StreamedImport> {
  const counter = new StatsCounter(true);
  const repairs: Repair[] = [];
  const run = { path: '', meta: {} };
  const reader = new OpenAiChatImport({
    run,
    options: { ...options, stream: { sink: (event) => counter.add(event), check: true } },
  });
  for await (const element of elements(options, FORMAT)) {
    if (element.invalidUtf8) repairs.push(invalidUtf8Repair(`[${element.index}]`));
    reader.addMessage(element.value, element.index, false);
  }
  return finishFirstPass({
    reader,
    repairs,
    counter,
    signal: options.signal,
    secondPass: ({ plan, signal }) => messagesSecondPass({ ...options, signal }, plan),
  });
}

function messagesSecondPass(
  options: ArrayFileOptions,
  plan: TimestampPlan,
): AsyncGenerator<NewEvent> {
  return secondPassEvents({
    records: elements(options, FORMAT),
    start: (sink) => {
      const reader = new OpenAiChatImport({
        run: { path: '', meta: {} },
        options: { ...options, stream: { sink, plan } },
      });
      return {
        add: (element) => reader.addMessage(element.value, element.index, false),
        finish: () => reader.finish(),
      };
    },
  });
}

/**
 * An array of runs (tau-bench): each run is one element, imported whole (it is bounded by the
 * largest record); the first pass keeps each run's meta, repairs and counts, and where its
 * element lies in the file (`RunPlace`), so storing a run reads its own bytes only: the whole
 * file is read once more over all the runs, not once per run (docs/architecture.md#edge).
 */
async function runsFile(options: ArrayFileOptions): Promise<StreamedImport[] | undefined> {
  const summaries: StreamedImport[] = [];
  let count = 0;
  for await (const element of elements(options, FORMAT)) {
    count++;
    if (!isRecord(element.value) || !('traj' in element.value)) return undefined;
    const run = trajRun(element.value, `[${element.index}]`, element.index, 2);
    if (options.run !== undefined && options.run !== element.index) continue;
    const result = importOpenAiChatRun(run, options);
    const counter = new StatsCounter(true);
    for (const event of result.events) counter.add(event);
    const place = runPlace(element);
    summaries.push({
      meta: result.meta,
      repairs: element.invalidUtf8
        ? [invalidUtf8Repair(`[${place.index}]`), ...result.repairs]
        : result.repairs,
      stats: counter.stats,
      source: 'file',
      events: (eventOptions = {}) =>
        runSecondPass({ ...options, signal: eventOptions.signal ?? options.signal }, place),
    });
  }
  if (options.run !== undefined && summaries.length === 0) {
    throw runError(options.run, count, options.fileName ?? options.path);
  }
  // A single run is not numbered (as `openAiChatRuns` does): the count is known only now.
  for (const summary of summaries) {
    if (count === 1) {
      delete summary.meta.run;
      delete summary.meta.runCount;
    } else summary.meta.runCount = count;
  }
  return summaries;
}

/** Where a run's element lies in the file, and a digest of its bytes (the file must not change). */
interface RunPlace {
  index: number;
  offset: number;
  length: number;
  digest: string;
}

function runPlace(element: ParsedElement): RunPlace {
  return {
    index: element.index,
    offset: element.offset,
    length: element.bytes.length,
    digest: digestOf(element.bytes),
  };
}

function digestOf(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('base64');
}

/** A run's events: its element read back from its place, parsed and imported again. */
async function* runSecondPass(
  options: ArrayFileOptions,
  place: RunPlace,
): AsyncGenerator<NewEvent> {
  const fileName = options.fileName ?? options.path;
  const bytes = await readFileRange({
    path: options.path,
    start: place.offset,
    length: place.length,
    signal: options.signal,
  });
  if (bytes.length !== place.length || digestOf(bytes) !== place.digest) {
    throw new ImportError({
      message: `the run's bytes (${place.length} from byte ${place.offset}) changed since the file was checked: import it again`,
      file: fileName,
      path: `[${place.index}]`,
      format: FORMAT,
    });
  }
  let value: unknown;
  try {
    ({ value } = parseElement({ index: place.index, offset: place.offset, bytes }, FORMAT));
  } catch (error) {
    if (ImportError.isInstance(error)) throw error.withFile(fileName);
    throw error;
  }
  const run = trajRun(value as Record<string, unknown>, `[${place.index}]`, place.index, 2);
  yield* importOpenAiChatRun(run, options).events;
}
