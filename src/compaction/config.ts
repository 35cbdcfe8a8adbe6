/**
 * Compaction configuration from code options over `ORRERY_*` environment variables
 * (docs/architecture.md#when-compaction-runs). No I/O: the environment object is handed in, or
 * `process.env` is read at call time.
 */
import type { Environment } from '../util/environment.js';
import { checkCostAwareConfig } from './cost-aware-config.js';
import { ELISION_DEFAULTS } from './elision.js';
import { InvalidConfigError } from './errors.js';
import type { ElisionConfig, EventsCompactionConfig, EventsCompactionOptions } from './types.js';

export interface CreateEventsCompactionConfigOptions extends EventsCompactionOptions {
  /** Defaults to `process.env` — read only here, at the caller's request, never at import. */
  env?: Environment;
  /** Turn compaction on or off regardless of `ORRERY_CONTEXT_COMPACTION`. */
  enabled?: boolean;
}

/** The defaults the README documents. */
export const COMPACTION_DEFAULTS = Object.freeze({
  enabled: true,
  /** Well under the 1M window of current Gemini models; leaves room for the answer. */
  tokenThreshold: 250_000,
  /** Events kept verbatim after a token-triggered compaction. */
  eventRetentionSize: 10,
  /** High on purpose: the token trigger normally does the work. */
  compactionInterval: 100,
  /** One invocation re-read by the next window, so the summary keeps its thread. */
  overlapSize: 1,
  /**
   * The retained tail's token budget is this share of `tokenThreshold` (or of a context window):
   * the one retention share (`retentionTokensFor` in triggers.ts applies it).
   */
  retentionTokenShare: 0.25,
  /** Summarizer for agents that run on Google, unless `ORRERY_COMPACTION_MODEL` says otherwise. */
  googleSummarizerModel: 'google:gemini-flash-latest',
  /**
   * With cost-aware compaction, the summarizer of an agent on these providers, unless
   * `ORRERY_COMPACTION_MODEL` says otherwise: the summarizer reads the summarized range uncached
   * at its input price, the largest one-time cost of a compaction (docs/cost.md#cost-aware-compaction).
   */
  costAwareSummarizerModels: Object.freeze({
    anthropic: 'anthropic:claude-haiku-4-5',
    openai: 'openai:gpt-5-mini',
    google: 'google:gemini-2.5-flash',
  }) as Readonly<Record<string, string>>,
  /** One summarizer attempt may take this long before it counts as failed (the fallback runs). */
  summarizerTimeoutMs: 120_000,
  /** After a summarizer failure it is left alone this long, doubled per failure in a row. */
  summarizerCoolDownMs: 60_000,
  /** ... up to this (30 minutes): a hung summarizer then costs one timeout every half hour. */
  summarizerMaxCoolDownMs: 1_800_000,
  /**
   * The elision tier is opt-in: it changes what the model reads of old tool outputs, and off
   * keeps every existing session's view, replay report and golden byte-identical
   * (docs/architecture.md#elision-the-cheap-tier).
   */
  elision: false,
  /**
   * A summary on the agent's own model re-sends the agent's last request (billed as a cache
   * read) with a summary instruction (docs/cost.md#summaries-that-reuse-the-agents-cache).
   */
  reuseAgentPrefix: true,
});

/** The environment variables read here. */
export const COMPACTION_ENV = Object.freeze({
  enabled: 'ORRERY_CONTEXT_COMPACTION',
  tokenThreshold: 'ORRERY_COMPACTION_TOKEN_THRESHOLD',
  eventRetentionSize: 'ORRERY_COMPACTION_RETENTION_EVENTS',
  compactionInterval: 'ORRERY_COMPACTION_INTERVAL',
  overlapSize: 'ORRERY_COMPACTION_OVERLAP',
  maxRequestBytes: 'ORRERY_COMPACTION_MAX_REQUEST_BYTES',
  retentionTokenBudget: 'ORRERY_COMPACTION_RETENTION_TOKENS',
  model: 'ORRERY_COMPACTION_MODEL',
  summarizerTimeoutMs: 'ORRERY_COMPACTION_SUMMARIZER_TIMEOUT_MS',
  summarizerCoolDownMs: 'ORRERY_COMPACTION_SUMMARIZER_COOL_DOWN_MS',
  summarizerMaxCoolDownMs: 'ORRERY_COMPACTION_SUMMARIZER_MAX_COOL_DOWN_MS',
  elision: 'ORRERY_COMPACTION_ELISION',
  elisionMinOutputBytes: 'ORRERY_COMPACTION_ELISION_MIN_OUTPUT_BYTES',
  elisionMinReclaimTokens: 'ORRERY_COMPACTION_ELISION_MIN_RECLAIM_TOKENS',
  reuseAgentPrefix: 'ORRERY_COMPACTION_REUSE_AGENT_PREFIX',
});

