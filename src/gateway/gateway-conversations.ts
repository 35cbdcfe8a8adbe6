/**
 * What every provider route of the gateway shares: one orrery session per conversation, logged
 * by the adapters' conversation log (only new messages are appended; a client that rewrites its
 * own history records a rewind and a branch, never duplicates), one request per session at a
 * time (the conversation lock, the store's lease across processes), and the Runner's context
 * guard, which compacts before the request goes out (docs/architecture.md#when-compaction-runs).
 */
import type { Logger } from 'pino';
import {
  adapterSummarizers,
  createAdapterCompactor,
  logViewWarnings,
  sizingModel,
} from '../adapters/shared/adapter-compaction.js';
import { AdapterTelemetry } from '../adapters/shared/adapter-telemetry.js';
import { compactLoggedConversation } from '../adapters/shared/conversation-compaction-step.js';
import { ConversationLock, type Release } from '../adapters/shared/conversation-lock.js';
import { ConversationLog } from '../adapters/shared/conversation-log.js';
import {
  chainIdentities,
  chainIdentity,
  contentIdentity,
} from '../adapters/shared/message-identity.js';
import { validateEventsCompactionConfig } from '../compaction/config.js';
import type { EventsCompactionConfig, EventsSummarizer } from '../compaction/types.js';
import type { ActiveView } from '../compaction/view.js';
import type { Content, SessionKey, UsageMetadata } from '../events/types.js';
import type { CompactionMetrics } from '../observability/metrics.js';
import type { CompactionReport, Compactor } from '../runtime/compaction/compactor.js';
import {
  ContextGuard,
  estimateRequestOverhead,
  type GuardCompactOptions,
} from '../runtime/compaction/context-guard.js';
import type { SessionLeaseOptions } from '../runtime/turn/session-lease.js';
import type { SessionService } from '../sessions/session-service.js';

/** Author of the upstream's stored answers (the usage anchor reads it). */
export const GATEWAY_AGENT_NAME = 'assistant';

export interface GatewayConversationsOptions {
  sessionService: SessionService;
  /** `null`: no compaction (the gateway then only logs and forwards). */
  compaction: EventsCompactionConfig | null;
  summarizer?: EventsSummarizer;
  sessionLease?: SessionLeaseOptions | false;
  logger: Logger;
  metrics?: CompactionMetrics;
  /**
   * Applied to every content before it is stored (the redaction plugin's rules). Identities
   * are still the client's own messages', so a resent history matches what was stored.
   */
  redact?: (content: Content) => Content;
}

/** A request's turn, once its messages are logged and its view prepared. */
export interface PreparedTurn {
  key: SessionKey;
  /** The view to forward (`undefined` without compaction: forward the client's messages). */
  view?: ActiveView;
  /** Whether the client's history left the stored log (a branch was recorded). */
  branched: boolean;
  /** Events this request appended before forwarding. */
  appended: number;
  /** The request's contents as stored (redacted when redaction is on), index for index. */
  storedContents: readonly Content[];
  /**
   * After the provider refused the forwarded request for size: compact with a smaller tail
   * and return the new view; when nothing could be summarized, the view cut to half the
   * refused size.
   */
  retryAfterOverflow(options: { rejectedBytes: number }): Promise<ActiveView>;
  /** Stores the upstream's answer (once), then releases the session. */
  finish(answer?: { content: Content; usageMetadata?: UsageMetadata }): Promise<void>;
}

/** Chains remembered for `matchSession` (least recently used dropped). */
const MAX_KNOWN_CHAINS = 100_000;

function knownKey(appName: string, userId: string, chain: string): string {
  return JSON.stringify([appName, userId, chain]);
}

export class GatewayConversations {
  private readonly log: ConversationLog;
  private readonly lock: ConversationLock;
  private readonly guard?: ContextGuard;
  private readonly compactor?: Compactor;
  private readonly logger: Logger;
  private readonly telemetry = new AdapterTelemetry();
  private readonly metrics?: CompactionMetrics;
  private readonly redact: (content: Content) => Content;
  /** Chain identity of a logged message -> its session, per app and user (in memory). */
  private readonly known = new Map<string, string>();

  constructor(options: GatewayConversationsOptions) {
    this.logger = options.logger;
    this.metrics = options.metrics;
    this.redact = options.redact ?? ((content) => content);
    this.log = new ConversationLog({
      sessionService: options.sessionService,
      agentName: GATEWAY_AGENT_NAME,
    });
    this.lock = new ConversationLock({
      sessionService: options.sessionService,
      lease: options.sessionLease ?? {},
    });
    if (options.compaction) {
      const config = validateEventsCompactionConfig(options.compaction);
      const summarizers = adapterSummarizers({ config, summarizer: options.summarizer });
      this.compactor = createAdapterCompactor({
        sessionService: options.sessionService,
        config,
        summarizers,
      });
      this.guard = new ContextGuard({
        sessionService: options.sessionService,
        config,
        compact: (compactOptions) => this.compact(compactOptions),
        onViewWarnings: logViewWarnings(this.logger),
      });
    }
  }

