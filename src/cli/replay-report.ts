/** Human output of `orrery replay`: a report a person can read in ten seconds. */
import type { ReplayCompaction, ReplayReport } from '../runtime/replay/replay.js';
import type { ReplayCost } from '../runtime/replay/replay-cost.js';
import { groupDigits } from '../util/group-digits.js';
import { plural } from '../util/plural.js';
import { costLines } from './replay-cost-lines.js';
import { table } from './text-table.js';

export interface ReportHeader {
  label: string;
  format: string;
  threshold?: number;
  /** The byte ceiling the requests were held under, when set. */
  maxRequestBytes?: number;
  summarizer: string;
  sessionId?: string;
  invocations: number;
  repairs: string;
}

const BLOCKS = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

const number = groupDigits;

/** 12345 -> "12.3k", 1234567 -> "1.23M". */
export function compact(value: number): string {
  if (value >= 1_000_000) return `${(value / 1_000_000).toFixed(2)}M`;
  if (value >= 10_000) return `${Math.round(value / 1000)}k`;
  if (value >= 1000) return `${(value / 1000).toFixed(1)}k`;
  return String(value);
}

/** `cold_cache, tail 1.9k, $0.41 vs $0.44`: why, the retained tail, expected USD vs threshold-only. */
export function costChoiceCell(choice: ReplayReport['compactions'][number]['costChoice']): string {
  if (!choice) return '-';
  return `${choice.reason}, tail ${compact(choice.retainedTokens)}, $${choice.expectedUsd.toFixed(2)} vs $${choice.thresholdOnlyUsd.toFixed(2)}`;
}

export function renderReport(
  header: ReportHeader,
  result: ReplayReport,
  cost?: ReplayCost,
): string {
  const lines: string[] = [];
  lines.push(`orrery replay · ${header.label} (${header.format})`);
  const settings = [
    plural(result.events, 'event'),
    plural(result.modelCalls, 'model call'),
    plural(header.invocations, 'invocation'),
    header.threshold ? `threshold ${number(header.threshold)} tokens` : 'token trigger off',
    ...(header.maxRequestBytes === undefined
      ? []
      : [`byte ceiling ${number(header.maxRequestBytes)}`]),
    `summarizer ${header.summarizer}`,
  ];
  lines.push(`  ${settings.join(' · ')}`);
  lines.push(`  import repairs: ${header.repairs}`);
  if (header.sessionId) lines.push(`  session: ${header.sessionId}`);
  lines.push('');

  if (result.compactions.length === 0) {
    lines.push(
      header.threshold
        ? `Compactions: none (no request reached the threshold${header.maxRequestBytes === undefined ? '' : ' or the byte ceiling'})`
        : 'Compactions: none (token trigger off)',
    );
  } else {
    lines.push(`Compactions (${result.compactions.length})`);
    // The cost-aware column only when cost-aware compaction chose something (docs/cost.md).
    const costAware = result.compactions.some((compaction) => compaction.costChoice);
    const rows = result.compactions.map((compaction, index) => [
      String(index + 1),
      compaction.trigger,
      compaction.beforeCall > result.modelCalls ? 'end' : `call ${compaction.beforeCall}`,
      `${(result.compactions[index - 1]?.endSeq ?? compaction.startSeq - 1) + 1}-${compaction.endSeq}`,
      `${number(compaction.tokensBefore)} -> ${number(compaction.tokensAfter)}`,
      ...(costAware ? [costChoiceCell(compaction.costChoice)] : []),
    ]);
    lines.push(
      ...table(
        [
          '#',
          'trigger',
          'before',
          'events summarized',
          'request tokens before -> after',
          ...(costAware ? ['cost-aware choice'] : []),
        ],
        rows,
        '  ',
      ),
    );
  }
  lines.push(...elisionLines(result));
  lines.push(...fallbackLines(result.compactions));
  if (result.failures.length > 0) {
    lines.push(
      `  ${plural(result.failures.length, 'compaction attempt')} failed: ${result.failures[0]}`,
    );
  }
  lines.push('');
  if (result.requests.length > 0) {
    lines.push('Request size per model call (estimated tokens)');
    lines.push(...chart(result, header.threshold));
    lines.push('');
  }

  const largestIndex = result.requests.findIndex(
    (request) => request.withCompaction === result.maxViewTokens,
  );
  const without = result.tokens.withoutCompaction;
  const saved = without > 0 ? Math.round((1 - result.tokens.withCompaction / without) * 100) : 0;
  const maxWithout = Math.max(0, ...result.requests.map((request) => request.withoutCompaction));
  lines.push(
    ...table(
      [],
      [
        [
          'largest request',
          `${number(result.maxViewTokens)} tokens${largestIndex >= 0 ? ` (call ${largestIndex + 1})` : ''}; without compaction ${number(maxWithout)}`,
        ],
        [
          'request tokens',
          `${number(result.tokens.withCompaction)} with compaction, ${number(without)} without (${saved}% less)`,
        ],
        ...(header.maxRequestBytes === undefined
          ? []
          : [
              [
                'largest bytes',
                `${number(result.maxViewBytes)} bytes; byte ceiling ${number(header.maxRequestBytes)}`,
              ],
            ]),
        ['orphans', `${plural(result.orphans, 'request')} with an unpaired call or response`],
        [
          'lossless',
          result.lossless
            ? `yes: all ${number(result.events)} imported events are stored unchanged`
            : 'NO: the stored history differs from the import',
        ],
      ],
      '  ',
    ),
  );
  if (result.recordedCompactionsIgnored > 0) {
    lines.push(
      `  (${plural(result.recordedCompactionsIgnored, 'compaction')} recorded in the file ${result.recordedCompactionsIgnored === 1 ? 'was' : 'were'} left out and re-decided)`,
    );
  }
  if (cost) lines.push('', ...costLines(cost));
  lines.push(...branchLines(result));
  return `${lines.join('\n')}\n`;
}