/**
 * The validated configuration from code options over `ORRERY_*` variables, or `null` when
 * compaction is disabled. Throws `InvalidConfigError` naming the variable and value.
 *
 * A threshold or interval of 0 (option or variable) turns that trigger off; with both off the
 * result is `null`. A threshold of 0 with no interval set (option or variable) is also `null`:
 * the sliding window's default interval does not switch compaction back on. Every variable is checked even when compaction is off, so a typo is
 * reported at startup rather than on the day it is switched on.
 */
export function createEventsCompactionConfig(
  options: CreateEventsCompactionConfigOptions = {},
): EventsCompactionConfig | null {
  const env = options.env ?? process.env;
  const fromEnv = {
    enabled: readBoolean(env, COMPACTION_ENV.enabled),
    tokenThreshold: readInteger(env, COMPACTION_ENV.tokenThreshold, 0),
    eventRetentionSize: readInteger(env, COMPACTION_ENV.eventRetentionSize, 0),
    compactionInterval: readInteger(env, COMPACTION_ENV.compactionInterval, 0),
    overlapSize: readInteger(env, COMPACTION_ENV.overlapSize, 0),
    maxRequestBytes: readInteger(env, COMPACTION_ENV.maxRequestBytes, 1),
    retentionTokenBudget: readInteger(env, COMPACTION_ENV.retentionTokenBudget, 1),
    summarizerTimeoutMs: readInteger(env, COMPACTION_ENV.summarizerTimeoutMs, 1),
    summarizerCoolDownMs: readInteger(env, COMPACTION_ENV.summarizerCoolDownMs, 0),
    summarizerMaxCoolDownMs: readInteger(env, COMPACTION_ENV.summarizerMaxCoolDownMs, 1),
    elision: readBoolean(env, COMPACTION_ENV.elision),
    elisionMinOutputBytes: readInteger(env, COMPACTION_ENV.elisionMinOutputBytes, 1),
    elisionMinReclaimTokens: readInteger(env, COMPACTION_ENV.elisionMinReclaimTokens, 1),
    reuseAgentPrefix: readBoolean(env, COMPACTION_ENV.reuseAgentPrefix),
  };
  if (options.enabled !== undefined && typeof options.enabled !== 'boolean') {
    throw new InvalidConfigError({
      field: 'enabled',
      value: options.enabled,
      message: 'expected true or false',
    });
  }
  checkOption('tokenThreshold', options.tokenThreshold, 0);
  checkOption('eventRetentionSize', options.eventRetentionSize, 0);
  checkOption('compactionInterval', options.compactionInterval, 0);
  checkOption('overlapSize', options.overlapSize, 0);
  checkOption('maxRequestBytes', options.maxRequestBytes, 1);
  checkOption('retentionTokenBudget', options.retentionTokenBudget, 1);
  checkOption('summarizerTimeoutMs', options.summarizerTimeoutMs, 1);
  checkOption('summarizerCoolDownMs', options.summarizerCoolDownMs, 0);
  checkOption('summarizerMaxCoolDownMs', options.summarizerMaxCoolDownMs, 1);
  const elisionOption = checkElisionOption(options.elision);

  const enabled = options.enabled ?? fromEnv.enabled ?? COMPACTION_DEFAULTS.enabled;
  if (!enabled) return null;

  const tokenThreshold =
    options.tokenThreshold ?? fromEnv.tokenThreshold ?? COMPACTION_DEFAULTS.tokenThreshold;
  const explicitInterval = options.compactionInterval ?? fromEnv.compactionInterval;
  // A 0 threshold alone means "compaction off", not "the window with its default interval".
  if (tokenThreshold === 0 && explicitInterval === undefined) return null;
  const compactionInterval = explicitInterval ?? COMPACTION_DEFAULTS.compactionInterval;
  const tokenTrigger = tokenThreshold > 0;
  const windowTrigger = compactionInterval > 0;
  if (!tokenTrigger && !windowTrigger) return null;

  const config: EventsCompactionConfig = {};
  if (tokenTrigger) {
    config.tokenThreshold = tokenThreshold;
    config.eventRetentionSize =
      options.eventRetentionSize ??
      fromEnv.eventRetentionSize ??
      COMPACTION_DEFAULTS.eventRetentionSize;
  }
  if (windowTrigger) {
    config.compactionInterval = compactionInterval;
    config.overlapSize =
      options.overlapSize ?? fromEnv.overlapSize ?? COMPACTION_DEFAULTS.overlapSize;
  }
  const retentionTokenBudget =
    options.retentionTokenBudget ??
    fromEnv.retentionTokenBudget ??
    defaultRetentionTokenBudget(tokenTrigger ? tokenThreshold : undefined);
  if (retentionTokenBudget !== undefined) config.retentionTokenBudget = retentionTokenBudget;
  const maxRequestBytes = options.maxRequestBytes ?? fromEnv.maxRequestBytes;
  if (maxRequestBytes !== undefined) config.maxRequestBytes = maxRequestBytes;
  const summarizerTimeoutMs = options.summarizerTimeoutMs ?? fromEnv.summarizerTimeoutMs;
  if (summarizerTimeoutMs !== undefined) config.summarizerTimeoutMs = summarizerTimeoutMs;
  const summarizerCoolDownMs = options.summarizerCoolDownMs ?? fromEnv.summarizerCoolDownMs;
  if (summarizerCoolDownMs !== undefined) config.summarizerCoolDownMs = summarizerCoolDownMs;
  const summarizerMaxCoolDownMs =
    options.summarizerMaxCoolDownMs ?? fromEnv.summarizerMaxCoolDownMs;
  if (summarizerMaxCoolDownMs !== undefined) {
    config.summarizerMaxCoolDownMs = summarizerMaxCoolDownMs;
  }
  if (options.summarizer !== undefined) config.summarizer = options.summarizer;
  const reuseAgentPrefix = options.reuseAgentPrefix ?? fromEnv.reuseAgentPrefix;
  if (reuseAgentPrefix !== undefined) config.reuseAgentPrefix = reuseAgentPrefix;
  const costAware = checkCostAwareConfig(options.costAware);
  if (costAware) config.costAware = costAware; // validated below: needs the token trigger
  const elisionOn =
    elisionOption?.enabled ??
    fromEnv.elision ??
    (elisionOption === undefined ? COMPACTION_DEFAULTS.elision : true);
  if (elisionOn && tokenTrigger) {
    config.elision = {
      minOutputBytes:
        elisionOption?.minOutputBytes ??
        fromEnv.elisionMinOutputBytes ??
        ELISION_DEFAULTS.minOutputBytes,
      minReclaimTokens:
        elisionOption?.minReclaimTokens ??
        fromEnv.elisionMinReclaimTokens ??
        Math.max(1, Math.floor(tokenThreshold * ELISION_DEFAULTS.minReclaimShare)),
    };
  } else if (elisionOn && elisionOption?.enabled === true) {
    throw new InvalidConfigError({
      field: 'elision',
      value: true,
      message: 'needs the token trigger (tokenThreshold > 0): elision is its cheap tier',
    });
  }
  return validateEventsCompactionConfig(config);
}

