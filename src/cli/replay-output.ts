/**
 * What `orrery replay` prints once every transcript is replayed: one JSON object (or an array)
 * with `--json`, a report each for up to three transcripts, else one table row each and totals.
 */
import type { EventsCompactionConfig } from '../compaction/types.js';
import type { ImportResult } from '../importers/types.js';
import type { ReplayReport } from '../runtime/replay/replay.js';
import type { ReplayCost } from '../runtime/replay/replay-cost.js';
import { replayJson } from '../runtime/replay/replay-json.js';
import { sumReplayCosts } from '../runtime/replay/sum-replay-costs.js';
import { groupDigits } from '../util/group-digits.js';
import { plural } from '../util/plural.js';
import { writeJson } from './common.js';
import { summarizeRepairs } from './import-session.js';
import type { CliIo } from './io.js';
import { costLines } from './replay-cost-lines.js';
import { compact, fallbackLines, renderReport } from './replay-report.js';
import { table } from './text-table.js';

/** One transcript of the command line: its file, how it is named, what the import gave. */
export interface ReplayTranscript {
  file: string;
  label: string;
  result: ImportResult;
}

/** One transcript's replay: the session it was written to and the report. */
export interface ReplayOutput {
  transcript: ReplayTranscript;
  sessionId: string;
  result: ReplayReport;
  /** Set with `--price`. */
  cost?: ReplayCost;
}

export interface ReplayOutputOptions {
  io: CliIo;
  outputs: ReplayOutput[];
  /** Files on the command line: one file with one transcript prints an object, not an array. */
  files: number;
  config: EventsCompactionConfig | null;
  /** The summarizer as the report names it. */
  summarizerLabel: string;
  json: boolean;
  /** Sessions are kept (`--db`): their ids are printed. */
  keptSessions: boolean;
}

/** Prints the outputs in the form the flags ask for. */
export function printReplayOutputs(options: ReplayOutputOptions): void {
  if (options.json) printJson(options);
  else if (options.outputs.length <= 3) printReports(options);
  else printTable(options);
}

/** Which transcript each object is: several files, or the runs of one, print an array. */
function printJson(options: ReplayOutputOptions): void {
  const objects = options.outputs.map(({ transcript, sessionId, result, cost }) => ({
    file: transcript.file,
    ...(transcript.result.meta.run === undefined ? {} : { run: transcript.result.meta.run }),
    ...(options.keptSessions ? { sessionId } : {}),
    ...replayJson(result),
    ...(cost ? { cost } : {}),
  }));
  writeJson(options.io, options.files === 1 && objects.length === 1 ? objects[0] : objects);
}

function printReports(options: ReplayOutputOptions): void {
  const { config } = options;
  options.io.stdout(
    options.outputs
      .map(({ transcript, sessionId, result, cost }) =>
        renderReport(
          {
            label: transcript.label,
            format: transcript.result.meta.format,
            threshold: config?.tokenThreshold,
            maxRequestBytes: config?.maxRequestBytes,
            summarizer: options.summarizerLabel,
            sessionId: options.keptSessions ? sessionId : undefined,
            invocations: new Set(transcript.result.events.map((event) => event.invocationId)).size,
            repairs: summarizeRepairs(transcript.result.repairs),
          },
          result,
          cost,
        ),
      )
      .join('\n'),
  );
}

/** Many transcripts (a multi-run file): one row each, then the totals. */
function printTable(options: ReplayOutputOptions): void {
  const { outputs, config, io } = options;
  const rows = outputs.map(({ transcript, result }) => [
    transcript.label,
    String(result.events),
    String(result.modelCalls),
    String(result.compactions.length),
    compact(result.maxViewTokens),
    compact(result.tokens.withoutCompaction),
    compact(result.tokens.withCompaction),
    String(result.orphans),
    result.lossless ? 'yes' : 'NO',
  ]);
  const sum = (pick: (result: ReplayReport) => number) =>
    outputs.reduce((total, output) => total + pick(output.result), 0);
  rows.push([
    `total (${outputs.length})`,
    String(sum((result) => result.events)),
    String(sum((result) => result.modelCalls)),
    String(sum((result) => result.compactions.length)),
    compact(Math.max(...outputs.map((output) => output.result.maxViewTokens))),
    compact(sum((result) => result.tokens.withoutCompaction)),
    compact(sum((result) => result.tokens.withCompaction)),
    String(sum((result) => result.orphans)),
    outputs.every((output) => output.result.lossless) ? 'yes' : 'NO',
  ]);
  io.stdout(
    `orrery replay · ${outputs.length} transcripts · threshold ${config?.tokenThreshold ?? 'off'}${config?.maxRequestBytes === undefined ? '' : ` · byte ceiling ${groupDigits(config.maxRequestBytes)}`} · summarizer ${options.summarizerLabel}\n\n`,
  );
  io.stdout(
    `${table(['transcript', 'events', 'calls', 'compactions', 'max view', 'tokens w/o', 'tokens with', 'orphans', 'lossless'], rows).join('\n')}\n`,
  );
  const notes = fallbackLines(outputs.flatMap((output) => output.result.compactions));
  const costs = outputs.flatMap((output) => (output.cost ? [output.cost] : []));
  if (costs.length > 0) notes.unshift(...costLines(sumReplayCosts(costs)));
  const failed = sum((result) => result.failures.length);
  if (failed > 0) notes.push(`  ${plural(failed, 'compaction attempt')} failed`);
  if (notes.length > 0) io.stdout(`\n${notes.join('\n')}\n`);
}
