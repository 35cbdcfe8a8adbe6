/**
 * orrery's lossless compaction as a LangChain.js v1 agent middleware. It changes only the model
 * request (`wrapModelCall`): the request's messages become orrery's view of the state's
 * messages, the summary first and then the tail, while the graph state keeps every message.
 * (LangChain's `summarizationMiddleware` deletes them: it replaces the state's messages.)
 *
 * Where the summary lives: in an orrery `SessionService`, one session per LangGraph thread
 * (`config.configurable.thread_id`). Each call logs the state's new messages there (the shared
 * conversation log: messages are matched by chained identity, so a fork or an edit of the
 * thread is recorded as a branch, never rewritten), lets the Runner's `ContextGuard` compact,
 * and stores the answer with its usage. The store holds the whole conversation as orrery events
 * (audit, export, `orrery view`); the request is built from the state's own message objects.
 */
import type { BaseMessage } from '@langchain/core/messages';
import { type AgentMiddleware, createMiddleware } from 'langchain';
import type { Logger } from 'pino';
import { validateEventsCompactionConfig } from '../../compaction/config.js';
import type { EventsCompactionConfig, EventsSummarizer } from '../../compaction/types.js';
import type { SessionKey } from '../../events/types.js';
import { createRuntimeLogger } from '../../observability/compaction-log.js';
import type { CompactionReport, Compactor } from '../../runtime/compaction/compactor.js';
import {
  ContextGuard,
  estimateRequestOverhead,
  type GuardCompactOptions,
} from '../../runtime/compaction/context-guard.js';
import type { SessionLeaseOptions } from '../../runtime/turn/session-lease.js';
import type { SessionService } from '../../sessions/session-service.js';
import {
  adapterSummarizers,
  createAdapterCompactor,
  logViewWarnings,
  sizingModel,
} from '../shared/adapter-compaction.js';
import { checkName, checkSessionService } from '../shared/adapter-options.js';
import { AdapterTelemetry } from '../shared/adapter-telemetry.js';
import { compactLoggedConversation } from '../shared/conversation-compaction-step.js';
import { ConversationLock } from '../shared/conversation-lock.js';
import { ConversationLog } from '../shared/conversation-log.js';
import { chainIdentities, chainIdentity, contentIdentity } from '../shared/message-identity.js';
import { LangChainAdapterError } from './errors.js';
import { messageToContent, usageOf } from './message-content.js';
import { sameMessages, viewMessages } from './request-messages.js';

export interface OrreryCompactionMiddlewareOptions {
  /** Where the threads' conversations and summaries are stored. */
  sessionService: SessionService;
  /** When and how much to compact (`createEventsCompactionConfig()` reads the environment). */
  compaction: EventsCompactionConfig;
  /** Writes the summaries; default `compaction.summarizer`, else a `DigestSummarizer`. */
  summarizer?: EventsSummarizer;
  /** Tried when the summarizer fails; default a `DigestSummarizer` (`null`: none). */
  fallbackSummarizer?: EventsSummarizer | null;
  /** The sessions' app (default `langchain`). */
  appName?: string;
  /** The sessions' user (default `anonymous`). */
  userId?: string;
  /** Author of the model's stored answers (default `assistant`). */
  agentName?: string;
  /** The model's context window in tokens, when orrery does not know the model's name. */
  contextWindowTokens?: number;
  /** One model call per thread at a time across processes (default on when the store has leases). */
  sessionLease?: SessionLeaseOptions | false;
  /** Called with each compaction attempt's report (metrics, tests). */
  onCompaction?: (report: CompactionReport) => void;
  /** Compaction lines and view repairs (masked). `false`: silent. */
  logger?: Logger | false;
}

const DEFAULT_APP_NAME = 'langchain';
const DEFAULT_USER_ID = 'anonymous';
const DEFAULT_AGENT_NAME = 'assistant';

/** The model's name as orrery looks up its context window (`gpt-4o`, `claude-...`). */
function modelName(model: unknown): string {
  for (const field of ['model', 'modelName', 'modelId']) {
    const value: unknown =
      model !== null && typeof model === 'object' ? Reflect.get(model, field) : undefined;
    if (typeof value === 'string' && value !== '') return value;
  }
  return 'unknown';
}

/** Tools as the request overhead counts them: name and description (schemas vary by kind). */
function toolDescriptions(tools: readonly unknown[]): { name: string; description: string }[] {
  return tools.map((tool) => {
    const name: unknown =
      tool !== null && typeof tool === 'object' ? Reflect.get(tool, 'name') : undefined;
    const description: unknown =
      tool !== null && typeof tool === 'object' ? Reflect.get(tool, 'description') : undefined;
    return { name: String(name ?? ''), description: String(description ?? '') };
  });
}