/** The `elision` option as `{ enabled?, ...settings }`, checked; `undefined` when unset. */
function checkElisionOption(
  option: EventsCompactionOptions['elision'],
): (ElisionConfig & { enabled?: boolean }) | undefined {
  if (option === undefined) return undefined;
  if (typeof option === 'boolean') return { enabled: option };
  if (typeof option !== 'object' || option === null || Array.isArray(option)) {
    throw new InvalidConfigError({
      field: 'elision',
      value: option,
      message: 'expected true, false or { enabled?, minOutputBytes?, minReclaimTokens? }',
    });
  }
  if (option.enabled !== undefined && typeof option.enabled !== 'boolean') {
    throw new InvalidConfigError({
      field: 'elision.enabled',
      value: option.enabled,
      message: 'expected true or false',
    });
  }
  checkElisionFields(option, ['enabled', ...ELISION_KEYS]);
  return option;
}

const ELISION_KEYS = ['minOutputBytes', 'minReclaimTokens'] as const;

/** Known keys only, each a whole number >= 1. */
function checkElisionFields(elision: object, known: readonly string[]): void {
  for (const key of Object.keys(elision)) {
    if (!known.includes(key)) {
      throw new InvalidConfigError({
        field: `elision.${key}`,
        value: (elision as Record<string, unknown>)[key],
        message: `is not an elision field (known: ${known.join(', ')})`,
      });
    }
  }
  for (const key of ELISION_KEYS) {
    checkOption(`elision.${key}`, (elision as ElisionConfig)[key], 1);
  }
}

