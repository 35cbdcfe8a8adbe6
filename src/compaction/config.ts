// CONTRACT STUB — implemented by the events/config work. Signatures are fixed; bodies are not.
import type { EventsCompactionConfig, EventsCompactionOptions } from './types.js';

export type Environment = Record<string, string | undefined>;

export interface CreateEventsCompactionConfigOptions extends EventsCompactionOptions {
  /** Defaults to `process.env` — read only here, at the caller's request, never at import. */
  env?: Environment;
}

/**
 * The validated configuration from code options over `ORRERY_*` variables, or `null` when
 * compaction is disabled. Throws `InvalidConfigError` naming the variable and value.
 */
export function createEventsCompactionConfig(
  options?: CreateEventsCompactionConfigOptions,
): EventsCompactionConfig | null {
  throw new Error('not implemented');
}

/** ADK's rules: pairs set together, at least one trigger, interval > 0, overlap >= 0, ... */
export function validateEventsCompactionConfig(
  config: EventsCompactionConfig,
): EventsCompactionConfig {
  throw new Error('not implemented');
}

/**
 * The summarizer model id: `ORRERY_COMPACTION_MODEL`; else `google:gemini-flash-latest` when the
 * agent runs on Google; else the agent's own model; `undefined` when there is none.
 */
export function resolveSummarizerModel(options: {
  agentModelId?: string;
  env?: Environment;
}): string | undefined {
  throw new Error('not implemented');
}
