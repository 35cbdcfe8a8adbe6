/**
 * `orrery eval [FILE...]`: how many facts survive compaction, offline. Each conversation is
 * replayed through compaction at `--threshold`; for each question the answer strings are looked
 * for in (a) the final view, (b) the view plus recall's top k for the question, (c) the newest
 * events that fit the same token budget (truncation), (d) the full history; and recall@k of the
 * evidence events. FILE: an eval JSON file or a dataset's probes.derived.jsonl; `--generate`
 * adds seeded conversations with planted facts; `--datasets` reads every
 * `$ORRERY_DATASETS/<name>/probes.derived.jsonl`; `--elision on|off|both` runs the replay with
 * the elision tier before summaries, without it (the default), or both side by side.
 * `--context N`: events either side of each hit that recall returns with it (default 2, the
 * recall tool's; 0: the hits alone). `--memory`: a row per input for memory across sessions
 * (each conversation split into `--memory-sessions` sessions, asked of `searchMemory`).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import {
  combineMemoryEvaluations,
  evaluateMemory,
  type MemoryEvaluation,
} from '../runtime/eval/memory-eval.js';
import {
  combineEvaluations,
  type EvaluateRecallOptions,
  evaluateRecall,
  type RecallConversation,
  type RecallEvaluation,
} from '../runtime/eval/recall-eval.js';
import { pricedModel, summarizerPricedModel } from '../runtime/replay/replay-price.js';
import type { SessionService } from '../sessions/session-service.js';
import { generateRecallConversations } from '../testing/recall-conversations.js';
import { integerOption, writeJson } from './common.js';
import { CliUsageError } from './errors.js';
import { loadEvalFile, loadProbes } from './eval-probes.js';
import type { CliIo } from './io.js';
import { usd } from './replay-cost-lines.js';
import { isPostgresUrl, openStore, redact } from './store.js';

type ElisionMode = 'on' | 'off' | 'both';
type StoreKind = 'memory' | 'sqlite' | 'postgres';
const STORE_KINDS: readonly StoreKind[] = ['memory', 'sqlite', 'postgres'];

interface EvalFlags {
  elision: ElisionMode;
  threshold: number;
  topK: number;
  generate?: boolean;
  seed: number;
  conversations: number;
  datasets?: boolean;
  json?: boolean;
  context: number;
  memory?: boolean;
  memorySessions: number;
  price?: string;
  summarizerPrice?: string;
  store: StoreKind[];
  db?: string;
}

function percent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

function row(label: string, result: Omit<RecallEvaluation, 'name'>): string {
  return [
    label.padEnd(36),
    String(result.compactions).padStart(5),
    String(result.elisions).padStart(6),
    `${(result.requestTokens / 1000).toFixed(0)}k`.padStart(7),
    String(result.answers).padStart(7),
    percent(result.inView).padStart(8),
    percent(result.inViewPlusRecall).padStart(12),
    percent(result.inTruncation).padStart(10),
    percent(result.inFullHistory).padStart(8),
    percent(result.recallAtK).padStart(9),
    percent(result.inViewPlusRecallAt10).padStart(8),
    percent(result.evidenceRecallAt5).padStart(6),
    percent(result.evidenceRecallAt10).padStart(6),
    result.mrr.toFixed(3).padStart(6),
    ...(result.cost
      ? [
          usd(result.cost.usd).padStart(9),
          usd(result.cost.usdWithoutCompaction).padStart(9),
          `${Math.round((result.cost.cacheReadTokens / Math.max(1, result.cost.inputTokens)) * 100)}%`.padStart(
            6,
          ),
        ]
      : []),
  ].join(' ');
}

function storeKinds(value: string): StoreKind[] {
  const kinds = value.split(',').map((kind) => kind.trim());
  for (const kind of kinds) {
    if (!STORE_KINDS.includes(kind as StoreKind)) {
      throw new CliUsageError({
        field: '--store',
        message: `expected memory, sqlite or postgres, comma-separated (got ${JSON.stringify(kind)})`,
      });
    }
  }
  return [...new Set(kinds as StoreKind[])];
}

/**
 * The store one evaluation runs in: a new in-memory one per conversation; SQLite in a temporary
 * file removed afterwards; PostgreSQL at `--db` / `ORRERY_DB` (each conversation a new session,
 * deleted after its measure).
 */
