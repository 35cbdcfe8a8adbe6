/**
 * The adapter core's step (docs/architecture.md#the-adapter-core), for a framework that hands
 * orrery its model call (the AI SDK's middleware and `prepareStep`, LangChain's middleware), as
 * ai's `AbstractChat` runs a chat over a framework's small `ChatState`: one core runs the step,
 * the framework's `ConversationDialect` maps its messages.
 *
 * A step: hold the conversation (`ConversationLock`), log the prompt's new messages
 * (`ConversationLog`), let the Runner's `ContextGuard` compact and build the view, send what
 * the dialect makes of it, compact with a smaller tail and send once more when the provider
 * refuses it for size, store the answer with its usage, release. Compactions are reported
 * (log line, span under the host's active span, `onCompaction`); none throws into the step.
 */
import type { EventsCompactionConfig } from '../../compaction/types.js';
import type { ActiveView } from '../../compaction/view.js';
import type { Content, SessionKey, UsageMetadata } from '../../events/types.js';
import { classifyModelError, looksLikeContextOverflow } from '../../models/classify-error.js';
import { isContextOverflowError } from '../../models/errors.js';
import type { Model } from '../../models/types.js';
import type { CompactionReport, Compactor } from '../../runtime/compaction/compactor.js';
import {
  ContextGuard,
  estimateRequestOverhead,
  type GuardCompactOptions,
  measureView,
  type RequestOverhead,
} from '../../runtime/compaction/context-guard.js';
import { ContextOverflowError } from '../../runtime/errors.js';
import type { SessionLeaseOptions } from '../../runtime/turn/session-lease.js';
import type { SessionService, StoredView } from '../../sessions/session-service.js';
import { errorMessage } from '../../util/error-message.js';
import { logViewWarnings, sizingModel } from './adapter-compaction.js';
import { type AdapterCompactionOptions, AdapterCore } from './adapter-core.js';
import { checkName } from './adapter-options.js';
import type { ConversationDialect } from './conversation-dialect.js';
import { ConversationLock, type Release } from './conversation-lock.js';
import { ConversationLog } from './conversation-log.js';
import { chainIdentities, chainIdentity, contentIdentity } from './message-identity.js';
import { appendedRecord } from './view-change.js';

/** The options of an adapter whose framework hands orrery the model call. */
export interface ConversationAdapterOptions extends AdapterCompactionOptions {
  /** When and how much to compact (`createEventsCompactionConfig()` reads the environment). */
  compaction: EventsCompactionConfig;
  /** The sessions' app (default the adapter's: `ai-sdk`, `langchain`). */
  appName?: string;
  /** The sessions' user when a call names none (default `anonymous`). */
  userId?: string;
  /** Author of the model's stored answers (default `assistant`). */
  agentName?: string;
  /** The model's context window in tokens, when orrery does not know the model's name. */
  contextWindowTokens?: number;
  /** One model call per conversation at a time across processes (default on with leases). */
  sessionLease?: SessionLeaseOptions | false;
}

/** The model as the guard sizes it: its id and the name its context window is known by. */
export interface StepModel {
  modelId: string;
  name: string;
}

export interface PrepareStepOptions<Message> {
  key: SessionKey;
  /** The framework's messages without its system messages (those are not logged). */
  messages: readonly Message[];
  /** The system messages' text and the tools (sized as request overhead). */
  systemInstruction?: string;
  tools?: readonly unknown[];
  model: StepModel;
  /** Usage to store on the message at `index` when it is logged (`prepareStep`). */
  usage?: { index: number; usageMetadata: UsageMetadata };
  signal?: AbortSignal;
}

/** A prepared step: the view to send and what the answer is stored with. */
export interface ConversationStep<Message> {
  key: SessionKey;
  messages: readonly Message[];
  contents: Content[];
  chains: string[];
  /** The invocation of the newest message (the step in progress). */
  invocationId: string;
  overhead: RequestOverhead;
  model: Model;
  guard: ContextGuard;
  view: ActiveView;
}

/** Where a step's messages are kept: the guard it is prepared with and its invocation. */
export interface SyncedStep {
  guard: ContextGuard;
  invocationId: string;
  /** The stored view after the sync, when known without another read. */
  stored?: StoredView;
}

const DEFAULT_USER_ID = 'anonymous';
const DEFAULT_AGENT_NAME = 'assistant';

