/** `orrery replay FILE...`: re-run recorded transcripts through compaction, offline by default. */
import { basename } from 'node:path';
import type { Command } from 'commander';
import { COMPACTION_ENV, resolveReuseAgentPrefix } from '../compaction/config.js';
import type { CostAwareConfig } from '../compaction/types.js';
import { importTranscriptsAsync } from '../importers/import-transcripts-async.js';
import { requireEvents } from '../importers/require-events.js';
import type { ImportFormat } from '../importers/types.js';
import { type PricedModel, replayCost } from '../runtime/replay/replay-cost.js';
import { replayImportedTranscript } from '../runtime/replay/replay-imported-transcript.js';
import { pricedModel, summarizerPricedModel } from '../runtime/replay/replay-price.js';
import {
  REPLAY_DEFAULT_THRESHOLD,
  type ReplayCompactionSettings,
  type ReplaySettingNames,
  replayCompactionSettings,
} from '../runtime/replay/replay-settings.js';
import { ReplaySettingsError } from '../runtime/replay/replay-settings-error.js';
import { sumReplayCosts } from '../runtime/replay/sum-replay-costs.js';
import { InMemorySessionService } from '../sessions/in-memory-session-service.js';
import type { SessionService } from '../sessions/session-service.js';
import { integerOption, nonEmpty, readTranscriptFile, transcriptFormat } from './common.js';
import { CliUsageError } from './errors.js';
import type { CliIo } from './io.js';
import { printThresholdComparison } from './replay-cost-lines.js';
import { printReplayOutputs, type ReplayOutput, type ReplayTranscript } from './replay-output.js';
import { transcriptProgress } from './replay-progress.js';
import { openStore, resolveDb } from './store.js';
import { createSummarizer, type SummarizerChoice } from './summarizer-option.js';

/** The settings as errors name them: the flags. */
const REPLAY_FLAG_NAMES: ReplaySettingNames = Object.freeze({
  threshold: '--threshold',
  interval: '--interval',
  maxRequestBytes: '--max-request-bytes',
});

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
  price?: string;
  summarizerPrice?: string;
  cacheHints: boolean;
  compareThresholds?: number[];
  costAware?: boolean;
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
      '--price <provider:model>',
      "add dollars with and without compaction at this model's catalog prices and prompt cache (e.g. anthropic:claude-sonnet-4-5)",
    )
    .option(
      '--summarizer-price <provider:model>',
      'price the summarizer calls at this model (default: the --summarizer model, else --price)',
    )
    .option('--no-cache-hints', 'price without cache hints (Anthropic then caches nothing)')
    .option(
      '--cost-aware',
      'with --price: compact when and as deep as the expected spend says, never above the threshold (docs/cost.md#cost-aware-compaction)',
    )
    .option(
      '--compare-thresholds <tokens,...>',
      'with --price: replay at each threshold and report the cheapest (docs/cost.md#choosing-a-threshold)',
      thresholdList,
    )
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
  orrery replay examples/incident-session.jsonl --price anthropic:claude-sonnet-4-5

