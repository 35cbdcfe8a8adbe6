/**
 * Dollars of a replay (docs/cost.md#replay-cost): each model request with compaction and without,
 * as the provider's prompt cache bills it, plus the summarizer's own calls at the summarizer
 * model's price. Built from the report alone, so it prices any replay after the fact.
 *
 * What each request shares with the previous one: without compaction a session only grows, so a
 * request repeats the whole previous request. With compaction the same holds between
 * compactions; the request after a compaction (or an elision rule, which rewrites old outputs in
 * place) shares only the instructions and tools. Cache hints (`cacheHints`) put Anthropic
 * breakpoints after the stable prefix and at the moving tail, as `fromAiSdk` sends them; without
 * them Anthropic caches nothing, and the automatic caches (OpenAI, Gemini) are unchanged.
 */
import { compactionPayback } from '../../costs/payback.js';
import type { PromptCachePolicy } from '../../costs/prompt-cache.js';
import { requestCosts } from '../../costs/session-cost.js';
import type { CacheRequest, TokenPrices } from '../../costs/types.js';
import { AGENT_REQUEST_DEFAULTS } from '../compaction/agent-request-log.js';
import type { ReplayReport } from './types.js';

/** One side of the comparison. `usd` includes `summarizerUsd`. */
export interface ReplayCostFigures {
  /** Every prompt token sent to the agent's model (cache reads and writes included). */
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  /**
   * The summarizer's calls: on the agent's model with prefix reuse, its cached prefix read at the
   * cache price (`summarizerReusesAgentPrefix`); on a model of its own, uncached.
   */
  summarizerUsd: number;
  usd: number;
}

export interface ReplayCost {
  /** `provider:model` priced. */
  model: string;
  currency: 'USD';
  /** `provider:model` of the summarizer's price. */
  summarizerModel: string;
  /**
   * The summarizer is the agent's model and re-sends the agent's last request
   * (docs/cost.md#summaries-that-reuse-the-agents-cache): its calls are priced that way.
   */
  summarizerReusesAgentPrefix: boolean;
  cacheHints: boolean;
  withCompaction: ReplayCostFigures;
  withoutCompaction: ReplayCostFigures;
  /**
   * Each compaction's payback (docs/cost.md#payback): the later calls it needed to repay its
   * summarizer call and prefix rewrite, against the calls the session had left after it.
   */
  compactions: ReplayCompactionCost[];
  /**
   * USD of each model call in order (the agent's model, cache split included; summarizer calls
   * are in `compactions`): what the inspector's chart shows per call.
   */
  perCallUsd: { withCompaction: number[]; withoutCompaction: number[] };
}

export interface ReplayCompactionCost {
  /** The model call (1-based) it ran before, as in the report. */
  beforeCall: number;
  summarizerUsd: number;
  /** Later calls needed to repay it; `null` when it never can (it removed nothing). */
  paybackCalls: number | null;
  /** Calls after the first one that followed it in the session. */
  callsAfter: number;
}

export interface PricedModel {
  /** `provider:model`. */
  id: string;
  prices: TokenPrices;
  policy: PromptCachePolicy;
}

export interface ReplayCostOptions {
  report: ReplayReport;
  model: PricedModel;
  /** Default: `model`. */
  summarizer?: PricedModel;
  /** Place cache hints (Anthropic breakpoints). Default true. */
  cacheHints?: boolean;
  /** Tokens of the summarizer's own instructions, added to each call's input. Default 500. */
  summarizerPromptTokens?: number;
  /**
   * Price a summarizer on the agent's model as the runtime calls it by default: the agent's last
   * request re-sent (its cached prefix) plus the newer events and the instruction. Default true;
   * ignored for a summarizer model of its own.
   */
  reuseAgentPrefix?: boolean;
}

export function replayCost(options: ReplayCostOptions): ReplayCost {
  const { report, model } = options;
  const summarizer = options.summarizer ?? model;
  const cacheHints = options.cacheHints ?? true;
  const policy: PromptCachePolicy =
    cacheHints || model.policy.provider !== 'anthropic' ? model.policy : { provider: 'none' };
  const withRequests = cacheRequests(report, 'withCompaction', cacheHints);
  const withoutRequests = cacheRequests(report, 'withoutCompaction', cacheHints);
  const reusesPrefix = options.reuseAgentPrefix !== false && summarizer.id === model.id;
  const perCompaction = summarizerCosts({
    report,
    prices: summarizer.prices,
    promptTokens: options.summarizerPromptTokens ?? 500,
    ...(reusesPrefix ? { agentPolicy: policy, cacheHints } : {}),
  });
  const summarizerUsd = perCompaction.reduce((total, usd) => total + usd, 0);
  const cached = policy.provider !== 'none';
  const compactions = report.compactions.map((compaction, index) => {
    const own = perCompaction[index] ?? 0;
    const { paybackCalls } = compactionPayback({
      prices: model.prices,
      cached,
      billsWrites:
        policy.provider === 'anthropic' ||
        (policy.provider === 'google' && policy.mode === 'explicit'),
      tokensBefore: compaction.tokensBefore,
      tokensAfter: compaction.tokensAfter,
      overheadTokens: report.overheadTokens,
      summarizerUsd: own,
    });
    return {
      beforeCall: compaction.beforeCall,
      summarizerUsd: own,
      paybackCalls: Number.isFinite(paybackCalls) ? paybackCalls : null,
      callsAfter: Math.max(0, report.modelCalls - compaction.beforeCall),
    };
  });
  const withCosts = requestCosts({ prices: model.prices, policy, requests: withRequests });
  const withoutCosts = requestCosts({ prices: model.prices, policy, requests: withoutRequests });
  return {
    model: model.id,
    currency: 'USD',
    summarizerModel: summarizer.id,
    summarizerReusesAgentPrefix: reusesPrefix,
    cacheHints,
    withCompaction: figures(withCosts, summarizerUsd),
    withoutCompaction: figures(withoutCosts, 0),
    compactions,
    perCallUsd: {
      withCompaction: withCosts.map((cost) => cost.usd),
      withoutCompaction: withoutCosts.map((cost) => cost.usd),
    },
  };
}

