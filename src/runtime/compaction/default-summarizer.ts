/**
 * The Runner's default summarizer (docs/architecture.md#summarizers): `summarizerModel`, else the
 * model `resolveSummarizerModel()` names. Its settings (provider, key, URL) are checked when the
 * Runner is built; the provider package is loaded at the first compaction.
 */
import type { Logger } from 'pino';
import { COMPACTION_ENV, resolveSummarizerModel } from '../../compaction/config.js';
import type { EventsSummarizer, SummarizeOptions, Summary } from '../../compaction/types.js';
import {
  checkModelSettings,
  type ResolveModelOptions,
  resolveModel,
} from '../../models/resolve-model.js';
import type { Model } from '../../models/types.js';
import { fallbackReason } from '../../summarizers/fallback-reason.js';
import { LlmEventSummarizer } from '../../summarizers/llm-event-summarizer.js';
import { RunnerConfigError } from '../errors.js';

/**
 * `summarizerModel`, else the model `resolveSummarizerModel()` names: the agent's own when the
 * ids match, otherwise built at the first compaction, falling back to the agent's own model when
 * that fails (each compaction it writes records `fallback`). With the default resolver the
 * settings are checked here: a model named by `ORRERY_COMPACTION_MODEL` that cannot be built
 * throws `RunnerConfigError`. `undefined` for a workflow root with nothing configured.
 */
export function createDefaultSummarizer(options: {
  summarizerModel?: Model;
  agentModel?: Model;
  env: Record<string, string | undefined>;
  resolveModel?: (options: ResolveModelOptions) => Promise<Model>;
  logger: Logger;
  /** Cost-aware compaction is on (`resolveSummarizerModel`'s cheaper default). */
  costAware?: boolean;
}): EventsSummarizer | undefined {
  const { agentModel, env, logger } = options;
  if (options.summarizerModel) return new LlmEventSummarizer({ model: options.summarizerModel });
  const modelId = resolveSummarizerModel({
    agentModelId: agentModel?.modelId,
    env,
    costAware: options.costAware,
  });
  if (modelId === undefined || modelId === agentModel?.modelId) {
    return agentModel ? new LlmEventSummarizer({ model: agentModel }) : undefined;
  }
  const resolve = options.resolveModel ?? resolveModel;
  const warnFallback = (error: unknown) =>
    logger.warn(
      {
        msgType: 'summarizer_model_unavailable',
        summarizerModel: modelId,
        fallbackModel: agentModel?.modelId,
        error: fallbackReason(error),
      },
      `summarizer model '${modelId}' is unavailable (${fallbackReason(error)}); summarizing with the agent's model '${agentModel?.modelId}'`,
    );
  if (!options.resolveModel) {
    // Checked now, without I/O: a missing key is a startup error (or, for the implicit Google
    // default, the agent's own model from the start), not a surprise at the first compaction.
    try {
      checkModelSettings({ modelId, env });
    } catch (error) {
      const named = env[COMPACTION_ENV.model] !== undefined;
      if (named || !agentModel) {
        throw new RunnerConfigError({
          field: COMPACTION_ENV.model,
          value: modelId,
          message: `the summarizer model '${modelId}'${named ? '' : ' (the default for agents on Google)'} cannot be built: ${fallbackReason(error)}`,
        });
      }
      warnFallback(error);
      // The agent's model summarizes, and each compaction records why.
      return new ResolvingSummarizer({
        modelId,
        resolve: () => Promise.reject(error),
        fallbackModel: agentModel,
        onFallback: () => {},
      });
    }
  }
  return new ResolvingSummarizer({
    modelId,
    resolve: () => resolve({ modelId, env }),
    fallbackModel: agentModel,
    onFallback: warnFallback,
  });
}

/**
 * A summarizer on a model id, built at its first call (resolving a model is async; the Runner's
 * constructor is not). If building fails and a fallback model is given, that one summarizes for
 * good and `onFallback` is called once.
 */
class ResolvingSummarizer implements EventsSummarizer {
  private loading?: Promise<{
    summarizer: EventsSummarizer;
    fallback?: { from: string; reason: string };
  }>;
  private loaded?: EventsSummarizer;

  constructor(
    private readonly options: {
      modelId: string;
      resolve: () => Promise<Model>;
      fallbackModel?: Model;
      onFallback: (error: unknown) => void;
    },
  ) {}

  /** The model id asked for, then the id of the model that actually summarizes. */
  get name(): string {
    return this.loaded?.name ?? this.options.modelId;
  }

  async summarize(options: SummarizeOptions): Promise<Summary | null> {
    this.loading ??= this.load();
    const { summarizer, fallback } = await this.loading;
    const summary = await summarizer.summarize(options);
    // The agent's model wrote it because the named one could not be built: say so.
    return summary && fallback ? { ...summary, summarizer: summarizer.name, fallback } : summary;
  }

  private async load(): Promise<{
    summarizer: EventsSummarizer;
    fallback?: { from: string; reason: string };
  }> {
    let model: Model;
    let fallback: { from: string; reason: string } | undefined;
    try {
      model = await this.options.resolve();
    } catch (error) {
      if (!this.options.fallbackModel) throw error;
      this.options.onFallback(error);
      model = this.options.fallbackModel;
      fallback = { from: this.options.modelId, reason: fallbackReason(error) };
    }
    this.loaded = new LlmEventSummarizer({ model });
    return { summarizer: this.loaded, fallback };
  }
}