Before each model call the replay builds the request that call would have held (recorded
usage is ignored), runs the token trigger, and compacts with the summarizer; the sliding window
and token trigger also run after each invocation. Tokens are orrery's estimate of contents +
system instruction + tool declarations. A multi-run file (tau-bench) replays every run.`,
    )
    .action(async (files: string[], flags: ReplayFlags) => {
      const format = transcriptFormat(flags.format);
      // Read and parse every file first: a bad one fails before anything runs.
      const transcripts = await readTranscripts({ files, format, run: flags.run });
      // Priced before replaying: an unknown model fails at once, not after the replay.
      const pricing = await replayPricing(flags);
      if (flags.costAware && !pricing) {
        throw new CliUsageError({
          field: '--cost-aware',
          message: '--cost-aware needs --price (the prices it chooses by)',
        });
      }
      const costAware = pricing && flags.costAware ? costAwareOf(pricing) : undefined;
      const settings = await replaySettings({ flags, io, costAware });
      if (flags.compareThresholds !== undefined) {
        if (!pricing || flags.db !== undefined) {
          throw new CliUsageError({
            field: '--compare-thresholds',
            message: '--compare-thresholds needs --price and cannot keep sessions (--db)',
          });
        }
        const rows = [];
        for (const threshold of flags.compareThresholds) {
          const settings = await replaySettings({ flags: { ...flags, threshold }, io, costAware });
          const outputs = await replayTranscripts({ transcripts, settings, flags, io });
          rows.push({
            threshold,
            compactions: outputs.reduce((sum, output) => sum + output.result.compactions.length, 0),
            cost: sumReplayCosts(
              outputs.map((output) =>
                replayCost({
                  report: output.result,
                  ...pricing,
                  reuseAgentPrefix: resolveReuseAgentPrefix(settings.replayConfig),
                }),
              ),
            ),
          });
        }
        printThresholdComparison({ io, rows, json: flags.json === true });
        return;
      }
      const outputs = await replayTranscripts({ transcripts, settings, flags, io });
      if (pricing) {
        for (const output of outputs) {
          output.cost = replayCost({
            report: output.result,
            ...pricing,
            // As the runtime would summarize (ORRERY_COMPACTION_REUSE_AGENT_PREFIX).
            reuseAgentPrefix: resolveReuseAgentPrefix(settings.replayConfig),
          });
        }
      }
      printReplayOutputs({
        io,
        outputs,
        files: files.length,
        config: settings.config,
        summarizerLabel: settings.choice.label,
        json: flags.json === true,
        keptSessions: flags.db !== undefined,
      });
    });
}

/** Every transcript of every file (one per run of a multi-run file), in order. */
async function readTranscripts(options: {
  files: string[];
  format: ImportFormat | 'auto';
  run?: number;
}): Promise<ReplayTranscript[]> {
  const transcripts: ReplayTranscript[] = [];
  for (const file of options.files) {
    const { text, fileName } = await readTranscriptFile(file);
    const results = await importTranscriptsAsync({
      text,
      fileName,
      format: options.format,
      run: options.run,
    });
    requireEvents(results, fileName);
    for (const result of results) {
      const label = result.meta.run === undefined ? fileName : `${fileName} run ${result.meta.run}`;
      transcripts.push({ file, label, result });
    }
  }
  return transcripts;
}

/** `20000,30000` -> [20000, 30000]: positive whole token counts. */
function thresholdList(value: string): number[] {
  const thresholds = value.split(',').map((part) => Number(part.trim()));
  if (
    thresholds.length === 0 ||
    thresholds.some((entry) => !Number.isInteger(entry) || entry < 1)
  ) {
    throw new CliUsageError({
      field: '--compare-thresholds',
      message: `expected positive whole token counts separated by commas (got ${JSON.stringify(value)})`,
    });
  }
  return thresholds;
}

/** `--price` and its companions, or nothing when not asked. */
async function replayPricing(
  flags: ReplayFlags,
): Promise<{ model: PricedModel; summarizer: PricedModel; cacheHints: boolean } | undefined> {
  if (flags.price === undefined) {
    if (flags.summarizerPrice !== undefined) {
      throw new CliUsageError({
        message: '--summarizer-price needs --price',
        field: '--summarizer-price',
      });
    }
    return undefined;
  }
  const model = await pricedModel(flags.price);
  const summarizer = await summarizerPricedModel({
    summarizerPrice: flags.summarizerPrice,
    summarizer: flags.summarizer,
    price: model,
    costAware: flags.costAware === true,
  });
  return { model, summarizer, cacheHints: flags.cacheHints };
}

interface ReplaySettings extends ReplayCompactionSettings {
  choice: SummarizerChoice;
}

/** The flags and the environment as a compaction config and a summarizer. */
/** `--cost-aware`: the config option at the `--price` and summarizer prices. */
function costAwareOf(pricing: { model: PricedModel; summarizer: PricedModel }): CostAwareConfig {
  return { price: pricing.model.id, summarizerPrice: pricing.summarizer.id };
}

async function replaySettings(options: {
  flags: ReplayFlags;
  io: CliIo;
  costAware?: CostAwareConfig;
}): Promise<ReplaySettings> {
  const { flags, io } = options;
  const choice = await createSummarizer({ value: flags.summarizer, env: io.env });
  try {
    const settings = replayCompactionSettings({
      env: io.env,
      summarizer: choice.summarizer,
      threshold: flags.threshold,
      retention: flags.retention,
      interval: flags.interval,
      overlap: flags.overlap,
      maxRequestBytes: flags.maxRequestBytes,
      names: REPLAY_FLAG_NAMES,
      ...(options.costAware && { costAware: options.costAware }),
    });
    return { ...settings, choice };
  } catch (error) {
    // Settings that cannot go together are the command line's fault: a usage error (exit 2).
    if (!ReplaySettingsError.isInstance(error)) throw error;
    throw new CliUsageError({ field: error.field, message: error.message, cause: error });
  }
}

/** Replays each transcript into its own session of one store (`--db`, else in memory). */
async function replayTranscripts(options: {
  transcripts: ReplayTranscript[];
  settings: ReplaySettings;
  flags: ReplayFlags;
  io: CliIo;
}): Promise<ReplayOutput[]> {
  const { transcripts, flags, io } = options;
  // `--db ''` is refused by resolveDb, not taken for "no --db".
  const service: SessionService =
    flags.db !== undefined
      ? await openStore({
          db: resolveDb({ db: flags.db, io }),
          appName: flags.app,
          userId: flags.user,
        })
      : new InMemorySessionService();
  const outputs: ReplayOutput[] = [];
  try {
    for (const [index, transcript] of transcripts.entries()) {
      const progress = transcriptProgress({
        io,
        lines: flags.progress === true,
        json: flags.json === true,
        label: transcript.label,
        position: index + 1,
        count: transcripts.length,
      });
      const sessionId = replaySessionId(transcript);
      const { summarizer, fallbackSummarizer } = options.settings.choice;
      const result = await replayImportedTranscript({
        result: transcript.result,
        file: transcript.file,
        service,
        key: { appName: flags.app, userId: flags.user, sessionId },
        config: options.settings.replayConfig,
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
  return outputs;
}

/** `replay-<file>[-run-<n>]-<random>`: readable in `sessions list`, never taken twice. */
function replaySessionId(transcript: ReplayTranscript): string {
  const file = basename(transcript.file).replace(/[^\w.-]+/g, '_');
  const run = transcript.result.meta.run;
  return `replay-${file}${run === undefined ? '' : `-run-${run}`}-${crypto.randomUUID().slice(0, 8)}`;
}
