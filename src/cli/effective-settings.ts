/**
 * Every setting `chat`, `run` and `serve` would use, with where its value came from: a flag, an
 * `--agent` module, an `ORRERY_*` variable or orrery's default. An agent module's `compaction`
 * replaces the `ORRERY_COMPACTION_*` settings whole; the variables it hides are named, so an
 * override is never silent (`orrery config`).
 */
import {
  COMPACTION_DEFAULTS,
  COMPACTION_ENV,
  createEventsCompactionConfig,
  resolveReuseAgentPrefix,
  resolveSummarizerModel,
} from '../compaction/config.js';
import type { EventsCompactionConfig } from '../compaction/types.js';
import { maskCredentials } from '../redaction/mask-credentials.js';
import type { Environment } from '../util/environment.js';
import { DEFAULT_DB_PATH } from './store.js';

export type SettingSource = 'default' | 'env' | 'agent' | 'flag';

export interface EffectiveSetting {
  value: string | number | boolean | null;
  source: SettingSource;
  /** The variable or flag that set it (`env`, `flag`). */
  from?: string;
  /** Set variables this value hides: an agent module's compaction replaces them. */
  ignored?: string[];
}

export type EffectiveSettings = Record<string, EffectiveSetting>;

export interface EffectiveSettingsOptions {
  env: Environment;
  /** From an `--agent` module, when one is given. */
  agent?: {
    appName: string;
    modelId?: string;
    /** The app's `compaction`: `undefined` when the module leaves it to the environment. */
    compaction?: EventsCompactionConfig | null;
    hasSummarizer: boolean;
  };
  /** Command-line flags given (absent: not given). */
  flags: { model?: string; db?: string; app?: string; user?: string };
}

type CompactionField = Exclude<keyof typeof COMPACTION_ENV, 'model'>;

/** The settings in the order `orrery config` prints them. */
export function effectiveSettings(options: EffectiveSettingsOptions): EffectiveSettings {
  const { env, agent, flags } = options;
  const settings: EffectiveSettings = {};
  const fromAgent = agent !== undefined && agent.compaction !== undefined;
  const config = fromAgent ? (agent.compaction ?? null) : createEventsCompactionConfig({ env });
  const values: Record<CompactionField, string | number | boolean | null> = {
    enabled: config !== null,
    tokenThreshold: config?.tokenThreshold ?? (config === null ? null : 0),
    eventRetentionSize: config?.eventRetentionSize ?? null,
    retentionTokenBudget: config?.retentionTokenBudget ?? null,
    compactionInterval: config?.compactionInterval ?? (config === null ? null : 0),
    overlapSize: config?.overlapSize ?? null,
    maxRequestBytes: config?.maxRequestBytes ?? null,
    summarizerTimeoutMs:
      config === null
        ? null
        : (config.summarizerTimeoutMs ?? COMPACTION_DEFAULTS.summarizerTimeoutMs),
    summarizerCoolDownMs:
      config === null
        ? null
        : (config.summarizerCoolDownMs ?? COMPACTION_DEFAULTS.summarizerCoolDownMs),
    summarizerMaxCoolDownMs:
      config === null
        ? null
        : (config.summarizerMaxCoolDownMs ?? COMPACTION_DEFAULTS.summarizerMaxCoolDownMs),
    elision: config?.elision !== undefined,
    elisionMinOutputBytes: config?.elision?.minOutputBytes ?? null,
    elisionMinReclaimTokens: config?.elision?.minReclaimTokens ?? null,
    reuseAgentPrefix: config === null ? null : resolveReuseAgentPrefix(config),
  };
  const setVariables = (Object.keys(values) as CompactionField[])
    .map((field) => COMPACTION_ENV[field])
    .filter((variable) => env[variable] !== undefined);
  for (const field of Object.keys(values) as CompactionField[]) {
    const variable = COMPACTION_ENV[field];
    const value = values[field];
    if (fromAgent) {
      const ignored = env[variable] === undefined ? [] : [`${variable}=${env[variable]}`];
      // A field the module's config leaves out takes orrery's default, not the variable's.
      const source = setByAgent(field, agent.compaction ?? null) ? 'agent' : 'default';
      settings[field] = { value, source, ...(ignored.length > 0 && { ignored }) };
    } else if (env[variable] !== undefined) {
      settings[field] = { value, source: 'env', from: variable };
    } else {
      settings[field] = { value, source: 'default' };
    }
  }
  if (fromAgent && setVariables.length > 0) {
    // Said once on `enabled` too, so a reader of the first line learns why.
    settings.enabled = {
      ...(settings.enabled as EffectiveSetting),
      ignored: setVariables.map((name) => `${name}=${env[name]}`),
    };
  }
  settings.model = modelSetting(options);
  settings.summarizerModel = summarizerSetting(options, settings.model.value, config);
  settings.db =
    flags.db !== undefined
      ? { value: maskCredentials(flags.db), source: 'flag', from: '--db' }
      : env.ORRERY_DB !== undefined
        ? { value: maskCredentials(env.ORRERY_DB), source: 'env', from: 'ORRERY_DB' }
        : { value: DEFAULT_DB_PATH, source: 'default' };
  settings.appName =
    flags.app !== undefined
      ? { value: flags.app, source: 'flag', from: '--app' }
      : agent !== undefined
        ? { value: agent.appName, source: 'agent' }
        : { value: 'orrery', source: 'default' };
  settings.userId =
    flags.user !== undefined
      ? { value: flags.user, source: 'flag', from: '--user' }
      : { value: 'local', source: 'default' };
  return settings;
}

