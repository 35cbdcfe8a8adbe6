/**
 * The Runner behind `chat` and `run`: an LlmAgent on `ORRERY_MODEL`, compaction at the
 * environment's settings, the summarizer from `resolveSummarizerModel`, and a plugin that prints
 * each compaction and drives the spinner.
 */
import {
  COMPACTION_ENV,
  createEventsCompactionConfig,
  resolveSummarizerModel,
} from '../compaction/config.js';
import type { EventsCompactionConfig } from '../compaction/types.js';
import { ModelConfigError } from '../models/errors.js';
import { resolveModel } from '../models/resolve-model.js';
import type { Model } from '../models/types.js';
import { LlmAgent } from '../runtime/agents/llm-agent.js';
import type { Plugin } from '../runtime/plugins/plugin.js';
import { Runner } from '../runtime/runner.js';
import type { SessionService } from '../sessions/session-service.js';
import { CliUsageError } from './errors.js';
import type { CliIo } from './io.js';
import { Spinner } from './spinner.js';
import { creditOfReport, describeCredit } from './summarizer-label.js';

export const AGENT_NAME = 'assistant';

/** Resolved before any store is opened: no model means exit 2 and nothing written. */
export async function requireModel(io: CliIo): Promise<Model> {
  const modelId = io.env.ORRERY_MODEL;
  if (!modelId) {
    throw new CliUsageError({
      field: 'ORRERY_MODEL',
      message:
        'no model configured: set ORRERY_MODEL to a provider:model id, e.g. ORRERY_MODEL=google:gemini-2.5-flash (with GOOGLE_GENERATIVE_AI_API_KEY), openai:gpt-4o-mini, anthropic:claude-sonnet-4-5 or openai-compatible:qwen3:8b',
    });
  }
  return resolveModel({ modelId, env: io.env });
}

/** Everything `chat` and `run` configure, resolved and checked before any store is opened. */
export interface CliAgentSettings {
  model: Model;
  compaction: EventsCompactionConfig | null;
  summarizerModel: Model;
}

/**
 * `ORRERY_MODEL`, the `ORRERY_COMPACTION_*` settings and the summarizer model: a bad value is an
 * error naming its variable, raised before a store or session is created.
 */
export async function resolveAgentSettings(io: CliIo): Promise<CliAgentSettings> {
  const model = await requireModel(io);
  const compaction = createEventsCompactionConfig({ env: io.env });
  const summarizerId = resolveSummarizerModel({ agentModelId: model.modelId, env: io.env });
  if (!summarizerId || summarizerId === model.modelId) {
    return { model, compaction, summarizerModel: model };
  }
  try {
    const summarizerModel = await resolveModel({ modelId: summarizerId, env: io.env });
    return { model, compaction, summarizerModel };
  } catch (error) {
    if (!ModelConfigError.isInstance(error)) throw error;
    // Name the variable that chose this model, not only the key it lacks.
    const chosenBy =
      io.env[COMPACTION_ENV.model] === undefined
        ? `the summarizer model ${JSON.stringify(summarizerId)} (the default for ${model.modelId}; set ${COMPACTION_ENV.model} to choose another)`
        : `${COMPACTION_ENV.model}=${JSON.stringify(summarizerId)}`;
    throw new ModelConfigError({
      variable: error.variable,
      value: error.value,
      message: `${chosenBy} cannot be used: ${error.message}`,
      cause: error,
    });
  }
}

export function createCliRunner(options: {
  io: CliIo;
  settings: CliAgentSettings;
  service: SessionService;
  appName: string;
  spinner: Spinner;
}): Runner {
  const { io, spinner } = options;
  const { model, compaction, summarizerModel } = options.settings;
  const plugin: Plugin = {
    name: 'orrery-cli',
    beforeModel: () => {
      spinner.start(`${model.modelId} is thinking`);
    },
    afterModel: () => {
      spinner.stop();
    },
    beforeCompaction: () => {
      spinner.start('summarizing older events');
    },
    afterCompaction: ({ report }) => {
      spinner.stop();
      if (report.outcome === 'compacted') {
        // A fallback is named as one: the summary is not the summarizer model's.
        const credit = creditOfReport(report, summarizerModel.modelId);
        const by = credit?.fallback ? `, by ${describeCredit(credit)}` : '';
        io.stderr(
          `· compacted (${report.trigger}): seq ${report.startSeq}-${report.endSeq}, tokens ${report.tokensBefore.toLocaleString('en-US')} -> ${(report.tokensAfter ?? 0).toLocaleString('en-US')}${by}\n`,
        );
      } else if (report.outcome === 'failed') {
        io.stderr(
          `· compaction failed (${report.trigger}): ${report.reason ?? 'unknown error'}; the old view is kept\n`,
        );
      }
    },
  };
  return new Runner({
    appName: options.appName,
    agent: new LlmAgent({
      name: AGENT_NAME,
      model,
      instruction: 'You are a helpful assistant. Answer concisely.',
    }),
    sessionService: options.service,
    compaction,
    summarizerModel,
    plugins: [plugin],
    logger: false,
  });
}

export { Spinner };