/** The orrery pieces one middleware shares across its calls. */
class ThreadCompaction {
  readonly log: ConversationLog;
  readonly lock: ConversationLock;
  readonly guard: ContextGuard;
  private readonly compactor: Compactor;
  private readonly logger: Logger;
  /** Compaction spans, under the host's active span. */
  private readonly telemetry = new AdapterTelemetry();
  private readonly onCompaction?: (report: CompactionReport) => void;

  constructor(options: OrreryCompactionMiddlewareOptions, agentName: string) {
    const config = validateEventsCompactionConfig(options.compaction);
    const summarizers = adapterSummarizers({ ...options, config });
    this.logger = createRuntimeLogger({ logger: options.logger });
    this.onCompaction = options.onCompaction;
    this.log = new ConversationLog({ sessionService: options.sessionService, agentName });
    this.lock = new ConversationLock({
      sessionService: options.sessionService,
      lease: options.sessionLease ?? {},
    });
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

  /** One compaction attempt for the guard: reported, logged, and noted in the log's cursor. */
  private compact(options: GuardCompactOptions): Promise<CompactionReport> {
    return compactLoggedConversation({
      request: options,
      compactor: this.compactor,
      log: this.log,
      logger: this.logger,
      telemetry: this.telemetry,
      onCompaction: this.onCompaction,
    });
  }

  /** Stores the answer; a store failure is logged (the next call logs it from the state). */
  async record(options: {
    key: SessionKey;
    answer: BaseMessage;
    index: number;
    previousChain: string;
    invocationId: string;
    signal?: AbortSignal;
  }): Promise<void> {
    const content = messageToContent(options.answer);
    try {
      await this.log.appendResponse({
        key: options.key,
        content,
        index: options.index,
        chain: chainIdentity(options.previousChain, contentIdentity(content)),
        invocationId: options.invocationId,
        usageMetadata: usageOf(options.answer),
        signal: options.signal,
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      this.logger.warn(
        { msgType: 'response_not_stored', sessionId: options.key.sessionId, error: String(error) },
        'the model answer could not be stored; the next call logs it from the state',
      );
    }
  }
}

/**
 * The middleware: `createAgent({ model, tools, middleware: [orreryCompactionMiddleware({...})],
 * checkpointer })`, invoked with `{ configurable: { thread_id } }`.
 */
export function orreryCompactionMiddleware(
  options: OrreryCompactionMiddlewareOptions,
): AgentMiddleware {
  checkSessionService(options);
  checkName('appName', options.appName);
  checkName('userId', options.userId);
  checkName('agentName', options.agentName);
  const appName = options.appName ?? DEFAULT_APP_NAME;
  const userId = options.userId ?? DEFAULT_USER_ID;
  const agentName = options.agentName ?? DEFAULT_AGENT_NAME;
  const threads = new ThreadCompaction(options, agentName);

  return createMiddleware({
    name: 'OrreryCompactionMiddleware',
    wrapModelCall: async (request, handler) => {
      const threadId = request.runtime.configurable?.thread_id;
      if (typeof threadId !== 'string' || threadId === '') {
        throw new LangChainAdapterError({
          field: 'config.configurable.thread_id',
          value: threadId,
          message:
            'orrery keeps one session per thread: invoke the agent with a thread_id (and a checkpointer)',
        });
      }
      const signal = request.runtime.signal;
      const key: SessionKey = { appName, userId, sessionId: threadId };
      const messages = request.messages;
      const contents = messages.map(messageToContent);
      const chains = chainIdentities(contents);
      const release = await threads.lock.acquire({ key, signal });
      try {
        const synced = await threads.log.sync({ key, contents, chains, signal });
        const name = modelName(request.model);
        const sizing = sizingModel({
          modelId: name,
          name,
          contextWindowTokens: options.contextWindowTokens,
        });
        const prepared = await threads.guard.prepare({
          key,
          agentName,
          model: sizing,
          overhead: estimateRequestOverhead({
            systemInstruction: request.systemMessage?.text ?? request.systemPrompt,
            tools: toolDescriptions(request.tools ?? []),
          }),
          invocationId: synced.invocationId,
          stored: synced.stored,
          signal,
        });
        const viewed = viewMessages({ view: prepared.view, messages, chains });
        const answer = await handler(
          sameMessages(viewed, messages) ? request : { ...request, messages: viewed },
        );
        await threads.record({
          key,
          answer,
          index: contents.length,
          previousChain: chains.at(-1) ?? '',
          invocationId: synced.invocationId,
          signal,
        });
        return answer;
      } finally {
        await release();
      }
    },
  });
}
