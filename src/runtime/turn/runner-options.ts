/**
 * What a Runner is given (`RunnerOptions`), what one turn is given (`RunOptions`), and the
 * checks and defaults of the options that are not about compaction (docs/architecture.md#the-runtime).
 */

import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { EventsCompactionConfig, EventsSummarizer } from '../../compaction/types.js';
import type { Content } from '../../events/types.js';
import type { ResolveModelOptions } from '../../models/resolve-model.js';
import type { Model } from '../../models/types.js';
import { checkContextWindowTokens } from '../../models/with-context-window.js';
import type { SessionService } from '../../sessions/session-service.js';
import type { Agent } from '../agents/agent.js';
import { RunnerConfigError } from '../errors.js';
import type { Plugin } from '../plugins/plugin.js';
import type { RecallToolOptions } from '../tools/recall-tool.js';
import { checkSessionLeaseOption, type SessionLeaseOptions } from './session-lease.js';

export interface RunnerOptions {
  appName: string;
  agent: Agent;
  sessionService: SessionService;
  /**
   * `undefined`: `createEventsCompactionConfig()` from the environment (`ORRERY_*`).
   * `null`: compaction off. A config: checked by `validateEventsCompactionConfig` (the same
   * rules and `InvalidConfigError`s as `createEventsCompactionConfig`), then used as given.
   */
  compaction?: EventsCompactionConfig | null;
  /**
   * Estimate each model call's USD from the usage it reported (cache reads and writes at their
   * prices) at the catalog price of its model id (`provider:model`): the
   * `orrery_model_cost_usd_total` counter and the `orrery.cost.usd` span attribute
   * (docs/cost.md#live-spend). A model the catalog does not list gets no estimate. Default: on
   * when `compaction.costAware` is set.
   */
  estimateSpend?: boolean;
  /**
   * Overrides `compaction.summarizer`. Default: `LlmEventSummarizer` over `summarizerModel`, else
   * over the model `resolveSummarizerModel()` names (`ORRERY_COMPACTION_MODEL`, the Google
   * default for agents on Google, else the agent's own model). A root without a model (a
   * workflow) must be given one, or `ORRERY_COMPACTION_MODEL`.
   */
  summarizer?: EventsSummarizer;
  /** The default summarizer's model (e.g. a cheap one from `resolveModel`). */
  summarizerModel?: Model;
  /**
   * Builds the summarizer model named by `resolveSummarizerModel()` when it is not the agent's
   * own, once, at the first compaction. Default: `resolveModel` (keys from `env`), whose settings
   * are checked here: a model `ORRERY_COMPACTION_MODEL` names that cannot be built (e.g. no key
   * for its provider) is a `RunnerConfigError`; for the implicit Google default, and when a given
   * `resolveModel` fails, the agent's own model summarizes, a warning is logged and each
   * compaction records the `fallback`.
   */
  resolveModel?: (options: ResolveModelOptions) => Promise<Model>;
  /**
   * Where `ORRERY_*` settings and provider keys are read: the compaction config (when
   * `compaction` is omitted) and the summarizer model. Default: `process.env`, read once here.
   */
  env?: Record<string, string | undefined>;
  /** Tried when the summarizer fails. Default: a `DigestSummarizer`; `null`: none. */
  fallbackSummarizer?: EventsSummarizer | null;
  plugins?: Plugin[];
  /** Metrics register here (a new `Registry` per Runner when omitted, never the global one). */
  metrics?: { registry?: Registry };
  /**
   * The input window (tokens) of every model this Runner calls, over the model's own
   * `contextWindowTokens` (the built-in table): for a model it does not know or knows wrongly.
   */
  contextWindowTokens?: number;
  /** A pino logger, `false` for none, or a new `warn` logger on stderr when omitted. */
  logger?: Logger | false;
  /**
   * Run the after-invocation compaction in the background: `run()` finishes as soon as the
   * agent's events are yielded. The next `run()` on the same session waits for it first, so a
   * turn never reads a view a compaction is about to replace; `flush()` waits for all of them.
   */
  background?: boolean;
  /**
   * One invocation at a time per session, across runners and processes, through the store's
   * `acquireLease`: a run waits up to `waitMs` (default 30_000) for the session, then throws
   * `SessionBusyError`; the lease is held for the whole invocation and its after-invocation
   * compaction (a background one too) and lives `ttlMs` (default 30_000) past a runner that
   * died. A run whose lease is lost stops with `SessionLeaseLostError`. `false`: no lease (only
   * this Runner's own background compactions are waited for, as with a store without leases).
   */
  sessionLease?: SessionLeaseOptions | false;
  /**
   * With compaction on, every `LlmAgent` gets a `recall` tool that reads back what summaries
   * replaced (`src/runtime/tools/recall-tool.ts`): name, description and caps here; `false`: no
   * such tool. An agent opts out with `LlmAgent({ recall: false })`.
   */
  recall?: RecallToolOptions | false;
}

export interface RunOptions {
  userId: string;
  sessionId: string;
  newMessage: Content | string;
  signal?: AbortSignal;
  /**
   * Yield partial events (`partial: true`, the delta text of each model call, never stored)
   * as the model streams, before each stored answer. Only for models with `stream`; others
   * answer whole. Default false.
   */
  streaming?: boolean;
}

/** The Runner's own settings, checked, with their defaults applied. */
export interface RunnerSettings {
  appName: string;
  contextWindowTokens?: number;
  background: boolean;
  sessionLease: SessionLeaseOptions | false;
  /** Read once: a copy of `process.env` when no `env` was given. */
  env: Record<string, string | undefined>;
}

/** Checks the options in the order a user reads them; each bad one is a `RunnerConfigError`. */
export function resolveRunnerSettings(options: RunnerOptions): RunnerSettings {
  if (!options.appName) {
    throw new RunnerConfigError({
      field: 'appName',
      value: options.appName,
      message: 'is required',
    });
  }
  if (options.contextWindowTokens !== undefined) {
    try {
      checkContextWindowTokens(options.contextWindowTokens);
    } catch {
      throw new RunnerConfigError({
        field: 'contextWindowTokens',
        value: options.contextWindowTokens,
        message: 'must be a positive integer (the input window in tokens)',
      });
    }
  }
  return {
    appName: options.appName,
    contextWindowTokens: options.contextWindowTokens,
    background: options.background ?? false,
    sessionLease: checkSessionLeaseOption(options.sessionLease),
    env: options.env ?? { ...process.env },
  };
}

/** The user's message as content (a string is one text part). */
export function toUserContent(message: Content | string): Content {
  if (typeof message === 'string') return { role: 'user', parts: [{ text: message }] };
  return { role: 'user', parts: message.parts };
}
