/** The dollars of `orrery replay --price` as report lines (docs/cost.md#replay-cost). */
import type { ReplayCost, ReplayCostFigures } from '../runtime/replay/replay-cost.js';
import { groupDigits } from '../util/group-digits.js';
import { writeJson } from './common.js';
import type { CliIo } from './io.js';
import { table } from './text-table.js';

/** $0.0123 below a dollar, $12.34 above. */
export function usd(value: number): string {
  return value < 1 ? `$${value.toFixed(4)}` : `$${value.toFixed(2)}`;
}

/** Share of the prompt tokens that were cache reads, as a whole percent. */
export function cacheReadShare(figures: ReplayCostFigures): number {
  return figures.inputTokens > 0
    ? Math.round((figures.cacheReadTokens / figures.inputTokens) * 100)
    : 0;
}

export function costLines(cost: ReplayCost): string[] {
  const side = (label: string, figures: ReplayCostFigures) =>
    `  ${label} ${usd(figures.usd)} · ${groupDigits(figures.inputTokens)} input tokens, ${cacheReadShare(figures)}% cache reads, ${groupDigits(figures.cacheWriteTokens)} cache writes${figures.summarizerUsd > 0 ? ` · summarizer ${usd(figures.summarizerUsd)}` : ''}`;
  const { withCompaction, withoutCompaction } = cost;
  const saved =
    withoutCompaction.usd > 0
      ? Math.round((1 - withCompaction.usd / withoutCompaction.usd) * 100)
      : 0;
  return [
    `Cost at ${cost.model} catalog prices (USD; summarizer at ${cost.summarizerModel}${cost.summarizerReusesAgentPrefix ? " on the agent's cached prefix" : ''}; cache hints ${cost.cacheHints ? 'on' : 'off'})`,
    side('with compaction   ', withCompaction),
    side('without compaction', withoutCompaction),
    `  compaction ${saved >= 0 ? `saves ${saved}%` : `costs ${-saved}% more`}`,
    ...paybackLine(cost),
  ];
}

/** How many compactions repaid their summarizer call and prefix rewrite within the session. */
function paybackLine(cost: ReplayCost): string[] {
  const { compactions } = cost;
  if (compactions.length === 0) return [];
  const repaid = compactions.filter(
    (compaction) =>
      compaction.paybackCalls !== null && compaction.paybackCalls <= compaction.callsAfter,
  ).length;
  const needed = compactions
    .map((compaction) => compaction.paybackCalls)
    .filter((calls): calls is number => calls !== null)
    .sort((left, right) => left - right);
  const median = needed[Math.floor(needed.length / 2)];
  return [
    `  ${repaid} of ${compactions.length} compactions repaid themselves within the session${median === undefined ? '' : ` (median payback ${median} calls)`}`,
  ];
}

/** One threshold of `--compare-thresholds`: its compactions and summed cost. */
export interface ThresholdRow {
  threshold: number;
  compactions: number;
  cost: ReplayCost;
}

/**
 * The thresholds side by side and the cheapest with compaction (docs/cost.md#choosing-a-threshold).
 * Without compaction is the same at every threshold: it is printed once.
 */
export function printThresholdComparison(options: {
  io: CliIo;
  rows: ThresholdRow[];
  json: boolean;
}): void {
  const { io, rows } = options;
  const cheapest = rows.reduce<ThresholdRow | undefined>(
    (best, row) =>
      best === undefined || row.cost.withCompaction.usd < best.cost.withCompaction.usd ? row : best,
    undefined,
  );
  if (options.json) {
    writeJson(io, {
      model: cheapest?.cost.model,
      cheapestThreshold: cheapest?.threshold,
      thresholds: rows.map((row) => ({
        threshold: row.threshold,
        compactions: row.compactions,
        withCompaction: row.cost.withCompaction,
        withoutCompaction: row.cost.withoutCompaction,
      })),
    });
    return;
  }
  const first = rows[0];
  io.stdout(
    `Cost per threshold at ${first?.cost.model ?? ''} catalog prices (USD; cache hints ${first?.cost.cacheHints === false ? 'off' : 'on'})\n\n`,
  );
  const body = rows.map((row) => [
    groupDigits(row.threshold),
    String(row.compactions),
    usd(row.cost.withCompaction.usd),
    usd(row.cost.withCompaction.summarizerUsd),
    `${cacheReadShare(row.cost.withCompaction)}%`,
    row === cheapest ? 'cheapest' : '',
  ]);
  io.stdout(
    `${table(['threshold', 'compactions', 'USD with', 'summarizer', 'cache reads', ''], body).join('\n')}\n`,
  );
  if (first) io.stdout(`\nwithout compaction ${usd(first.cost.withoutCompaction.usd)}\n`);
}
