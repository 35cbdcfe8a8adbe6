/**
 * Cost-aware compaction at run time (docs/cost.md#cost-aware-compaction): the catalog prices of
 * `compaction.costAware`, and the figures of a session's view the pure choice
 * (`chooseCompaction`, src/costs) needs: the next request, the summary, each depth's retained
 * tail, the growth per call, the calls so far and whether the cache went cold.
 */

import { retainedCount, retentionTokensFor } from '../../compaction/triggers.js';
import type {
  CostAwareConfig,
  CostChoiceNote,
  EventsCompactionConfig,
  RetentionOverride,
} from '../../compaction/types.js';
import { type CacheBilling, chooseCompaction } from '../../costs/compaction-choice.js';
import { defaultCachePolicy } from '../../costs/default-policy.js';
import type { PromptCachePolicy } from '../../costs/prompt-cache.js';
import type { TokenPrices } from '../../costs/types.js';
import type { CompactionEvent, Event } from '../../events/types.js';
import { ModelConfigError } from '../../models/errors.js';
import { lookupModelPrice } from '../../models/price-catalog.js';

/** The prices and cache rules cost-aware compaction works with. */
export interface CostAwareModel {
  prices: TokenPrices;
  summarizerPrices: TokenPrices;
  cache: CacheBilling;
  /** Seconds an unused cached prefix lives (past it, the next request writes it again). */
  ttlSeconds: number;
  /** Summaries re-send the agent's request, its prefix read from the cache (`chooseCompaction`). */
  summaryReusesPrefix?: boolean;
}

/** A summary's expected size before the first one exists (tokens). */
export const EXPECTED_SUMMARY_TOKENS = 2_000;

/** Deeper depths tried besides the configured one: these shares of its retained-tail budget. */
export const DEEPER_RETENTION_SHARES = [0.5, 0.25] as const;

/** Early (under-threshold) compaction is considered from this share of the threshold on. */
export const EARLIEST_COMPACTION_SHARE = 0.5;

/** How a policy bills the prefix. */
export function cacheBilling(policy: PromptCachePolicy): CacheBilling {
  if (policy.provider === 'none') return 'none';
  if (policy.provider === 'anthropic') return 'written';
  if (policy.provider === 'google' && policy.mode === 'explicit') return 'written';
  return 'automatic';
}

function cacheTtlSeconds(policy: PromptCachePolicy): number {
  if (policy.provider === 'anthropic') return policy.ttl === '1h' ? 3600 : 300;
  if (policy.provider === 'none') return 0;
  return policy.ttlSeconds ?? 300;
}

function splitModelId(id: string, field: string): { provider: string; model: string } {
  const colon = id.indexOf(':');
  const provider = colon === -1 ? '' : id.slice(0, colon).trim();
  const model = colon === -1 ? '' : id.slice(colon + 1).trim();
  if (provider === '' || model === '') {
    throw new ModelConfigError({
      variable: field,
      value: id,
      message: `${field} '${id}' is malformed: expected 'provider:model'`,
    });
  }
  return { provider, model };
}

/**
 * The catalog prices of `costAware` (an unknown model is a `ModelConfigError` naming it). The
 * summarizer's: `summarizerPrice`, else `summarizerModelId` (the summarizer's own model) when
 * the catalog lists it, else `price`.
 */
export async function resolveCostAwareModel(
  config: CostAwareConfig,
  summarizerModelId?: string,
  /** Summaries will re-send the agent's cached request (docs/cost.md). Default false. */
  summaryReusesPrefix = false,
): Promise<CostAwareModel> {
  const agent = splitModelId(config.price, 'costAware.price');
  const price = await lookupModelPrice(agent);
  let summarizer = price;
  if (config.summarizerPrice !== undefined) {
    summarizer = await lookupModelPrice(
      splitModelId(config.summarizerPrice, 'costAware.summarizerPrice'),
    );
  } else if (summarizerModelId !== undefined && /^[a-z][a-z0-9-]*:\S+$/i.test(summarizerModelId)) {
    summarizer = await lookupModelPrice(splitModelId(summarizerModelId, 'summarizer')).catch(
      () => price,
    );
  }
  const policy = defaultCachePolicy({ provider: price.catalogProvider, model: agent.model });
  return {
    prices: price.prices,
    summarizerPrices: summarizer.prices,
    cache: cacheBilling(policy),
    ttlSeconds: cacheTtlSeconds(policy),
    summaryReusesPrefix,
  };
}

export interface CostAwareDecisionOptions {
  model: CostAwareModel;
  config: EventsCompactionConfig;
  checkpoint?: CompactionEvent;
  tail: readonly Event[];
  /** The next request's estimate (tokens), overhead included. */
  requestTokens: number;
  overheadTokens: number;
  /** Seconds since the epoch, now (the cache's age is measured against the last model answer). */
  nowSeconds: number;
  estimateEvent: (event: Event) => number;
}

