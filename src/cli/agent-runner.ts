/**
 * The Runner behind `chat` and `run`: an LlmAgent on `--model`/`ORRERY_MODEL` or the agent of
 * an `--agent` module, compaction at the environment's settings (or the module's), the
 * summarizer from `resolveSummarizerModel`, and a plugin that prints each compaction and drives
 * the spinner.
 */
import type { Command } from 'commander';
import {
  COMPACTION_ENV,
  createEventsCompactionConfig,
  resolveSummarizerModel,
} from '../compaction/config.js';
import type { EventsCompactionConfig, EventsSummarizer } from '../compaction/types.js';
import { ModelConfigError } from '../models/errors.js';
import { resolveModel } from '../models/resolve-model.js';
import type { Model } from '../models/types.js';
import type { Agent } from '../runtime/agents/agent.js';
import { LlmAgent } from '../runtime/agents/llm-agent.js';
import type { Plugin } from '../runtime/plugins/plugin.js';
import { Runner } from '../runtime/turn/runner.js';
import type { SessionLeaseOptions } from '../runtime/turn/session-lease.js';
import type { SessionService } from '../sessions/session-service.js';
import { nonEmpty } from './common.js';
import { compactionNote, littleReclaimedNote } from './compaction-note.js';
import { effectiveSettings, thresholdLine as thresholdLineOf } from './effective-settings.js';
import { CliUsageError } from './errors.js';
import type { CliIo } from './io.js';
import { loadAgentModule } from './load-agent.js';
import { Spinner } from './spinner.js';

export const AGENT_NAME = 'assistant';

/** Resolved before any store is opened: no model means exit 2 and nothing written. */
export async function requireModel(io: CliIo, modelId = io.env.ORRERY_MODEL): Promise<Model> {
  if (!modelId) {
    throw new CliUsageError({
      field: 'ORRERY_MODEL',
      message:
        'no model configured: set ORRERY_MODEL (or pass --model) to a provider:model id, e.g. ORRERY_MODEL=google:gemini-2.5-flash (with GOOGLE_GENERATIVE_AI_API_KEY), openai:gpt-4o-mini, anthropic:claude-sonnet-4-5 or openai-compatible:qwen3:8b',
    });
  }
  return resolveModel({ modelId, env: io.env });
}

/** What `chat` and `run` take from the command line to choose their agent. */
export interface CliAgentOptions {
  /** `--agent PATH`: an agent module (see `loadAgentModule`). */
  agentPath?: string;
  /** `--model ID`: overrides `ORRERY_MODEL`, and an agent module's model. */
  modelId?: string;
  /** `--app`, and whether it was given on the command line (it then wins over the module's). */
  appName: string;
  appFromCommandLine: boolean;
}

/** Everything `chat` and `run` configure, resolved and checked before any store is opened. */
export interface CliAgentSettings {
  agent: Agent;
  /** The root's model id (or the agent's name for a root without a model), for labels. */
  label: string;
  appName: string;
  compaction: EventsCompactionConfig | null;
  summarizer?: EventsSummarizer;
  /** The default summarizer's model, when the summarizer is not given. */
  summarizerModel?: Model;
  plugins: Plugin[];
  sessionLease?: SessionLeaseOptions | false;
  /** `token threshold 60,000 tokens (the agent module; ignores ...)`: printed at start. */
  thresholdLine: string;
}

/**
 * The agent (the built-in assistant on `--model`/`ORRERY_MODEL`, or `--agent`'s module, its
 * model replaced by `--model` when given), the `ORRERY_COMPACTION_*` settings (unless the module
 * sets `compaction`) and the summarizer model: a bad value is an error naming its variable or
 * file, raised before a store or session is created.
 */
