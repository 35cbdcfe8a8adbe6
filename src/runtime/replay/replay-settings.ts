/**
 * Replay's compaction settings, shared by `orrery replay` and the inspector's replay route, so
 * that one set of settings replays the same way from both (docs/architecture.md#when-compaction-runs:
 * a 0 threshold without an interval is compaction off).
 */
import { COMPACTION_ENV, createEventsCompactionConfig } from '../../compaction/config.js';
import type {
  CostAwareConfig,
  EventsCompactionConfig,
  EventsSummarizer,
} from '../../compaction/types.js';
import type { Environment } from '../../util/environment.js';
import { ReplaySettingsError } from './replay-settings-error.js';

/** Replay's own default: small enough that real transcripts show compaction at work. */
export const REPLAY_DEFAULT_THRESHOLD = 20_000;

/** How the caller names each setting in errors (`--threshold`, or a request's `threshold`). */
export interface ReplaySettingNames {
  threshold: string;
  interval: string;
  maxRequestBytes: string;
}

export interface ReplayCompactionOptions {
  /** `ORRERY_COMPACTION_*` read under the given settings (`{}`: none). */
  env: Environment;
  summarizer: EventsSummarizer;
  /** Token trigger; 0 turns it off. Default `REPLAY_DEFAULT_THRESHOLD`, or the environment's. */
  threshold?: number;
  retention?: number;
  interval?: number;
  overlap?: number;
  maxRequestBytes?: number;
  /** Cost-aware compaction at these catalog prices (docs/cost.md#cost-aware-compaction). */
  costAware?: CostAwareConfig;
  /** How errors name the settings (`orrery replay`'s flags, the inspector's request fields). */
  names: ReplaySettingNames;
}

export interface ReplayCompactionSettings {
  /** As reported: `null` when compaction is off (a 0 threshold and no interval). */
  config: EventsCompactionConfig | null;
  /** As replayed: `config`, or with compaction off a token trigger no request reaches. */
  replayConfig: EventsCompactionConfig;
}

/**
 * The settings as the config replay reports and the config it replays with. A byte ceiling
 * with compaction off is a `ReplaySettingsError` naming both settings (the ceiling is a
 * compaction: it would be silently dropped); invalid values are the config's
 * `InvalidConfigError`.
 */
export function replayCompactionSettings(
  options: ReplayCompactionOptions,
): ReplayCompactionSettings {
  const { env, summarizer } = options;
  const { names } = options;
  const tokenThreshold =
    options.threshold ??
    (env[COMPACTION_ENV.tokenThreshold] === undefined ? REPLAY_DEFAULT_THRESHOLD : undefined);
  const config = createEventsCompactionConfig({
    env,
    enabled: true,
    tokenThreshold,
    eventRetentionSize: options.retention,
    compactionInterval: options.interval,
    overlapSize: options.overlap,
    maxRequestBytes: options.maxRequestBytes,
    summarizer,
    ...(options.costAware && { costAware: options.costAware }),
  });
  if (config === null && options.maxRequestBytes !== undefined) {
    const off =
      options.threshold === undefined
        ? `${COMPACTION_ENV.tokenThreshold}=${env[COMPACTION_ENV.tokenThreshold]}`
        : `${names.threshold} ${options.threshold}`;
    throw new ReplaySettingsError({
      field: names.maxRequestBytes,
      message: `${names.maxRequestBytes} ${options.maxRequestBytes} needs compaction, which ${off} turns off: pass a threshold above 0 or an ${names.interval}`,
    });
  }
  // `replayTranscript` needs a trigger: with compaction off, one that never fires.
  const replayConfig =
    config ??
    (createEventsCompactionConfig({
      env: {},
      enabled: true,
      tokenThreshold: Number.MAX_SAFE_INTEGER,
      compactionInterval: 0,
      summarizer,
    }) as EventsCompactionConfig);
  return { config, replayConfig };
}
