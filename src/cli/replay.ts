/** `orrery replay FILE...`: re-run recorded transcripts through compaction, offline by default. */
import { basename } from 'node:path';
import type { Command } from 'commander';
import { COMPACTION_ENV, createEventsCompactionConfig } from '../compaction/config.js';
import { importTranscripts } from '../importers/import-transcript.js';
import type { ImportResult } from '../importers/types.js';
import type { ReplayReport } from '../runtime/replay.js';
import { InMemorySessionService } from '../sessions/in-memory-session-service.js';
import type { SessionService } from '../sessions/session-service.js';
import {
  integerOption,
  nonEmpty,
  readTranscriptFile,
  requireEvents,
  transcriptFormat,
  writeJson,
} from './common.js';
import { summarizeRepairs } from './import-session.js';
import type { CliIo } from './io.js';
import { plural } from './plural.js';
import { replayImportedTranscript } from './replay-engine.js';
import { transcriptProgress } from './replay-progress.js';
import { compact, fallbackLines, renderReport, replayJson, table } from './replay-report.js';
import { openStore, resolveDb } from './store.js';
import { createSummarizer } from './summarizer-option.js';

/** Replay's own default: small enough that real transcripts show compaction at work. */
export const REPLAY_DEFAULT_THRESHOLD = 20_000;

interface ReplayFlags {
  format: string;
  run?: number;
  threshold?: number;
  retention?: number;
  interval?: number;
  overlap?: number;
  maxRequestBytes?: number;
  summarizer: string;
  db?: string;
  app: string;
  user: string;
  json?: boolean;
  progress?: boolean;
}

