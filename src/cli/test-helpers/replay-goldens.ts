/**
 * Replay goldens: the reports `orrery replay` gives on fixed inputs, normalized so that two runs
 * of the same code give the same JSON. They pin replay's figures across speed work: a change
 * that moves a compaction or a token count shows up as a diff. Regenerate on purpose only:
 * `npx tsx scripts/replay-goldens.ts` (and say in the commit why the figures moved).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createEventsCompactionConfig } from '../../compaction/config.js';
import type { EventsSummarizer, SummarizeOptions, Summary } from '../../compaction/types.js';
import { getText } from '../../events/event-helpers.js';
import { importTranscripts } from '../../importers/import-transcript.js';
import type { ImportResult } from '../../importers/types.js';
import type { ReplayReport } from '../../runtime/replay/replay.js';
import { replayImportedTranscript } from '../../runtime/replay/replay-imported-transcript.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { longTranscript } from '../../testing/long-transcript.js';

export interface GoldenSettings {
  tokenThreshold?: number;
  eventRetentionSize?: number;
  compactionInterval?: number;
  overlapSize?: number;
  maxRequestBytes?: number;
}

export interface GoldenCase {
  name: string;
  /** A file under the repository root, or a generated transcript. */
  source: { file: string } | { generated: { events: number; seed: number } };
  settings: GoldenSettings;
}

/** The report without what differs between runs (the random session id). */
export type GoldenReport = Omit<ReplayReport, 'sessionId' | 'requests' | 'compactions'> & {
  compactions: Omit<ReplayReport['compactions'][number], 'summaryTokens'>[];
  /** `withCompaction/withoutCompaction/bytes` per model call, space-separated (one JSON line). */
  requests: string;
};

export const GOLDEN_CASES: GoldenCase[] = [
  {
    name: 'incident example, replay defaults',
    source: { file: 'examples/incident-session.jsonl' },
    settings: { tokenThreshold: 20_000 },
  },
  {
    name: 'incident example, small threshold and a byte ceiling',
    source: { file: 'examples/incident-session.jsonl' },
    settings: { tokenThreshold: 8_000, eventRetentionSize: 4, maxRequestBytes: 30_000 },
  },
  {
    name: 'incident example, byte ceiling only',
    source: { file: 'examples/incident-session.jsonl' },
    settings: { tokenThreshold: 1_000_000, maxRequestBytes: 20_000 },
  },
  {
    name: 'generated 1,200 events, replay defaults',
    source: { generated: { events: 1_200, seed: 1 } },
    settings: { tokenThreshold: 20_000 },
  },
  {
    name: 'generated 2,000 events, sliding window every 5 invocations and a byte ceiling',
    source: { generated: { events: 2_000, seed: 7 } },
    settings: {
      tokenThreshold: 12_000,
      compactionInterval: 5,
      overlapSize: 2,
      maxRequestBytes: 40_000,
    },
  },
];

/**
 * The goldens' summarizer: deterministic and frozen here, so the goldens pin replay's own
 * decisions and figures, not the digest's wording (which may be improved at any time). It keeps
 * the previous summary's head and a line per event, like a small digest.
 */
export class GoldenSummarizer implements EventsSummarizer {
  readonly name = 'golden';

  async summarize(options: SummarizeOptions): Promise<Summary> {
    const previous = options.previousSummary
      ? getText(options.previousSummary).slice(0, 3_000)
      : '';
    const lines = options.events.map((event) => {
      const parts = event.content?.parts ?? [];
      const calls = parts.flatMap((part) => (part.functionCall ? [part.functionCall.name] : []));
      return `${event.author}: ${getText(event).slice(0, 60)}${calls.length > 0 ? ` calls ${calls.join(', ')}` : ''}`;
    });
    const text = [previous, ...lines].filter((line) => line !== '').join('\n');
    return { content: { role: 'model', parts: [{ text }] } };
  }
}