  private compact(options: GuardCompactOptions): Promise<CompactionReport> {
    const metrics = this.metrics;
    return compactLoggedConversation({
      request: options,
      compactor: this.compactor!,
      log: this.log,
      logger: this.logger,
      telemetry: this.telemetry,
      // Recorded after the log line and the span, as every adapter's `onCompaction`.
      onCompaction: metrics && ((report) => metrics.recordCompaction(report)),
    });
  }

  /**
   * The session a request without `x-orrery-session` continues: the one an answer this process
   * stored belongs to, when the request's history holds that answer with everything before it
   * (the newest such answer wins). Only answers are remembered, so two conversations that open
   * with the same message stay apart. In memory only: after a restart, such a request starts a
   * new session.
   */
  matchSession(options: {
    appName: string;
    userId: string;
    contents: readonly Content[];
  }): string | undefined {
    const chains = chainIdentities(options.contents);
    for (let index = chains.length - 1; index >= 0; index--) {
      const found = this.known.get(knownKey(options.appName, options.userId, chains[index]!));
      if (found !== undefined) return found;
    }
    return undefined;
  }

  private remember(key: SessionKey, chain: string | undefined): void {
    if (chain === undefined) return;
    const id = knownKey(key.appName, key.userId, chain);
    this.known.delete(id);
    this.known.set(id, key.sessionId);
    if (this.known.size > MAX_KNOWN_CHAINS) {
      const oldest = this.known.keys().next().value;
      if (oldest !== undefined) this.known.delete(oldest);
    }
  }

  /**
   * Logs the request's conversation (`contents`: its non-instruction messages) and prepares
   * the view to forward. The session stays locked until `finish` (call it on every path).
   */
  async prepare(options: {
    key: SessionKey;
    contents: readonly Content[];
    model: string;
    instruction: string;
    tools?: readonly unknown[];
    contextWindowTokens?: number;
    signal?: AbortSignal;
  }): Promise<PreparedTurn> {
    const { key, signal } = options;
    // Identities are the client's messages' (what it resends); what is stored is redacted.
    const chains = chainIdentities(options.contents);
    const contents = options.contents.map(this.redact);
    const release: Release = await this.lock.acquire({ key, signal });
    let finished = false;
    const finish = async (answer?: { content: Content; usageMetadata?: UsageMetadata }) => {
      if (finished) return;
      finished = true;
      try {
        if (answer) {
          const chain = chainIdentity(chains.at(-1) ?? '', contentIdentity(answer.content));
          this.remember(key, chain);
          await this.log.appendResponse({
            key,
            content: this.redact(answer.content),
            index: contents.length,
            chain,
            invocationId: synced.invocationId,
            usageMetadata: answer.usageMetadata,
          });
        }
      } finally {
        await release();
      }
    };
    let synced: Awaited<ReturnType<ConversationLog['sync']>>;
    try {
      synced = await this.log.sync({ key, contents, chains, signal });
      if (!this.guard) {
        const noView = (): Promise<ActiveView> =>
          Promise.reject(new Error('compaction is off: there is no view to shrink'));
        return {
          key,
          branched: synced.branched,
          appended: synced.appended,
          storedContents: contents,
          retryAfterOverflow: noView,
          finish,
        };
      }
      const guard = this.guard;
      const viewOptions = {
        key,
        agentName: GATEWAY_AGENT_NAME,
        model: sizingModel({
          modelId: options.model,
          name: options.model,
          contextWindowTokens: options.contextWindowTokens,
        }),
        overhead: estimateRequestOverhead({
          systemInstruction: options.instruction,
          tools: options.tools ?? [],
        }),
        invocationId: synced.invocationId,
        signal,
      };
      const prepared = await guard.prepare({ ...viewOptions, stored: synced.stored });
      const retryAfterOverflow = async ({ rejectedBytes }: { rejectedBytes: number }) => {
        const compacted = await guard.compactForOverflow(viewOptions);
        const shrinkTo = compacted
          ? undefined
          : { bytes: Math.max(1, Math.floor(rejectedBytes / 2)) };
        return (await guard.prepare({ ...viewOptions, ...(shrinkTo && { shrinkTo }) })).view;
      };
      return {
        key,
        view: prepared.view,
        branched: synced.branched,
        appended: synced.appended,
        storedContents: contents,
        retryAfterOverflow,
        finish,
      };
    } catch (error) {
      finished = true;
      await release();
      throw error;
    }
  }
}