function setByAgent(field: CompactionField, config: EventsCompactionConfig | null): boolean {
  if (field === 'enabled' || config === null) return true;
  if (field === 'elision') return config.elision !== undefined;
  if (field === 'elisionMinOutputBytes') return config.elision?.minOutputBytes !== undefined;
  if (field === 'elisionMinReclaimTokens') return config.elision?.minReclaimTokens !== undefined;
  return config[field] !== undefined;
}

function modelSetting({ env, agent, flags }: EffectiveSettingsOptions): EffectiveSetting {
  if (flags.model !== undefined) return { value: flags.model, source: 'flag', from: '--model' };
  if (agent !== undefined) return { value: agent.modelId ?? null, source: 'agent' };
  if (env.ORRERY_MODEL !== undefined) {
    return { value: env.ORRERY_MODEL, source: 'env', from: 'ORRERY_MODEL' };
  }
  return { value: null, source: 'default' };
}

function summarizerSetting(
  { env, agent }: EffectiveSettingsOptions,
  model: EffectiveSetting['value'],
  config: EventsCompactionConfig | null,
): EffectiveSetting {
  if (config === null) return { value: null, source: 'default' };
  if (config.summarizer !== undefined || agent?.hasSummarizer) {
    return { value: "the agent module's summarizer", source: 'agent' };
  }
  const modelId = resolveSummarizerModel({
    agentModelId: typeof model === 'string' ? model : undefined,
    env,
  });
  if (env[COMPACTION_ENV.model] !== undefined) {
    return { value: modelId ?? null, source: 'env', from: COMPACTION_ENV.model };
  }
  return { value: modelId ?? null, source: 'default' };
}

/** One line for the start of `chat`, `serve` and `replay`: the threshold and where it came from. */
export function thresholdLine(settings: EffectiveSettings): string {
  const threshold = settings.tokenThreshold as EffectiveSetting;
  if (settings.enabled?.value === false) {
    return `compaction off (${describeSource(settings.enabled)})`;
  }
  const value =
    typeof threshold.value === 'number' && threshold.value > 0
      ? `${threshold.value.toLocaleString('en-US')} tokens`
      : 'off';
  return `token threshold ${value} (${describeSource(threshold)})`;
}

export function describeSource(setting: EffectiveSetting): string {
  const base =
    setting.source === 'env' || setting.source === 'flag'
      ? `${setting.source}: ${setting.from}`
      : setting.source === 'agent'
        ? 'the agent module'
        : 'default';
  return setting.ignored === undefined ? base : `${base}; ignores ${setting.ignored.join(', ')}`;
}
