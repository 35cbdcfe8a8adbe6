/**
 * The Runner's default summarizer (SPEC §5) and the wrappers around it: `summarizerModel`,
 * else the model `resolveSummarizerModel()` names, built lazily at the first compaction.
 */
import type { Logger } from 'pino';
import { COMPACTION_ENV, resolveSummarizerModel } from '../compaction/config.js';
import type { EventsSummarizer, SummarizeOptions, Summary } from '../compaction/types.js';
import { parseModelId, type ResolveModelOptions, resolveModel } from '../models/resolve-model.js';
import type { Model } from '../models/types.js';
import { LlmEventSummarizer } from '../summarizers/llm-event-summarizer.js';
import { RunnerConfigError } from './errors.js';

/** Counts a summarizer's failures (the Compactor's fallback may still compact). */
export function countingFailures(
  summarizer: EventsSummarizer,
  onFailure: (name: string, error: unknown) => void,
): EventsSummarizer {
  return {
    // A getter: a resolving summarizer's name is settled by its first call.
    get name() {
      return summarizer.name;
    },
    async summarize(options) {
      try {
        return await summarizer.summarize(options);
      } catch (error) {
        if (!options.signal?.aborted) onFailure(summarizer.name, error);
        throw error;
      }
    },
  };
}

/**
 * `summarizerModel`, else the model `resolveSummarizerModel()` names: the agent's own when the
 * ids match, otherwise built at the first compaction, falling back to the agent's own model when
 * that fails. `undefined` for a workflow root with nothing configured.
 */
export function createDefaultSummarizer(options: {
  summarizerModel?: Model;
  agentModel?: Model;
  env: Record<string, string | undefined>;
  resolveModel?: (options: ResolveModelOptions) => Promise<Model>;
  logger: Logger;
}): EventsSummarizer | undefined {
  const { agentModel, env, logger } = options;
  if (options.summarizerModel) return new LlmEventSummarizer({ model: options.summarizerModel });
  const modelId = resolveSummarizerModel({ agentModelId: agentModel?.modelId, env });
  if (modelId === undefined || modelId === agentModel?.modelId) {
    return agentModel ? new LlmEventSummarizer({ model: agentModel }) : undefined;
  }
  const resolve = options.resolveModel ?? resolveModel;
  if (!options.resolveModel) {
    // An unknown provider is a startup error, not a failure at the first compaction.
    try {
      parseModelId(modelId);
    } catch (error) {
      throw new RunnerConfigError({
        field: COMPACTION_ENV.model,
        value: modelId,
        message: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return new ResolvingSummarizer({
    modelId,
    resolve: () => resolve({ modelId, env }),
    fallbackModel: agentModel,
    onFallback: (error) =>
      logger.warn(
        {
          msgType: 'summarizer_model_unavailable',
          summarizerModel: modelId,
          fallbackModel: agentModel?.modelId,
          error: String(error),
        },
        `summarizer model '${modelId}' is unavailable (${error instanceof Error ? error.message : String(error)}); summarizing with the agent's model '${agentModel?.modelId}'`,
      ),
  });
}

/**
 * A summarizer on a model id, built at its first call (resolving a model is async; the Runner's
 * constructor is not). If building fails and a fallback model is given, that one summarizes for
 * good and `onFallback` is called once.
 */
class ResolvingSummarizer implements EventsSummarizer {
  private loading?: Promise<EventsSummarizer>;
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
    return (await this.loading).summarize(options);
  }

  private async load(): Promise<EventsSummarizer> {
    let model: Model;
    try {
      model = await this.options.resolve();
    } catch (error) {
      if (!this.options.fallbackModel) throw error;
      this.options.onFallback(error);
      model = this.options.fallbackModel;
    }
    this.loaded = new LlmEventSummarizer({ model });
    return this.loaded;
  }
}
