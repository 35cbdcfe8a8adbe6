/**
 * The Runner behind `chat` and `run`: an LlmAgent on `ORRERY_MODEL`, compaction at the
 * environment's settings, the summarizer from `resolveSummarizerModel`, and a plugin that prints
 * each compaction and drives the spinner.
 */
import { createEventsCompactionConfig, resolveSummarizerModel } from '../compaction/config.js';
import { resolveModel } from '../models/resolve-model.js';
import type { Model } from '../models/types.js';
import { LlmAgent } from '../runtime/agents/llm-agent.js';
import type { Plugin } from '../runtime/plugins/plugin.js';
import { Runner } from '../runtime/runner.js';
import type { SessionService } from '../sessions/session-service.js';
import { CliUsageError } from './errors.js';
import type { CliIo } from './io.js';
import { Spinner } from './spinner.js';

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

export async function createCliRunner(options: {
  io: CliIo;
  model: Model;
  service: SessionService;
  appName: string;
  spinner: Spinner;
}): Promise<Runner> {
  const { io, model, spinner } = options;
  const compaction = createEventsCompactionConfig({ env: io.env });
  const summarizerId = resolveSummarizerModel({ agentModelId: model.modelId, env: io.env });
  const summarizerModel =
    summarizerId && summarizerId !== model.modelId
      ? await resolveModel({ modelId: summarizerId, env: io.env })
      : model;
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
        io.stderr(
          `· compacted (${report.trigger}): seq ${report.startSeq}-${report.endSeq}, tokens ${report.tokensBefore.toLocaleString('en-US')} -> ${(report.tokensAfter ?? 0).toLocaleString('en-US')}\n`,
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