export async function resolveAgentSettings(
  io: CliIo,
  options: CliAgentOptions,
): Promise<CliAgentSettings> {
  const override =
    options.modelId === undefined ? undefined : await requireModel(io, options.modelId);
  let settings: Omit<CliAgentSettings, 'summarizerModel' | 'label' | 'thresholdLine'>;
  let agentCompaction: EventsCompactionConfig | null | undefined;
  if (options.agentPath === undefined) {
    const model = override ?? (await requireModel(io));
    settings = {
      agent: new LlmAgent({
        name: AGENT_NAME,
        model,
        instruction: 'You are a helpful assistant. Answer concisely.',
      }),
      appName: options.appName,
      compaction: createEventsCompactionConfig({ env: io.env }),
      plugins: [],
    };
  } else {
    const loaded = await loadAgentModule({ path: options.agentPath, modelOverride: override });
    agentCompaction = loaded.compaction;
    settings = {
      agent: loaded.agent,
      appName: options.appFromCommandLine ? options.appName : loaded.appName,
      compaction:
        loaded.compaction === undefined
          ? createEventsCompactionConfig({ env: io.env })
          : loaded.compaction,
      summarizer: loaded.summarizer,
      plugins: loaded.plugins ?? [],
      sessionLease: loaded.sessionLease,
    };
  }
  const model = settings.agent.model;
  const label = model?.modelId ?? settings.agent.name;
  const effective = effectiveSettings({
    env: io.env,
    flags: {},
    ...(options.agentPath !== undefined && {
      agent: { appName: settings.appName, compaction: agentCompaction, hasSummarizer: false },
    }),
  });
  const thresholdLine = `compaction: ${thresholdLineOf(effective)}`;
  const needsModel =
    settings.compaction !== null &&
    settings.summarizer === undefined &&
    settings.compaction.summarizer === undefined;
  if (!needsModel || model === undefined) return { ...settings, label, thresholdLine };
  return {
    ...settings,
    label,
    thresholdLine,
    summarizerModel: await summarizerModelFor(io, model),
  };
}

/** The model `resolveSummarizerModel` names for this agent's model (its own when the same). */
async function summarizerModelFor(io: CliIo, model: Model): Promise<Model> {
  const summarizerId = resolveSummarizerModel({ agentModelId: model.modelId, env: io.env });
  if (!summarizerId || summarizerId === model.modelId) return model;
  try {
    return await resolveModel({ modelId: summarizerId, env: io.env });
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
  spinner: Spinner;
}): Runner {
  const { io, spinner, settings } = options;
  const { compaction, summarizerModel } = settings;
  let saidLittleReclaimed = false;
  const plugin: Plugin = {
    name: 'orrery-cli',
    beforeModel: ({ modelId }) => {
      spinner.start(`${modelId} is thinking`);
    },
    afterModel: () => {
      spinner.stop();
    },
    beforeCompaction: () => {
      spinner.start('summarizing older events');
    },
    afterCompaction: ({ report }) => {
      spinner.stop();
      const note = compactionNote({
        report,
        summarizerLabel: summarizerModel?.modelId ?? settings.label,
      });
      if (note) io.stderr(note);
      const little = saidLittleReclaimed
        ? undefined
        : littleReclaimedNote({ report, tokenThreshold: compaction?.tokenThreshold });
      if (little) {
        saidLittleReclaimed = true;
        io.stderr(little);
      }
    },
  };
  return new Runner({
    appName: settings.appName,
    agent: settings.agent,
    sessionService: options.service,
    compaction,
    summarizer: settings.summarizer,
    summarizerModel,
    // The module's plugins see what the CLI's spinner and compaction lines do.
    plugins: [plugin, ...settings.plugins],
    ...(settings.sessionLease !== undefined && { sessionLease: settings.sessionLease }),
    logger: false,
  });
}

export { Spinner };

/** `--agent PATH` and `--model ID`, shared by `chat` and `run`. */
export function addAgentOptions(command: Command): Command {
  return command
    .option(
      '--agent <path>',
      'an agent module (.ts, .mts, .js, .mjs) whose default export is an agent or an app { agent, appName?, compaction?, ... }; its appName scopes sessions unless --app is given',
      nonEmpty('--agent'),
    )
    .option(
      '--model <id>',
      "provider:model id; overrides ORRERY_MODEL, and the model of --agent's agents",
      nonEmpty('--model'),
    );
}

/** The agent choice of a `chat`/`run` command line. */
export function agentOptionsOf(
  flags: { agent?: string; model?: string; app: string },
  command: Command,
): CliAgentOptions {
  return {
    agentPath: flags.agent,
    modelId: flags.model,
    appName: flags.app,
    appFromCommandLine: command.getOptionValueSource('app') === 'cli',
  };
}