/** A validated config's `elision`: an object of known fields, and the token trigger it serves. */
function checkElisionConfig(config: EventsCompactionConfig): ElisionConfig | undefined {
  const elision: unknown = config.elision;
  if (elision === undefined) return undefined;
  if (typeof elision !== 'object' || elision === null || Array.isArray(elision)) {
    throw new InvalidConfigError({
      field: 'elision',
      value: elision,
      message: 'expected { minOutputBytes?, minReclaimTokens? } (leave it out for elision off)',
    });
  }
  checkElisionFields(elision, ELISION_KEYS);
  if (config.tokenThreshold === undefined) {
    throw new InvalidConfigError({
      field: 'elision',
      value: 'set',
      message: "needs tokenThreshold: elision is the token trigger's cheap tier",
    });
  }
  return Object.freeze({ ...(elision as ElisionConfig) });
}

/**
 * ADK's rules: each trigger pair is set together (`tokenThreshold` + `eventRetentionSize`,
 * `compactionInterval` + `overlapSize`), at least one trigger, interval > 0, overlap >= 0,
 * threshold > 0, retention >= 0; and orrery's: `retentionTokenBudget` > 0, `maxRequestBytes` > 0,
 * `summarizerTimeoutMs` > 0, `summarizerCoolDownMs` >= 0, `summarizerMaxCoolDownMs` > 0, all whole numbers; `elision` only with the token trigger. Returns a
 * frozen copy without unset keys. Every way into the Runner and the Compactor goes through here,
 * so a hand-built config is held to the same rules (and errors) as one from
 * `createEventsCompactionConfig`.
 */
export function validateEventsCompactionConfig(
  config: EventsCompactionConfig,
): EventsCompactionConfig {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new InvalidConfigError({
      field: 'compaction',
      value: config,
      message: 'expected a compaction config object (or null for compaction off)',
    });
  }
  const known = new Set<string>(CONFIG_KEYS);
  for (const key of Object.keys(config)) {
    if (!known.has(key)) {
      const value: unknown = (config as Record<string, unknown>)[key];
      throw new InvalidConfigError({
        field: key,
        value: typeof value === 'object' || typeof value === 'bigint' ? typeof value : value,
        message: `is not a compaction config field (known: ${CONFIG_KEYS.join(', ')})`,
      });
    }
  }
  checkPair(config, 'tokenThreshold', 'eventRetentionSize');
  checkPair(config, 'compactionInterval', 'overlapSize');
  if (config.tokenThreshold === undefined && config.compactionInterval === undefined) {
    throw new InvalidConfigError({
      field: 'tokenThreshold',
      value: undefined,
      message:
        'no trigger: set tokenThreshold with eventRetentionSize, or compactionInterval with overlapSize',
    });
  }
  checkOption('tokenThreshold', config.tokenThreshold, 1);
  checkOption('eventRetentionSize', config.eventRetentionSize, 0);
  checkOption('compactionInterval', config.compactionInterval, 1);
  checkOption('overlapSize', config.overlapSize, 0);
  checkOption('retentionTokenBudget', config.retentionTokenBudget, 1);
  checkOption('maxRequestBytes', config.maxRequestBytes, 1);
  checkOption('summarizerTimeoutMs', config.summarizerTimeoutMs, 1);
  checkOption('summarizerCoolDownMs', config.summarizerCoolDownMs, 0);
  checkOption('summarizerMaxCoolDownMs', config.summarizerMaxCoolDownMs, 1);
  if (config.reuseAgentPrefix !== undefined && typeof config.reuseAgentPrefix !== 'boolean') {
    throw new InvalidConfigError({
      field: 'reuseAgentPrefix',
      value: config.reuseAgentPrefix,
      message: 'expected true or false',
    });
  }
  const summarizer = config.summarizer;
  if (
    summarizer !== undefined &&
    (typeof summarizer !== 'object' ||
      summarizer === null ||
      typeof summarizer.summarize !== 'function' ||
      typeof summarizer.name !== 'string')
  ) {
    throw new InvalidConfigError({
      field: 'summarizer',
      value: typeof summarizer,
      message: 'expected an EventsSummarizer (a `name` and a `summarize` method)',
    });
  }
  const elision = checkElisionConfig(config);
  const costAware = checkCostAwareConfig(config.costAware);
  if (costAware && config.tokenThreshold === undefined) {
    throw new InvalidConfigError({
      field: 'costAware',
      value: costAware.price,
      message: 'needs the token trigger (tokenThreshold > 0): it chooses within the threshold',
    });
  }
  const normalized: EventsCompactionConfig = {};
  for (const key of CONFIG_KEYS) {
    if (config[key] !== undefined) (normalized as Record<string, unknown>)[key] = config[key];
  }
  if (elision) normalized.elision = elision;
  if (costAware) normalized.costAware = costAware;
  else delete normalized.costAware;
  return Object.freeze(normalized);
}