async function openEvalStore(
  kind: StoreKind,
  flags: EvalFlags,
  io: CliIo,
): Promise<{ service?: SessionService; close: () => Promise<void> }> {
  if (kind === 'memory') return { close: async () => {} };
  if (kind === 'sqlite') {
    const folder = await mkdtemp(join(tmpdir(), 'orrery-eval-'));
    const service = await openStore({
      db: join(folder, 'eval.db'),
      appName: 'eval',
      userId: 'eval',
    });
    return {
      service,
      close: async () => {
        await service.close?.();
        await rm(folder, { recursive: true, force: true });
      },
    };
  }
  const db = flags.db ?? io.env.ORRERY_DB;
  if (!db || !isPostgresUrl(db)) {
    throw new CliUsageError({
      field: '--db',
      message: `--store postgres needs a postgres:// URL in --db or ORRERY_DB (got ${JSON.stringify(db === undefined ? db : redact(db))})`,
    });
  }
  const service = await openStore({ db, appName: 'eval', userId: 'eval' });
  return { service, close: async () => service.close?.() };
}

async function datasetProbeFiles(io: CliIo): Promise<string[]> {
  const root = io.env.ORRERY_DATASETS;
  if (!root) {
    throw new CliUsageError({
      field: 'ORRERY_DATASETS',
      message: '--datasets needs ORRERY_DATASETS (a folder of datasets)',
    });
  }
  const files: string[] = [];
  for (const entry of await readdir(root, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const inner = await readdir(join(root, entry.name));
    if (inner.includes('probes.derived.jsonl'))
      files.push(join(root, entry.name, 'probes.derived.jsonl'));
  }
  return files.sort();
}

function elisionMode(value: string): ElisionMode {
  if (value === 'on' || value === 'off' || value === 'both') return value;
  throw new CliUsageError({
    field: '--elision',
    message: `expected on, off or both (got ${JSON.stringify(value)})`,
  });
}

/** The elision settings each mode evaluates, with the label a row gets. */
function elisionRuns(mode: ElisionMode): Array<{ elision: boolean; suffix: string }> {
  if (mode === 'both') {
    return [
      { elision: false, suffix: ' (elision off)' },
      { elision: true, suffix: ' (elision on)' },
    ];
  }
  return [{ elision: mode === 'on', suffix: '' }];
}

async function evaluateGroups(
  groups: Array<{ label: string; conversations: RecallConversation[] }>,
  flags: EvalFlags,
  price: EvaluateRecallOptions['price'],
  io: CliIo,
) {
  const report = [];
  const several = flags.store.length > 1;
  for (const kind of flags.store) {
    const store = await openEvalStore(kind, flags, io);
    try {
      for (const group of groups) {
        for (const run of elisionRuns(flags.elision)) {
          const results: RecallEvaluation[] = [];
          for (const conversation of group.conversations) {
            results.push(
              await evaluateRecall({
                conversation,
                threshold: flags.threshold,
                topK: flags.topK,
                elision: run.elision,
                sessionService: store.service,
                sessionId: store.service ? `eval-${randomUUID()}` : undefined,
                contextEvents: flags.context,
                ...(price ? { price } : {}),
              }),
            );
          }
          report.push({
            label: `${group.label}${run.suffix}${several || kind !== 'memory' ? ` [${kind}]` : ''}`,
            store: kind,
            elision: run.elision,
            total: combineEvaluations(results),
            conversations: results,
          });
        }
      }
    } finally {
      await store.close();
    }
  }
  return report;
}

async function evaluateMemoryGroups(
  groups: Array<{ label: string; conversations: RecallConversation[] }>,
  flags: EvalFlags,
) {
  const report = [];
  for (const group of groups) {
    const results: MemoryEvaluation[] = [];
    for (const conversation of group.conversations) {
      results.push(
        await evaluateMemory({ conversation, sessions: flags.memorySessions, topK: flags.topK }),
      );
    }
    report.push({
      label: group.label,
      total: combineMemoryEvaluations(results),
      conversations: results,
    });
  }
  return report;
}

function memoryRow(label: string, result: Omit<MemoryEvaluation, 'name'>): string {
  return [
    label.padEnd(36),
    String(result.sessions).padStart(8),
    String(result.answers).padStart(7),
    percent(result.inMemory).padStart(10),
    percent(result.inAllSessions).padStart(8),
    percent(result.recallAtK).padStart(9),
  ].join(' ');
}

/** `--price` as a priced model (and the summarizer's), or nothing. */
async function evalPrice(flags: EvalFlags): Promise<EvaluateRecallOptions['price']> {
  if (flags.price === undefined) {
    if (flags.summarizerPrice !== undefined) {
      throw new CliUsageError({
        field: '--summarizer-price',
        message: '--summarizer-price needs --price',
      });
    }
    return undefined;
  }
  const model = await pricedModel(flags.price);
  const summarizer = await summarizerPricedModel({
    summarizerPrice: flags.summarizerPrice,
    summarizer: 'digest',
    price: model,
  });
  return { model, summarizer };
}

export function registerEval(program: Command, io: CliIo): void {
  program
    .command('eval')
    .description(
      'measure how many facts survive compaction: view, view + recall, truncation, full history',
    )
    .argument('[files...]', 'eval JSON files or probes.derived.jsonl files')
    .option(
      '--threshold <tokens>',
      'compaction token threshold of the replay',
      integerOption('--threshold', 1),
      8000,
    )
    .option('--top-k <k>', 'recall hits counted, and k of recall@k', integerOption('--top-k', 1), 5)
    .option('--generate', 'add seeded generated conversations with planted facts')
    .option('--seed <n>', 'seed of --generate', integerOption('--seed', 0), 1)
    .option(
      '--conversations <n>',
      'conversations --generate makes',
      integerOption('--conversations', 1),
      3,
    )
    .option('--datasets', 'add every $ORRERY_DATASETS/*/probes.derived.jsonl')
    .option(
      '--elision <mode>',
      'the elision tier before summaries: on, off or both (side by side)',
      elisionMode,
      'off' as ElisionMode,
    )
    .option(
      '--context <n>',
      'events either side of each hit recall returns with it (0: the hits alone)',
      integerOption('--context', 0),
      2,
    )
    .option('--memory', 'add a memory-across-sessions row per input (searchMemory)')
    .option(
      '--memory-sessions <n>',
      'sessions each conversation is split into for --memory',
      integerOption('--memory-sessions', 1),
      4,
    )
    .option(
      '--store <kinds>',
      'stores to replay into and search, comma-separated: memory, sqlite, postgres',
      storeKinds,
      ['memory'] as StoreKind[],
    )
    .option('--db <url>', 'the PostgreSQL URL of --store postgres (default ORRERY_DB)')
    .option('--json', 'print the figures as JSON')
    .option(
      '--price <provider:model>',
      "add dollars with and without compaction at this model's catalog prices (docs/cost.md)",
    )
    .option(
      '--summarizer-price <provider:model>',
      'price the summarizer calls at this model (default: --price)',
    )
    .action(async (files: string[], flags: EvalFlags) => {
      const price = await evalPrice(flags);
      const groups: Array<{ label: string; conversations: RecallConversation[] }> = [];
      if (flags.generate) {
        groups.push({
          label: `generated (seed ${flags.seed})`,
          conversations: generateRecallConversations({
            seed: flags.seed,
            conversations: flags.conversations,
          }),
        });
      }
      for (const file of files)
        groups.push({ label: file, conversations: await loadEvalFile(file) });
      if (flags.datasets) {
        for (const file of await datasetProbeFiles(io)) {
          groups.push({
            label: file.split('/').slice(-2, -1)[0] ?? file,
            conversations: await loadProbes(file),
          });
        }
      }
      if (groups.length === 0) {
        throw new CliUsageError({
          field: 'files',
          message: 'nothing to evaluate: pass FILE, --generate or --datasets',
        });
      }
      const report = await evaluateGroups(groups, flags, price, io);
      const memory = flags.memory ? await evaluateMemoryGroups(groups, flags) : undefined;
      if (flags.json) {
        writeJson(io, {
          threshold: flags.threshold,
          topK: flags.topK,
          elision: flags.elision,
          context: flags.context,
          ...(price ? { price: price.model.id } : {}),
          groups: report,
          ...(memory ? { memorySessions: flags.memorySessions, memory } : {}),
        });
        return;
      }
      io.stdout(
        `threshold ${flags.threshold} tokens, recall top ${flags.topK}, context ${flags.context}\n`,
      );
      io.stdout(
        `${'input'.padEnd(36)} ${'summ.'.padStart(5)} ${'elided'.padStart(6)} ${'sent tk'.padStart(7)} ${'answers'.padStart(7)} ${'(a) view'.padStart(8)} ${'(b) +recall'.padStart(12)} ${'(c) trunc'.padStart(10)} ${'(d) all'.padStart(8)} ${`recall@${flags.topK}`.padStart(9)} ${'(b)@10'.padStart(8)} ${'ev@5'.padStart(6)} ${'ev@10'.padStart(6)} ${'MRR'.padStart(6)}${price ? ` ${'USD'.padStart(9)} ${'USD w/o'.padStart(9)} ${'cached'.padStart(6)}` : ''}\n`,
      );
      for (const group of report) io.stdout(`${row(group.label, group.total)}\n`);
      if (memory) {
        io.stdout(
          `\nmemory across sessions (each conversation split into ${flags.memorySessions}), searchMemory top ${flags.topK}\n`,
        );
        io.stdout(
          `${'input'.padEnd(36)} ${'sessions'.padStart(8)} ${'answers'.padStart(7)} ${'in memory'.padStart(10)} ${'(d) all'.padStart(8)} ${`recall@${flags.topK}`.padStart(9)}\n`,
        );
        for (const group of memory) io.stdout(`${memoryRow(group.label, group.total)}\n`);
      }
    });
}