/** Each request as the cache sees it. */
export function cacheRequests(
  report: ReplayReport,
  side: 'withCompaction' | 'withoutCompaction',
  cacheHints: boolean,
): CacheRequest[] {
  // Calls (1-based) before which the prefix after the instructions and tools was rewritten.
  const rewrites = new Set<number>();
  if (side === 'withCompaction') {
    for (const compaction of report.compactions) rewrites.add(compaction.beforeCall);
    for (const elision of report.elisions ?? []) rewrites.add(elision.beforeCall);
  }
  const stable = report.overheadTokens;
  return report.requests.map((request, index) => {
    const inputTokens = request[side];
    const previous = report.requests[index - 1];
    let shared = 0;
    if (previous) {
      shared = rewrites.has(index + 1)
        ? Math.min(stable, inputTokens)
        : Math.min(previous[side], inputTokens);
    }
    const gap = previous ? Math.max(0, request.timestamp - previous.timestamp) : undefined;
    return {
      inputTokens,
      outputTokens: request.outputTokens,
      sharedPrefixTokens: shared,
      ...(cacheHints ? { breakpoints: [Math.min(stable, inputTokens), inputTokens] } : {}),
      ...(gap === undefined ? {} : { secondsSincePrevious: gap }),
    };
  });
}

/**
 * Each compaction's summarizer call, in order. Standalone: it reads the previous summary and the
 * summarized range (`tokensBefore - tokensAfter + summaryTokens`: the request before, less what
 * stayed) plus its own instructions, uncached, and writes the summary. On the agent's prefix
 * (`agentPolicy` set): it re-sends the agent's previous request, which that request left in the
 * cache, plus the events since (`tokensBefore` is the next request's size) and the instruction,
 * billed as the provider's cache bills the pair (a read of the prefix while its entry lives;
 * with Anthropic breakpoints the rest is written, as the runtime sends the same hints).
 */
function summarizerCosts(options: {
  report: ReplayReport;
  prices: TokenPrices;
  promptTokens: number;
  agentPolicy?: PromptCachePolicy;
  cacheHints?: boolean;
}): number[] {
  const { report, prices, promptTokens, agentPolicy } = options;
  const stable = report.overheadTokens;
  return report.compactions.map((compaction) => {
    const previous = report.requests[compaction.beforeCall - 2];
    const next = report.requests[compaction.beforeCall - 1];
    const gap = previous && next ? Math.max(0, next.timestamp - previous.timestamp) : 0;
    // The runtime hands out no request older than a cache lives (agent-request-log.ts).
    if (agentPolicy && previous && gap * 1000 <= AGENT_REQUEST_DEFAULTS.maxAgeMs) {
      const sent = previous.withCompaction;
      const input = Math.max(compaction.tokensBefore, sent) + promptTokens;
      const hints = (tokens: number) =>
        options.cacheHints ? { breakpoints: [Math.min(stable, tokens), tokens] } : {};
      const [, cost] = requestCosts({
        prices,
        policy: agentPolicy,
        requests: [
          { inputTokens: sent, outputTokens: 0, sharedPrefixTokens: 0, ...hints(sent) },
          {
            inputTokens: input,
            outputTokens: compaction.summaryTokens,
            sharedPrefixTokens: sent,
            secondsSincePrevious: gap,
            ...hints(input),
          },
        ],
      });
      return cost?.usd ?? 0;
    }
    const read =
      Math.max(0, compaction.tokensBefore - compaction.tokensAfter + compaction.summaryTokens) +
      promptTokens;
    const [cost] = requestCosts({
      prices,
      policy: { provider: 'none' },
      requests: [
        { inputTokens: read, outputTokens: compaction.summaryTokens, sharedPrefixTokens: 0 },
      ],
    });
    return cost?.usd ?? 0;
  });
}

function figures(costs: ReturnType<typeof requestCosts>, summarizerUsd: number): ReplayCostFigures {
  const total = {
    inputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 0,
    summarizerUsd,
    usd: summarizerUsd,
  };
  for (const cost of costs) {
    total.inputTokens += cost.inputTokens;
    total.cacheReadTokens += cost.cacheReadTokens;
    total.cacheWriteTokens += cost.cacheWriteTokens;
    total.outputTokens += cost.outputTokens;
    total.usd += cost.usd;
  }
  return total;
}