const CONFIG_KEYS = [
  'tokenThreshold',
  'eventRetentionSize',
  'compactionInterval',
  'overlapSize',
  'summarizer',
  'maxRequestBytes',
  'retentionTokenBudget',
  'summarizerTimeoutMs',
  'summarizerCoolDownMs',
  'summarizerMaxCoolDownMs',
  'elision',
  'costAware',
  'reuseAgentPrefix',
] as const satisfies readonly (keyof EventsCompactionConfig)[];

/**
 * Whether a summary on the agent's model reuses the agent's last request: the config's
 * `reuseAgentPrefix` (from `ORRERY_COMPACTION_REUSE_AGENT_PREFIX` when the config comes from the
 * environment), else on.
 */
export function resolveReuseAgentPrefix(config: EventsCompactionConfig): boolean {
  return config.reuseAgentPrefix ?? COMPACTION_DEFAULTS.reuseAgentPrefix;
}

/**
 * The summarizer model id: `ORRERY_COMPACTION_MODEL`; else, with cost-aware compaction, the
 * agent's provider's smaller model (`costAwareSummarizerModels`); else `google:gemini-flash-latest`
 * when the agent runs on Google; else the agent's own model; `undefined` when there is none.
 */
export function resolveSummarizerModel(options: {
  agentModelId?: string;
  /** Cost-aware compaction is on: the provider's smaller model summarizes by default. */
  costAware?: boolean;
  env?: Environment;
}): string | undefined {
  const env = options.env ?? process.env;
  const name = COMPACTION_ENV.model;
  const raw = env[name];
  if (raw !== undefined) {
    const modelId = raw.trim();
    // `provider:model`; the model part may hold colons itself (`ollama:qwen2.5:7b`).
    if (!/^[a-z][a-z0-9-]*:\S+$/i.test(modelId)) {
      throw new InvalidConfigError({
        field: name,
        value: raw,
        message: 'expected a model id like provider:model (e.g. google:gemini-flash-latest)',
      });
    }
    return modelId;
  }
  const agentModelId = options.agentModelId;
  if (agentModelId === undefined || agentModelId === '') return undefined;
  if (options.costAware) {
    const provider = agentModelId.slice(0, Math.max(0, agentModelId.indexOf(':')));
    const cheaper = COMPACTION_DEFAULTS.costAwareSummarizerModels[provider];
    if (cheaper !== undefined) return cheaper;
  }
  if (agentModelId.startsWith('google:')) return COMPACTION_DEFAULTS.googleSummarizerModel;
  return agentModelId;
}

function defaultRetentionTokenBudget(tokenThreshold: number | undefined): number | undefined {
  if (tokenThreshold === undefined) return undefined;
  const budget = Math.floor(tokenThreshold * COMPACTION_DEFAULTS.retentionTokenShare);
  return budget > 0 ? budget : undefined;
}

const TRUE_WORDS = new Set(['true', '1', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'off']);

function readBoolean(env: Environment, name: string): boolean | undefined {
  const raw = env[name];
  if (raw === undefined) return undefined;
  const word = raw.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  throw new InvalidConfigError({
    field: name,
    value: raw,
    message: 'expected true, false, 1, 0, on or off',
  });
}

/** A whole decimal number >= `minimum`; surrounding spaces are forgiven, nothing else is. */
function readInteger(env: Environment, name: string, minimum: number): number | undefined {
  const raw = env[name];
  if (raw === undefined) return undefined;
  const text = raw.trim();
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < minimum) {
    throw new InvalidConfigError({
      field: name,
      value: raw,
      message: `expected a whole number >= ${minimum}`,
    });
  }
  return value;
}

function checkOption(name: string, value: unknown, minimum: number): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < minimum) {
    throw new InvalidConfigError({
      field: name,
      value,
      message: `expected a whole number >= ${minimum}`,
    });
  }
}

function checkPair(
  config: EventsCompactionConfig,
  first: keyof EventsCompactionConfig,
  second: keyof EventsCompactionConfig,
): void {
  const firstSet = config[first] !== undefined;
  const secondSet = config[second] !== undefined;
  if (firstSet === secondSet) return;
  const [missing, present] = firstSet ? [second, first] : [first, second];
  throw new InvalidConfigError({
    field: missing,
    value: undefined,
    message: `must be set together with ${present}`,
  });
}