export class ConversationCore<Message, View, Answer> {
  readonly appName: string;
  readonly userId: string;
  readonly agentName: string;
  readonly dialect: ConversationDialect<Message, View, Answer>;
  protected readonly core: AdapterCore;
  protected readonly log: ConversationLog;
  private readonly lock: ConversationLock;
  private readonly guard: ContextGuard;
  private readonly contextWindowTokens?: number;

  constructor(
    options: ConversationAdapterOptions,
    settings: { dialect: ConversationDialect<Message, View, Answer>; appName: string },
  ) {
    checkName('appName', options.appName);
    checkName('userId', options.userId);
    checkName('agentName', options.agentName);
    this.core = new AdapterCore(options);
    this.dialect = settings.dialect;
    this.appName = options.appName ?? settings.appName;
    this.userId = options.userId ?? DEFAULT_USER_ID;
    this.agentName = options.agentName ?? DEFAULT_AGENT_NAME;
    this.contextWindowTokens = options.contextWindowTokens;
    this.log = new ConversationLog({
      sessionService: options.sessionService,
      agentName: this.agentName,
    });
    this.lock = new ConversationLock({
      sessionService: options.sessionService,
      lease: options.sessionLease ?? {},
    });
    this.guard = this.createGuard(options.sessionService);
  }

  get sessionService(): SessionService {
    return this.core.sessionService;
  }

  get config(): EventsCompactionConfig {
    return this.core.config!;
  }

  /** The session key of a conversation. */
  key(options: { conversationId: string; userId?: string }): SessionKey {
    return {
      appName: this.appName,
      userId: options.userId ?? this.userId,
      sessionId: options.conversationId,
    };
  }

  /** Holds the conversation until the returned release is called. */
  acquire(options: { key: SessionKey; signal?: AbortSignal }): Promise<Release> {
    return this.lock.acquire(options);
  }

  /** A whole step: hold, prepare, send (retrying once on overflow), store the answer, release. */
  async run<T extends Answer>(
    options: PrepareStepOptions<Message> & { send: (view: View | undefined) => T | PromiseLike<T> },
  ): Promise<T> {
    const { key, signal } = options;
    const release = await this.acquire({ key, signal });
    try {
      const step = await this.prepare(options);
      const answer = await this.send({ step, send: options.send, signal });
      await this.record({ step, answer, signal });
      return answer;
    } finally {
      await release();
    }
  }

  /** Logs the new messages and prepares the view (compacting as the guard decides). */
  async prepare(options: PrepareStepOptions<Message>): Promise<ConversationStep<Message>> {
    const { key, messages, signal } = options;
    const contents = messages.map((message) => this.dialect.toContent(message));
    const chains = chainIdentities(contents);
    const synced = await this.sync({ key, contents, chains, usage: options.usage, signal });
    const step: Omit<ConversationStep<Message>, 'view'> = {
      key,
      messages,
      contents,
      chains,
      invocationId: synced.invocationId,
      overhead: estimateRequestOverhead({
        systemInstruction: options.systemInstruction,
        tools: options.tools,
      }),
      model: sizingModel({ ...options.model, contextWindowTokens: this.contextWindowTokens }),
      guard: synced.guard,
    };
    const prepared = await synced.guard.prepare({
      ...this.guardOptions(step, signal),
      stored: synced.stored,
    });
    return { ...step, view: prepared.view };
  }

  /** What the dialect sends for the step's view (`undefined`: the framework's own request). */
  viewOf(step: ConversationStep<Message>): View | undefined {
    return this.dialect.toView(step);
  }

  /**
   * Sends the step; when the provider refuses it for size, compacts with a smaller tail (or,
   * when nothing could be summarized, cuts the view to half the refused size) and sends once
   * more. A second refusal is a `ContextOverflowError`; other errors pass unchanged.
   */
  async send<T>(options: {
    step: ConversationStep<Message>;
    send: (view: View | undefined) => T | PromiseLike<T>;
    signal?: AbortSignal;
  }): Promise<T> {
    const { step, send, signal } = options;
    try {
      return await send(this.viewOf(step));
    } catch (error) {
      if (!this.isOverflow(error, step, signal)) throw error;
      const guardOptions = this.guardOptions(step, signal);
      const compacted = await step.guard.compactForOverflow(guardOptions);
      const refused = measureView(step.view, step.overhead);
      const shrinkTo = compacted
        ? undefined
        : { tokens: Math.floor(refused.tokens / 2), bytes: Math.floor(refused.bytes / 2) };
      step.view = (await step.guard.prepare({ ...guardOptions, shrinkTo })).view;
      try {
        return await send(this.viewOf(step));
      } catch (retryError) {
        if (!this.isOverflow(retryError, step, signal)) throw retryError;
        throw new ContextOverflowError({
          sessionId: step.key.sessionId,
          agentName: this.agentName,
          compacted,
          message: `Model '${step.model.modelId}' rejected the request for size again after ${compacted ? 'compacting with a smaller tail' : 'truncating the view'}: ${errorMessage(retryError)}`,
          cause: retryError,
        });
      }
    }
  }

