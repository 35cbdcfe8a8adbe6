/**
 * An app: an agent with the Runner settings that go with it, as an agent module's default
 * export (`orrery run|chat|serve --agent ./agent.ts`). `defineApp` only types it.
 */
import type { EventsCompactionConfig, EventsSummarizer } from '../../compaction/types.js';
import type { Agent } from '../agents/agent.js';
import type { Plugin } from '../plugins/plugin.js';
import type { SessionLeaseOptions } from './session-lease.js';

export interface AgentApp {
  agent: Agent;
  /** Sessions are scoped by it. Default: the agent's name. */
  appName?: string;
  /** As `RunnerOptions.compaction`: omitted, from the environment; `null`, off. */
  compaction?: EventsCompactionConfig | null;
  /** As `RunnerOptions.summarizer`. */
  summarizer?: EventsSummarizer;
  plugins?: Plugin[];
  /** As `RunnerOptions.sessionLease`. */
  sessionLease?: SessionLeaseOptions | false;
}

/** The fields an `AgentApp` may have (anything else in a module's app is a mistake). */
export const AGENT_APP_FIELDS = [
  'agent',
  'appName',
  'compaction',
  'summarizer',
  'plugins',
  'sessionLease',
] as const satisfies ReadonlyArray<keyof AgentApp>;

/** Returns `app` as given: `export default defineApp({ agent, compaction: { ... } })`. */
export function defineApp<T extends AgentApp>(app: T): T {
  return app;
}