/** Per branch, for a transcript with workflow branches (each request on its branch's view). */
function branchLines(result: ReplayReport): string[] {
  if (!result.branches) return [];
  const rows = result.branches.map((entry) => [
    entry.branch === '' ? '(trunk)' : entry.branch,
    String(entry.modelCalls),
    number(entry.maxViewTokens),
    number(entry.maxViewBytes),
    String(entry.compactions),
    String(entry.orphans),
  ]);
  return [
    '',
    'Per branch (each request on its own branch view)',
    ...table(
      ['branch', 'calls', 'largest tokens', 'largest bytes', 'compactions', 'orphans'],
      rows,
      '  ',
    ),
  ];
}

/**
 * The elision rules recorded (docs/architecture.md#elision-the-cheap-tier), as compactions are
 * listed; nothing when none was (the tier is off by default).
 */
function elisionLines(result: ReplayReport): string[] {
  const elisions = result.elisions ?? [];
  if (elisions.length === 0) return [];
  const rows = elisions.map((elision, index) => [
    String(index + 1),
    elision.trigger,
    elision.beforeCall > result.modelCalls ? 'end' : `call ${elision.beforeCall}`,
    `1-${elision.throughSeq}`,
    number(elision.elidedOutputs),
    `${number(elision.tokensBefore)} -> ${number(elision.tokensAfter)}`,
  ]);
  return [
    '',
    `Elision rules (${elisions.length})`,
    ...table(
      [
        '#',
        'trigger',
        'before',
        'events covered',
        'outputs elided',
        'request tokens before -> after',
      ],
      rows,
      '  ',
    ),
  ];
}

/**
 * Summaries a fallback wrote, by the summarizer that failed: "3 summarizer attempts by
 * google:gemini-2.5-flash failed and fell back to digest (first: fetch failed)".
 */
export function fallbackLines(compactions: ReplayCompaction[]): string[] {
  const byFailed = new Map<string, ReplayCompaction[]>();
  for (const compaction of compactions) {
    if (!compaction.fallback) continue;
    const group = byFailed.get(compaction.fallback.from) ?? [];
    group.push(compaction);
    byFailed.set(compaction.fallback.from, group);
  }
  return [...byFailed].map(([failed, group]) => {
    const writers = [...new Set(group.map((compaction) => compaction.summarizer))].join(', ');
    const reason = group.find((compaction) => compaction.fallback?.reason)?.fallback?.reason;
    return `  ${plural(group.length, 'summarizer attempt')} by ${failed} failed and fell back to ${writers}${reason ? ` (first: ${reason.replace(/\s+/g, ' ').slice(0, 200)})` : ''}`;
  });
}

/** Columns of calls (bucketed to fit), bars of the request with compaction, shade without. */
function chart(result: ReplayReport, threshold: number | undefined): string[] {
  const width = Math.min(64, result.requests.length);
  const height = 10;
  const columns: Array<{ with: number; without: number; compacted: boolean }> = [];
  const perColumn = result.requests.length / width;
  const compactedCalls = new Set(result.compactions.map((compaction) => compaction.beforeCall));
  for (let column = 0; column < width; column++) {
    const start = Math.floor(column * perColumn);
    const end = Math.max(start + 1, Math.floor((column + 1) * perColumn));
    let withMax = 0;
    let withoutMax = 0;
    let compacted = false;
    for (let index = start; index < end; index++) {
      const request = result.requests[index];
      if (!request) continue;
      withMax = Math.max(withMax, request.withCompaction);
      withoutMax = Math.max(withoutMax, request.withoutCompaction);
      if (compactedCalls.has(index + 1)) compacted = true;
    }
    columns.push({ with: withMax, without: withoutMax, compacted });
  }
  const top = Math.max(1, ...columns.map((column) => column.without), threshold ?? 0);
  const label = (value: number) => compact(value).padStart(6);
  const rowSize = top / height;
  const thresholdRow = threshold ? Math.min(height - 1, Math.floor(threshold / rowSize)) : -1;
  const rows: string[] = [];
  for (let row = height - 1; row >= 0; row--) {
    const bottom = row * rowSize;
    let line = '';
    for (const column of columns) {
      const filled = Math.min(1, Math.max(0, (column.with - bottom) / rowSize));
      const eighths = Math.round(filled * 8);
      if (eighths > 0) line += BLOCKS[eighths];
      else if (column.without >= bottom + rowSize / 2) line += '░';
      else line += row === thresholdRow ? '-' : ' ';
    }
    const axis =
      row === height - 1
        ? label(top)
        : row === thresholdRow
          ? label(threshold ?? 0)
          : row === 0
            ? label(0)
            : '      ';
    rows.push(`  ${axis} ┤${line}`);
  }
  rows.push(`         └${'─'.repeat(columns.length)}`);
  if (columns.some((column) => column.compacted)) {
    rows.push(
      `          ${columns
        .map((column) => (column.compacted ? '▲' : ' '))
        .join('')
        .trimEnd()}`,
    );
  }
  rows.push(
    `          call 1${' '.repeat(Math.max(1, columns.length - 6 - String(result.requests.length).length - 5))}call ${result.requests.length}`,
  );
  rows.push(
    `          █ with compaction   ░ without${threshold ? '   - threshold' : ''}${columns.some((column) => column.compacted) ? '   ▲ compaction' : ''}`,
  );
  return rows;
}