/** Replays through the CLI's path (`replayImportedTranscript`) and normalizes the report. */
async function replayResult(imported: ImportResult, file: string, settings: GoldenSettings) {
  const summarizer = new GoldenSummarizer();
  const config = createEventsCompactionConfig({ env: {}, enabled: true, ...settings, summarizer });
  if (!config) throw new Error('expected a compaction config');
  return normalizeReport(
    await replayImportedTranscript({
      result: imported,
      file,
      service: new InMemorySessionService(),
      key: { appName: 'golden', userId: 'test', sessionId: 'golden' },
      config,
      summarizer,
    }),
  );
}

export function normalizeReport(report: ReplayReport): GoldenReport {
  const { sessionId: _sessionId, requests, ...rest } = report;
  return {
    ...rest,
    // The goldens predate the cost fields (`summaryTokens`, a request's output and time): they
    // pin what compaction decided and measured, which the cost fields do not change.
    // Overriding keeps the key where it was, so the datasets' digests (of this JSON) still hold.
    compactions: rest.compactions.map(
      ({ summaryTokens: _summaryTokens, ...compaction }) => compaction,
    ),
    requests: requests
      .map((request) => `${request.withCompaction}/${request.withoutCompaction}/${request.bytes}`)
      .join(' '),
  };
}

function generatedResult(events: number, seed: number): ImportResult {
  return { events: longTranscript({ events, seed }), repairs: [], meta: { format: 'adk' } };
}

/** The case's normalized report; `root` is the repository's folder. */
export async function runGoldenCase(golden: GoldenCase, root: string): Promise<GoldenReport> {
  if ('file' in golden.source) {
    const path = join(root, golden.source.file);
    const [result] = importTranscripts({
      text: readFileSync(path, 'utf8'),
      fileName: basename(path),
    });
    if (!result) throw new Error(`no transcript in ${golden.source.file}`);
    return replayResult(result, golden.source.file, golden.settings);
  }
  const { events, seed } = golden.source.generated;
  return replayResult(generatedResult(events, seed), `generated-${seed}`, golden.settings);
}

/** Every public transcript file the datasets test replays. */
export function datasetFiles(folder: string): string[] {
  const list = (path: string) => {
    try {
      return readdirSync(path).sort();
    } catch {
      return [];
    }
  };
  const files: string[] = [];
  const completions = join(folder, 'openhands-swe-bench', 'llm_completions');
  for (const name of list(completions))
    if (name.endsWith('.json')) files.push(join(completions, name));
  if (list(join(folder, 'tau-bench-airline')).includes('gpt-4o-airline.json')) {
    files.push(join(folder, 'tau-bench-airline', 'gpt-4o-airline.json'));
  }
  const swe = join(folder, 'swe-agent');
  for (const name of list(swe)) if (name.endsWith('.traj')) files.push(join(swe, name));
  return files;
}

/**
 * Each transcript (each run of a multi-run file) of the datasets, by `file[#run]`: `events
 * modelCalls compactions tokensWithout tokensWith digest`, the digest being the first 16 hex
 * digits of the SHA-256 of the whole normalized report's JSON (every request, every compaction).
 */
export async function datasetGoldens(
  folder: string,
  settings: GoldenSettings = { tokenThreshold: 20_000 },
): Promise<Record<string, string>> {
  const goldens: Record<string, string> = {};
  for (const path of datasetFiles(folder)) {
    const results = importTranscripts({
      text: readFileSync(path, 'utf8'),
      fileName: basename(path),
    });
    for (const [index, result] of results.entries()) {
      const label = results.length > 1 ? `${basename(path)}#${index}` : basename(path);
      const report = await replayResult(result, basename(path), settings);
      const digest = createHash('sha256').update(JSON.stringify(report)).digest('hex');
      goldens[label] = [
        report.events,
        report.modelCalls,
        report.compactions.length,
        report.tokens.withoutCompaction,
        report.tokens.withCompaction,
        digest.slice(0, 16),
      ].join(' ');
    }
  }
  return goldens;
}
