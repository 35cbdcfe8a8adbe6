/**
 * A Claude Code JSONL file imported in two passes, one line at a time each: the first checks
 * every record and learns what must be known before anything is written (meta, repairs, counts,
 * the timestamp plan); the second makes the same events again and hands them out as a store
 * pulls them. Memory holds one line, one assistant message's records and the results written
 * between them, and the builder's pending calls: never the file. See docs/architecture.md#edge.
 */
import type { NewEvent } from '../events/types.js';
import { ClaudeCodeImport } from './claude-code.js';
import { ImportError } from './errors.js';
import { readFileChunks } from './file-source.js';
import { readLines } from './line-reader.js';
import { StatsCounter, type StreamedImport } from './streamed-import.js';
import { assertNestingDepth, invalidUtf8Repair } from './text-input.js';
import type { TimestampPlan } from './timestamp-plan.js';
import { finishFirstPass, secondPassEvents } from './two-pass-import.js';
import type { ImportOptions, Repair } from './types.js';

const FORMAT = 'claude-code';

export interface StreamFileOptions extends ImportOptions {
  path: string;
  /** Named in errors (default: the path). */
  fileName?: string;
  maxRecordBytes?: number;
  signal?: AbortSignal;
}

/** The first pass; the result's `events()` runs the second. */
export async function streamClaudeCodeFile(options: StreamFileOptions): Promise<StreamedImport> {
  const counter = new StatsCounter(true);
  const repairs: Repair[] = [];
  const reader = new ClaudeCodeImport({
    ...options,
    stream: { sink: (event) => counter.add(event), check: true },
  });
  let blank = true;
  for await (const line of lines(options)) {
    if (line.invalidUtf8) {
      repairs.push(invalidUtf8Repair(`line ${line.line}`));
    }
    if (blank && line.text.trim() !== '') blank = false;
    assertNestingDepth(line.text, { format: FORMAT, firstLine: line.line });
    reader.addLine(line.text, line.line);
  }
  if (blank) {
    throw new ImportError({
      message: `${options.fileName ?? options.path} is empty: there is no transcript to import`,
    });
  }
  return finishFirstPass({
    reader,
    repairs,
    counter,
    signal: options.signal,
    secondPass: ({ plan, signal }) => secondPass({ ...options, signal }, plan),
  });
}

function secondPass(options: StreamFileOptions, plan: TimestampPlan): AsyncGenerator<NewEvent> {
  return secondPassEvents({
    records: lines(options),
    start: (sink) => {
      const reader = new ClaudeCodeImport({ ...options, stream: { sink, plan } });
      return { add: (line) => reader.addLine(line.text, line.line), finish: () => reader.finish() };
    },
  });
}

function lines(options: StreamFileOptions) {
  return readLines({
    source: readFileChunks({ path: options.path, signal: options.signal }),
    maxRecordBytes: options.maxRecordBytes,
    fileName: options.fileName ?? options.path,
    format: FORMAT,
    signal: options.signal,
  });
}