export function registerReplay(program: Command, io: CliIo): void {
  program
    .command('replay')
    .description(
      'replay transcripts through compaction and report what each model request would have held',
    )
    .argument('<files...>', 'transcript files (any format import reads)')
    .option(
      '--format <format>',
      'auto | adk | openai-chat | claude-code | swe-agent | ai-sdk',
      'auto',
    )
    .option(
      '--run <n>',
      'multi-run files: replay only run N (default: every run)',
      integerOption('--run'),
    )
    .option(
      '--threshold <tokens>',
      `token trigger (default ${REPLAY_DEFAULT_THRESHOLD}, or ${COMPACTION_ENV.tokenThreshold}); 0 turns it off`,
      integerOption('--threshold'),
    )
    .option(
      '--retention <events>',
      'events kept verbatim after a compaction (default 10)',
      integerOption('--retention'),
    )
    .option(
      '--interval <invocations>',
      'sliding window: compact every N invocations (default 100)',
      integerOption('--interval'),
    )
    .option(
      '--overlap <invocations>',
      'invocations the next window re-reads (default 1)',
      integerOption('--overlap'),
    )
    .option(
      '--max-request-bytes <bytes>',
      'byte ceiling of a request',
      integerOption('--max-request-bytes', 1),
    )
    .option(
      '--summarizer <digest|model-id>',
      'digest (offline, deterministic) or a model id such as google:gemini-2.5-flash',
      'digest',
    )
    .option('--db <path-or-url>', 'keep the replayed sessions in this store (default: in memory)')
    .option('--app <name>', 'app name for --db', nonEmpty('--app'), 'orrery')
    .option('--user <id>', 'user id for --db', nonEmpty('--user'), 'local')
    .option('--json', 'print one JSON object per transcript (an array for several)')
    .option(
      '--progress',
      'progress lines on stderr at each tenth of the events, also when piped or with --json',
    )
    .addHelpText(
      'after',
      `
Examples:
  orrery replay examples/incident-session.jsonl
  orrery replay run.traj --threshold 8000 --retention 4
  orrery replay gpt-4o-airline.json --run 12 --json
  orrery replay long-session.jsonl --json --progress > report.json
  orrery replay session.jsonl --summarizer google:gemini-2.5-flash --db ./replays.db

Before each model call the replay builds the request that call would have held (recorded
usage is ignored), runs the token trigger, and compacts with the summarizer; the sliding window
and token trigger also run after each invocation. Tokens are orrery's estimate of contents +
system instruction + tool declarations. A multi-run file (tau-bench) replays every run.`,
    )
    .action(async (files: string[], flags: ReplayFlags) => {
      const format = transcriptFormat(flags.format);
      // Read and parse every file first: a bad one fails before anything runs.
      const transcripts: Array<{ file: string; label: string; result: ImportResult }> = [];
      for (const file of files) {
        const { text, fileName } = await readTranscriptFile(file);
        const results = importTranscripts({ text, fileName, format, run: flags.run });
        requireEvents(results, fileName);
        for (const result of results) {
          const label =
            result.meta.run === undefined ? fileName : `${fileName} run ${result.meta.run}`;
          transcripts.push({ file, label, result });
        }
      }
      const tokenThreshold =
        flags.threshold ??
        (io.env[COMPACTION_ENV.tokenThreshold] === undefined
          ? REPLAY_DEFAULT_THRESHOLD
          : undefined);
      const choice = await createSummarizer({ value: flags.summarizer, env: io.env });
      const { summarizer, fallbackSummarizer } = choice;
      const config = createEventsCompactionConfig({
        env: io.env,
        enabled: true,
        tokenThreshold,
        eventRetentionSize: flags.retention,
        compactionInterval: flags.interval,
        overlapSize: flags.overlap,
        maxRequestBytes: flags.maxRequestBytes,
        summarizer,
      });
      // `--db ''` is refused by resolveDb, not taken for "no --db".
      const service: SessionService =
        flags.db !== undefined
          ? await openStore({
              db: resolveDb({ db: flags.db, io }),
              appName: flags.app,
              userId: flags.user,
            })
          : new InMemorySessionService();
      const outputs: Array<{
        transcript: (typeof transcripts)[number];
        sessionId: string;
        result: ReplayReport;
      }> = [];
      try {
        for (const [index, transcript] of transcripts.entries()) {
          const sessionId = `replay-${basename(transcript.file).replace(/[^\w.-]+/g, '_')}${transcript.result.meta.run === undefined ? '' : `-run-${transcript.result.meta.run}`}-${crypto.randomUUID().slice(0, 8)}`;
          const key = { appName: flags.app, userId: flags.user, sessionId };
          const progress = transcriptProgress({
            io,
            lines: flags.progress === true,
            json: flags.json === true,
            label: transcript.label,
            position: index + 1,
            count: transcripts.length,
          });
          const result = await replayImportedTranscript({
            result: transcript.result,
            file: transcript.file,
            service,
            key,
            config: config ?? {},
            summarizer,
            fallbackSummarizer,
            onProgress: progress.onProgress,
          });
          progress.done();
          outputs.push({ transcript, sessionId, result });
        }
      } finally {
        await service.close?.();
      }

      if (flags.json) {
        // Which transcript each object is: several files, or the runs of one, print an array.
        const objects = outputs.map(({ transcript, sessionId, result }) => ({
          file: transcript.file,
          ...(transcript.result.meta.run === undefined ? {} : { run: transcript.result.meta.run }),
          ...(flags.db !== undefined ? { sessionId } : {}),
          ...replayJson(result),
        }));
        writeJson(io, files.length === 1 && objects.length === 1 ? objects[0] : objects);
        return;
      }
      if (outputs.length <= 3) {
        io.stdout(
          outputs
            .map(({ transcript, sessionId, result }) =>
              renderReport(
                {
                  label: transcript.label,
                  format: transcript.result.meta.format,
                  threshold: config?.tokenThreshold,
                  maxRequestBytes: config?.maxRequestBytes,
                  summarizer: choice.label,
                  sessionId: flags.db !== undefined ? sessionId : undefined,
                  invocations: new Set(transcript.result.events.map((event) => event.invocationId))
                    .size,
                  repairs: summarizeRepairs(transcript.result.repairs),
                },
                result,
              ),
            )
            .join('\n'),
        );
        return;
      }
      // Many transcripts (a multi-run file): one row each, then the totals.
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
      const sum = (pick: (result: (typeof outputs)[number]['result']) => number) =>
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
        `orrery replay · ${outputs.length} transcripts · threshold ${config?.tokenThreshold ?? 'off'}${config?.maxRequestBytes === undefined ? '' : ` · byte ceiling ${config.maxRequestBytes.toLocaleString('en-US')}`} · summarizer ${choice.label}\n\n`,
      );
      io.stdout(
        `${table(['transcript', 'events', 'calls', 'compactions', 'max view', 'tokens w/o', 'tokens with', 'orphans', 'lossless'], rows).join('\n')}\n`,
      );
      const notes = fallbackLines(outputs.flatMap((output) => output.result.compactions));
      const failed = sum((result) => result.failures.length);
      if (failed > 0) notes.push(`  ${plural(failed, 'compaction attempt')} failed`);
      if (notes.length > 0) io.stdout(`\n${notes.join('\n')}\n`);
    });
}
