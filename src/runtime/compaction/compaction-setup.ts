/**
 * The compaction a Runner (or an adapter) is built with: the config (from the options or the
 * environment), the summarizer and its fallback (docs/architecture.md#summarizers), and the
 * report of an attempt that threw.
 */
import type { Logger } from 'pino';
import {
  createEventsCompactionConfig,
  resolveReuseAgentPrefix,
  resolveSummarizerModel,
  validateEventsCompactionConfig,
} from '../../compaction/config.js';
import type { EventsCompactionConfig, EventsSummarizer } from '../../compaction/types.js';
import type { CompactionTrigger } from '../../events/types.js';
import type { ResolveModelOptions } from '../../models/resolve-model.js';
import type { Model } from '../../models/types.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { errorMessage } from '../../util/error-message.js';
import { RunnerConfigError } from '../errors.js';
import type { CompactionReport } from './compactor.js';
import { createDefaultSummarizer } from './default-summarizer.js';

/**
 * `undefined`: the config the environment gives (`null` when it turns compaction off); `null`:
 * off; a config: validated with the rules of `createEventsCompactionConfig`.
 */
export function resolveCompactionConfig(options: {
  compaction: EventsCompactionConfig | null | undefined;
  env: Record<string, string | undefined>;
}): EventsCompactionConfig | null {
  const { compaction, env } = options;
  if (compaction === undefined) return createEventsCompactionConfig({ env });
  return compaction === null ? null : validateEventsCompactionConfig(compaction);
}

/**
 * The summarizer tried when `summarizer` fails: the one given, else a `DigestSummarizer` (none
 * when `summarizer` is one already, or when `fallbackSummarizer` is `null`).
 */
export function fallbackSummarizerFor(options: {
  summarizer: EventsSummarizer;
  fallbackSummarizer?: EventsSummarizer | null;
}): EventsSummarizer | undefined {
  const { summarizer, fallbackSummarizer } = options;
  if (fallbackSummarizer === null) return undefined;
  return (
    fallbackSummarizer ??
    (summarizer instanceof DigestSummarizer ? undefined : new DigestSummarizer())
  );
}

/**
 * The Runner's summarizer: the `summarizer` option, else the config's, else the default over
 * the agent's or the configured model. A workflow root with none of these is a
 * `RunnerConfigError` naming the ways to give one.
 */
export function createRunnerSummarizer(options: {
  config: EventsCompactionConfig;
  summarizer?: EventsSummarizer;
  summarizerModel?: Model;
  agent: { name: string; model?: Model };
  env: Record<string, string | undefined>;
  resolveModel?: (options: ResolveModelOptions) => Promise<Model>;
  logger: Logger;
}): EventsSummarizer {
  const summarizer =
    options.summarizer ??
    options.config.summarizer ??
    createDefaultSummarizer({
      summarizerModel: options.summarizerModel,
      agentModel: options.agent.model,
      env: options.env,
      resolveModel: options.resolveModel,
      logger: options.logger,
      costAware: options.config.costAware !== undefined,
    });
  if (!summarizer) {
    throw new RunnerConfigError({
      field: 'summarizer',
      value: undefined,
      message: `the root agent '${options.agent.name}' has no model (a workflow) and compaction is on, so there is no model to summarize with: pass a summarizer (Runner option 'summarizer' or compaction config 'summarizer', e.g. new DigestSummarizer()), a 'summarizerModel', or ORRERY_COMPACTION_MODEL; or turn compaction off with compaction: null`,
    });
  }
  return summarizer;
}

/**
 * The model id whose requests a summary may re-send as its prefix
 * (docs/cost.md#summaries-that-reuse-the-agents-cache): the default summarizer's model when
 * `reuseAgentPrefix` is on; `undefined` when it is off or the summarizer was given (its model is
 * not known to be the agent's).
 */
export function agentPrefixModelId(options: {
  config: EventsCompactionConfig;
  summarizer?: EventsSummarizer;
  summarizerModel?: Model;
  agent: { model?: Model };
  env: Record<string, string | undefined>;
}): string | undefined {
  const { config, agent } = options;
  if (!resolveReuseAgentPrefix(config) || options.summarizer || config.summarizer) return undefined;
  if (options.summarizerModel) return options.summarizerModel.modelId;
  return (
    resolveSummarizerModel({
      agentModelId: agent.model?.modelId,
      env: options.env,
      costAware: config.costAware !== undefined,
    }) ?? agent.model?.modelId
  );
}

/** The report of an attempt that threw (a compaction failure never reaches the user's turn). */
export function failedCompactionReport(options: {
  sessionId: string;
  trigger: CompactionTrigger;
  error: unknown;
  durationMs?: number;
}): CompactionReport {
  return {
    sessionId: options.sessionId,
    trigger: options.trigger,
    outcome: 'failed',
    reason: errorMessage(options.error),
    tokensBefore: 0,
    durationMs: options.durationMs ?? 0,
    error: options.error,
  };
}
