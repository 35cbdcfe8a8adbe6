/**
 * The last request each session's agent sent, as sent (docs/cost.md#summaries-that-reuse-the-agents-cache):
 * a summary on the same model re-sends it, so the provider bills its prefix as a cache read.
 * Bounded: the most recent sessions only, and a request older than a prompt cache lives is not
 * handed out (its prefix is no longer cached, and a standalone summary reads less).
 */
import type { SessionKey } from '../../events/types.js';
import type { Model, ModelRequest } from '../../models/types.js';

export interface RecordedAgentRequest {
  /** The model that answered it. */
  model: Model;
  agentName: string;
  /** The request as sent, without its signal. */
  request: Omit<ModelRequest, 'signal'>;
  /** `Date.now()` when it was answered. */
  atMs: number;
}

export interface AgentRequestLogOptions {
  /** Sessions remembered, the least recently used forgotten first. Default 256. */
  maxSessions?: number;
  /** A request older than this is not handed out. Default 300 000 (Anthropic's 5-minute cache). */
  maxAgeMs?: number;
  /** The clock (tests). */
  now?: () => number;
}

export const AGENT_REQUEST_DEFAULTS = Object.freeze({ maxSessions: 256, maxAgeMs: 300_000 });

function keyOf(key: SessionKey, branch: string | undefined): string {
  return JSON.stringify([key.appName, key.userId, key.sessionId, branch ?? null]);
}

export class AgentRequestLog {
  private readonly entries = new Map<string, RecordedAgentRequest>();
  private readonly maxSessions: number;
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(options: AgentRequestLogOptions = {}) {
    this.maxSessions = options.maxSessions ?? AGENT_REQUEST_DEFAULTS.maxSessions;
    this.maxAgeMs = options.maxAgeMs ?? AGENT_REQUEST_DEFAULTS.maxAgeMs;
    this.now = options.now ?? Date.now;
  }

  /** Remembers `request` (the contents are held, not copied: the view built them for it). */
  record(options: {
    key: SessionKey;
    branch?: string;
    agentName: string;
    model: Model;
    request: ModelRequest;
  }): void {
    const { signal: _signal, ...request } = options.request;
    const id = keyOf(options.key, options.branch);
    this.entries.delete(id);
    this.entries.set(id, {
      model: options.model,
      agentName: options.agentName,
      request,
      atMs: this.now(),
    });
    if (this.entries.size > this.maxSessions) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  /** The session's (branch's) last request, or why there is none to reuse. */
  lookup(key: SessionKey, branch?: string): RecordedAgentRequest | { missing: string } {
    const entry = this.entries.get(keyOf(key, branch));
    if (!entry) return { missing: 'no_request: no agent request recorded for this session' };
    const ageMs = this.now() - entry.atMs;
    if (ageMs > this.maxAgeMs) {
      return {
        missing: `expired: the agent's last request is ${Math.round(ageMs / 1000)} s old (cache lifetime ${this.maxAgeMs / 1000} s)`,
      };
    }
    return entry;
  }

  /** Forgets the session (its prefix changed for good: a compaction was written). */
  forget(key: SessionKey, branch?: string): void {
    this.entries.delete(keyOf(key, branch));
  }
}