  /**
   * Stores the answer with its usage (the next estimate anchors on it). A store failure is
   * logged, not thrown: the answer still reaches the app, and the next step logs it from the
   * messages (without its usage).
   */
  async record(options: {
    step: ConversationStep<Message>;
    answer: Answer;
    signal?: AbortSignal;
  }): Promise<void> {
    const { step, signal } = options;
    const { content, usageMetadata } = this.dialect.toAnswer(options.answer);
    // An empty answer is no message in the next request (the frameworks add none).
    if (content.parts.length === 0) return;
    try {
      await this.store({ step, content, usageMetadata, signal });
    } catch (error) {
      if (signal?.aborted) throw error;
      this.core.logger.warn(
        { msgType: 'response_not_stored', sessionId: step.key.sessionId, error: String(error) },
        'the model answer could not be stored; the next step logs it from the messages',
      );
    }
  }

  /** Appends the step's new messages to the conversation log (a subclass may keep them elsewhere). */
  protected async sync(options: {
    key: SessionKey;
    contents: readonly Content[];
    chains: readonly string[];
    usage?: { index: number; usageMetadata: UsageMetadata };
    signal?: AbortSignal;
  }): Promise<SyncedStep> {
    const synced = await this.log.sync(options);
    return { guard: this.guard, invocationId: synced.invocationId, stored: synced.stored };
  }

  /** Appends the answer to the conversation log as the message after the step's. */
  protected async store(options: {
    step: ConversationStep<Message>;
    content: Content;
    usageMetadata?: UsageMetadata;
    signal?: AbortSignal;
  }): Promise<void> {
    const { step, content } = options;
    await this.log.appendResponse({
      key: step.key,
      content,
      index: step.contents.length,
      chain: chainIdentity(step.chains.at(-1) ?? '', contentIdentity(content)),
      invocationId: step.invocationId,
      ...(options.usageMetadata ? { usageMetadata: options.usageMetadata } : {}),
      signal: options.signal,
    });
  }

  /** The Runner's guard over `sessionService`, compacting with this adapter's summarizers. */
  protected createGuard(sessionService: SessionService): ContextGuard {
    const compactor = this.core.createCompactor({ sessionService })!;
    return new ContextGuard({
      sessionService,
      config: this.config,
      compact: (request) => this.compact(request, compactor),
      onViewWarnings: logViewWarnings(this.core.logger),
    });
  }

  /** One attempt for the guard: reported, and its appended record noted in the log's cursor. */
  private async compact(
    request: GuardCompactOptions,
    compactor: Compactor,
  ): Promise<CompactionReport> {
    const { key, ...rest } = request;
    const report = await this.core.attempt({
      key,
      trigger: rest.trigger,
      signal: rest.signal,
      compact: () => compactor.compact({ ...key, ...rest }),
    });
    const appended = appendedRecord(report);
    if (appended) this.log.noteAppended(key, appended.seq);
    return report;
  }

  private isOverflow(
    error: unknown,
    step: ConversationStep<Message>,
    signal: AbortSignal | undefined,
  ): boolean {
    if (signal?.aborted) return false;
    if (this.dialect.isOverflow?.(error)) return true;
    if (
      isContextOverflowError(classifyModelError(error, { modelId: step.model.modelId, signal }))
    ) {
      return true;
    }
    // A provider SDK's own error (LangChain's, OpenAI's): its status and wording.
    const status: unknown =
      error !== null && typeof error === 'object'
        ? (Reflect.get(error, 'status') ?? Reflect.get(error, 'statusCode'))
        : undefined;
    const statusCode = typeof status === 'number' ? status : undefined;
    return looksLikeContextOverflow(statusCode, errorMessage(error));
  }

  private guardOptions(step: Omit<ConversationStep<Message>, 'view'>, signal?: AbortSignal) {
    return {
      key: step.key,
      agentName: this.agentName,
      model: step.model,
      overhead: step.overhead,
      invocationId: step.invocationId,
      signal,
    };
  }
}