/** What the guard does with a choice: compact (with this retention, forced when early) or not. */
export interface CostAwareDecision {
  compact: boolean;
  /** Under the threshold: the planner must not skip it as `below_threshold`. */
  force: boolean;
  retention?: RetentionOverride;
  note?: CostChoiceNote;
}

/** The cost-aware decision for the next request (token trigger only). */
export function costAwareDecision(options: CostAwareDecisionOptions): CostAwareDecision {
  const { config, tail, model, requestTokens, overheadTokens, estimateEvent } = options;
  const threshold = config.tokenThreshold;
  const over = threshold !== undefined && requestTokens >= threshold;
  if (!threshold || (!over && requestTokens < threshold * EARLIEST_COMPACTION_SHARE)) {
    return { compact: over, force: false };
  }
  const budget = config.retentionTokenBudget ?? retentionTokensFor(threshold);
  const budgets = [budget, ...DEEPER_RETENTION_SHARES.map((share) => Math.floor(budget * share))];
  const events = [...tail].filter((event) => !event.actions?.compaction);
  const retainedTokens = budgets.map((tokens) => {
    const count = retainedCount({ tail: events, events: config.eventRetentionSize ?? 0, tokens });
    return events
      .slice(events.length - count)
      .reduce((sum, event) => sum + estimateEvent(event), 0);
  });
  const summaryTokens = options.checkpoint
    ? estimateEvent(options.checkpoint)
    : EXPECTED_SUMMARY_TOKENS;
  const modelEvents = events.filter(isModelAnswer);
  const callsSinceCheckpoint = Math.max(1, modelEvents.length);
  // Events a checkpoint summarized count as half a call each (a call and its result).
  const range = options.checkpoint?.actions.compaction;
  const summarizedCalls = range ? Math.floor((range.endSeq - range.startSeq + 1) / 2) : 0;
  const base = overheadTokens + (options.checkpoint ? summaryTokens : 0);
  const growthPerCall = Math.max(0, requestTokens - base) / callsSinceCheckpoint;
  const lastAnswer = modelEvents[modelEvents.length - 1];
  const cacheCold =
    lastAnswer !== undefined &&
    model.cache !== 'none' &&
    options.nowSeconds - lastAnswer.timestamp > model.ttlSeconds;
  const choice = chooseCompaction({
    prices: model.prices,
    summarizerPrices: model.summarizerPrices,
    cache: model.cache,
    requestTokens,
    thresholdTokens: threshold,
    overheadTokens,
    summaryTokens,
    retainedTokens,
    growthPerCall,
    elapsedCalls: callsSinceCheckpoint + summarizedCalls,
    cacheCold,
    summaryReusesPrefix: model.summaryReusesPrefix,
  });
  if (choice.action === 'wait' || choice.reason === 'wait') return { compact: over, force: false };
  return {
    compact: true,
    force: !over,
    retention: { tokens: budgets[choice.depth] ?? budget },
    note: {
      reason: choice.reason,
      retainedTokens: choice.retainedTokens,
      expectedUsd: choice.expectedUsd,
      thresholdOnlyUsd: choice.thresholdOnlyUsd,
    },
  };
}

function isModelAnswer(event: Event): boolean {
  return event.author !== 'user' && event.content?.role === 'model';
}

/**
 * `config.costAware`'s prices, looked up once on first use (the catalog is a large module);
 * `undefined` when cost-aware compaction is off.
 */
export function lazyCostAwareModel(
  config: EventsCompactionConfig | null | undefined,
  /** The summarizer's name (its model id for a model summarizer), read at first use. */
  summarizerName?: () => string | undefined,
  /** Summaries re-send the agent's cached request (the Runner's agent-prefix summaries). */
  summaryReusesPrefix = false,
): (() => Promise<CostAwareModel | undefined>) | undefined {
  const costAware = config?.costAware;
  if (!costAware) return undefined;
  let model: Promise<CostAwareModel> | undefined;
  return () => {
    model ??= resolveCostAwareModel(costAware, summarizerName?.(), summaryReusesPrefix);
    return model;
  };
}

/**
 * The after-invocation token trigger (due: the request is at or over the threshold): the
 * retention and note of the cheapest depth, or nothing when cost-aware compaction is off.
 */
export async function costAwareDepth(
  options: Omit<CostAwareDecisionOptions, 'model'> & {
    costModel: (() => Promise<CostAwareModel | undefined>) | undefined;
  },
): Promise<{ retention?: RetentionOverride; costChoice?: CostChoiceNote }> {
  const { costModel, ...rest } = options;
  const model = await costModel?.();
  if (!model) return {};
  const decision = costAwareDecision({ ...rest, model });
  return {
    ...(decision.retention && { retention: decision.retention }),
    ...(decision.note && { costChoice: decision.note }),
  };
}
