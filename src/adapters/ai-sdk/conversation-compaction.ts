/**
 * One AI SDK conversation call through orrery: log what is new in the prompt, let the Runner's
 * `ContextGuard` compact and apply the ceilings, build the prompt to send (the system messages,
 * then the view), retry once with a smaller tail when the provider refuses the request for size,
 * and store the answer with the provider's usage. Shared by the middleware and `prepareStep`.
 */
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import type { Logger } from 'pino';
import { validateEventsCompactionConfig } from '../../compaction/config.js';
import { InvalidConfigError } from '../../compaction/errors.js';
import type { EventsCompactionConfig, EventsSummarizer } from '../../compaction/types.js';
import type { ActiveView } from '../../compaction/view.js';
import type { Content, SessionKey, UsageMetadata } from '../../events/types.js';
import { classifyModelError } from '../../models/classify-error.js';
import { isContextOverflowError } from '../../models/errors.js';
import { toUsageMetadata } from '../../models/from-ai-sdk-result.js';
import type { Model } from '../../models/types.js';
import { createRuntimeLogger } from '../../observability/compaction-log.js';
import {
  type CompactionReport,
  type Compactor,
  coolDownFor,
} from '../../runtime/compaction/compactor.js';
import {
  ContextGuard,
  estimateRequestOverhead,
  type GuardCompactOptions,
  measureView,
  type RequestOverhead,
} from '../../runtime/compaction/context-guard.js';
import type { SummarizerCoolDown } from '../../runtime/compaction/summarizer-cool-down.js';
import { ContextOverflowError } from '../../runtime/errors.js';
import type { SessionLeaseOptions } from '../../runtime/turn/session-lease.js';
import type { SessionService, StoredView } from '../../sessions/session-service.js';
import {
  type AdapterSummarizers,
  adapterSummarizers,
  createAdapterCompactor,
  logViewWarnings,
  sizingModel,
} from '../shared/adapter-compaction.js';
import { checkName } from '../shared/adapter-options.js';
import { AdapterTelemetry } from '../shared/adapter-telemetry.js';
import { compactLoggedConversation } from '../shared/conversation-compaction-step.js';
import { ConversationLock, type Release } from '../shared/conversation-lock.js';
import { AI_SDK_METADATA_KEY, ConversationLog } from '../shared/conversation-log.js';
import { chainIdentities, chainIdentity, contentIdentity } from '../shared/message-identity.js';
import { showsElision } from '../shared/view-change.js';
import {
  findCheckpoint,
  MessagesSessionView,
  messageEvents,
  saveCheckpoint,
} from './checkpoint-store.js';
import {
  type ConversationMessage,
  messageToContent,
  responseToContent,
} from './message-content.js';

export interface AiSdkCompactionOptions {
  /** Where conversations are stored (in memory, SQLite, PostgreSQL, your own). */
  sessionService: SessionService;
  /** When and how much to compact (`createEventsCompactionConfig()` reads it from the environment). */
  compaction: EventsCompactionConfig;
  /** Writes the summaries; defaults to `compaction.summarizer`. */
  summarizer?: EventsSummarizer;
  /** Tried when the summarizer fails; default a `DigestSummarizer` (`null`: none). */
  fallbackSummarizer?: EventsSummarizer | null;
  /** The session's app (default `ai-sdk`). */
  appName?: string;
  /** The session's user when a call names none in `providerOptions.orrery.userId` (default `anonymous`). */
  userId?: string;
  /** Author of the assistant's stored events (default `assistant`). */
  agentName?: string;
  /** The model's context window in tokens, when `knownContextWindowTokens` does not know it. */
  contextWindowTokens?: number;
  /** One call per conversation across processes (default on when the store has leases). */
  sessionLease?: SessionLeaseOptions | false;
  /** Called with each compaction attempt's report (metrics, tests). */
  onCompaction?: (report: CompactionReport) => void;
  /** Warnings (a response that could not be stored, view repairs); masked. `false`: silent. */
  logger?: Logger | false;
  /**
   * `log` (default): the session holds every message and answer (lossless recall, export,
   * replay). `checkpoints`: the app's own message array is the log and the session holds only
   * the summaries, each with the message position (`seq` = index + 1) it covers up to.
   */
  mode?: 'log' | 'checkpoints';
}

/** A prepared call: what to send and what to remember until the answer is stored. */
export interface PreparedCall {
  key: SessionKey;
  /**
   * The contents to send after the app's system messages (summary first), or `undefined` when
   * the view is exactly the app's messages (nothing compacted, repaired or cut): send those.
   */
  contents?: Content[];
  /** The invocation of the newest message (the step in progress). */
  invocationId: string;
  /** The answer's index in the conversation, and the chain it extends. */
  responseIndex: number;
  previousChain: string;
  overhead: RequestOverhead;
  model: Model;
  /** The view's contents (to size a retry after an overflow). */
  viewContents: Content[];
  /** The guard this call was prepared with (checkpoints mode builds one per call). */
  guard: ContextGuard;
}

export interface PrepareCallOptions {
  key: SessionKey;
  /** The app's messages without its system messages (those are not logged). */
  messages: readonly ConversationMessage[];
  /** The system messages' text (sized as request overhead). */
  systemInstruction?: string;
  tools?: LanguageModelV3CallOptions['tools'] | readonly unknown[];
  /** The model called: its context window bounds the request. */
  model: ModelInfo;
  /** Usage to store on the message at `index` (`prepareStep`: the previous step's). */
  usage?: { index: number; usageMetadata: UsageMetadata };
  signal?: AbortSignal;
}

/** What the guard needs of the model: its ids (the context window is looked up by name). */
export interface ModelInfo {
  provider: string;
  modelId: string;
}

const DEFAULT_APP_NAME = 'ai-sdk';
const DEFAULT_USER_ID = 'anonymous';
const DEFAULT_AGENT_NAME = 'assistant';

function isOverflow(error: unknown, options: { modelId: string; signal?: AbortSignal }): boolean {
  return isContextOverflowError(classifyModelError(error, options));
}

export class ConversationCompaction {
  readonly appName: string;
  readonly userId: string;
  readonly agentName: string;
  readonly sessionService: SessionService;
  private readonly log: ConversationLog;
  private readonly lock: ConversationLock;
  private readonly guard: ContextGuard;
  private readonly config: EventsCompactionConfig;
  private readonly summarizers: AdapterSummarizers;
  /** One cool-down for every call's Compactor (checkpoints mode builds one per call). */
  private readonly coolDown: SummarizerCoolDown;
  private readonly mode: 'log' | 'checkpoints';
  /** Checkpoints mode: the last answer's usage per conversation (nothing else remembers it). */
  private readonly lastUsage = new Map<
    string,
    { index: number; previousChain: string; usageMetadata: UsageMetadata }
  >();
  private readonly logger: Logger;
  /** Compaction spans, under the host's active span. */
  private readonly telemetry = new AdapterTelemetry();
  private readonly contextWindowTokens?: number;
  private readonly onCompaction?: (report: CompactionReport) => void;

  constructor(options: AiSdkCompactionOptions) {
    const config = validateEventsCompactionConfig(options.compaction);
    const summarizer = options.summarizer ?? config.summarizer;
    if (!summarizer) {
      throw new InvalidConfigError({
        field: 'summarizer',
        value: undefined,
        message:
          'compactionMiddleware needs a summarizer (option or compaction.summarizer), e.g. new DigestSummarizer()',
      });
    }
    checkName('appName', options.appName);
    checkName('userId', options.userId);
    checkName('agentName', options.agentName);
    this.appName = options.appName ?? DEFAULT_APP_NAME;
    this.userId = options.userId ?? DEFAULT_USER_ID;
    this.agentName = options.agentName ?? DEFAULT_AGENT_NAME;
    this.sessionService = options.sessionService;
    this.contextWindowTokens = options.contextWindowTokens;
    this.onCompaction = options.onCompaction;
    this.logger = createRuntimeLogger({ logger: options.logger });
    this.log = new ConversationLog({
      sessionService: options.sessionService,
      agentName: this.agentName,
    });
    this.lock = new ConversationLock({
      sessionService: options.sessionService,
      lease: options.sessionLease ?? {},
    });
    if (options.mode !== undefined && options.mode !== 'log' && options.mode !== 'checkpoints') {
      throw new InvalidConfigError({
        field: 'mode',
        value: options.mode,
        message: "expected 'log' or 'checkpoints'",
      });
    }
    this.mode = options.mode ?? 'log';
    this.config = config;
    this.coolDown = coolDownFor(config);
    this.summarizers = adapterSummarizers({
      config,
      summarizer,
      fallbackSummarizer: options.fallbackSummarizer,
    });
    this.guard = this.createGuard(options.sessionService);
  }

  /** The Runner's guard over `sessionService`, compacting with this adapter's summarizers. */
  private createGuard(sessionService: SessionService): ContextGuard {
    const compactor = createAdapterCompactor({
      sessionService,
      config: this.config,
      summarizers: this.summarizers,
      coolDown: this.coolDown,
    });
    return new ContextGuard({
      sessionService,
      config: this.config,
      compact: (compactOptions) => this.compact(compactOptions, compactor),
      onViewWarnings: logViewWarnings(this.logger),
    });
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

  /** Logs the prompt's new messages and builds the compacted prompt to send. */
  async prepare(options: PrepareCallOptions): Promise<PreparedCall> {
    const { key, model, signal } = options;
    const contents = options.messages.map(messageToContent);
    const chains = chainIdentities(contents);
    const overhead = estimateRequestOverhead({
      systemInstruction: options.systemInstruction,
      tools: options.tools,
    });
    const call: PreparedCall = {
      key,
      invocationId: '',
      responseIndex: contents.length,
      previousChain: chains.at(-1) ?? '',
      overhead,
      model: this.sizingModel(model),
      viewContents: [],
      guard: this.guard,
    };
    let stored: StoredView | undefined;
    if (this.mode === 'checkpoints') {
      const messages = await this.messagesView({ key, contents, chains, signal });
      call.guard = this.createGuard(messages.sessionService);
      call.invocationId = messages.invocationId;
    } else {
      const synced = await this.log.sync({ key, contents, chains, usage: options.usage, signal });
      call.invocationId = synced.invocationId;
      stored = synced.stored;
    }
    const prepared = await call.guard.prepare({ ...this.guardOptions(call, signal), stored });
    call.viewContents = prepared.view.contents;
    // Nothing compacted, repaired or cut: the app's own messages, as the AI SDK built them.
    if (!sameAsMessages(prepared.view, contents.length)) call.contents = prepared.view.contents;
    return call;
  }

  /** Checkpoints mode: the app's messages and the checkpoint that still matches them. */
  private async messagesView(options: {
    key: SessionKey;
    contents: Content[];
    chains: string[];
    signal?: AbortSignal;
  }): Promise<{ sessionService: MessagesSessionView; invocationId: string }> {
    const { key, contents, chains, signal } = options;
    const checkpoint = await findCheckpoint({
      sessionService: this.sessionService,
      key,
      chains,
      signal,
    });
    const usage = this.lastUsage.get(cursorKey(key));
    const { events, invocationId } = messageEvents({
      contents,
      chains,
      agentName: this.agentName,
      ...(usage && (chains[usage.index - 1] ?? '') === usage.previousChain
        ? { usage: { index: usage.index, usageMetadata: usage.usageMetadata } }
        : {}),
    });
    const sessionService = new MessagesSessionView({
      key,
      events,
      ...(checkpoint ? { checkpoint } : {}),
      persist: (event) =>
        saveCheckpoint({
          sessionService: this.sessionService,
          key,
          event: { ...event, compaction: event.actions.compaction },
          chain: chains[event.actions.compaction.endSeq - 1] ?? '',
          signal,
        }),
    });
    return { sessionService, invocationId };
  }

  /**
   * Sends the call (`send(call.contents)`); when the provider refuses it for size, compacts with
   * a smaller tail (or, when nothing could be summarized, truncates the view to half the refused
   * size) and sends once more. A second refusal is a `ContextOverflowError`; other errors pass
   * unchanged (so the AI SDK's own retries still see them).
   */
  async send<T>(options: {
    call: PreparedCall;
    send: (contents: Content[] | undefined) => PromiseLike<T>;
    signal?: AbortSignal;
  }): Promise<T> {
    const { call, send, signal } = options;
    const modelId = call.model.modelId;
    try {
      return await send(call.contents);
    } catch (error) {
      if (!isOverflow(error, { modelId, signal })) throw error;
      const guardOptions = this.guardOptions(call, signal);
      const compacted = await call.guard.compactForOverflow(guardOptions);
      const refused = measureView(
        { events: [], contents: call.viewContents, warnings: [] },
        call.overhead,
      );
      const shrinkTo = compacted
        ? undefined
        : { tokens: Math.floor(refused.tokens / 2), bytes: Math.floor(refused.bytes / 2) };
      const prepared = await call.guard.prepare({ ...guardOptions, shrinkTo });
      call.viewContents = prepared.view.contents;
      call.contents = prepared.view.contents;
      try {
        return await send(call.contents);
      } catch (retryError) {
        if (!isOverflow(retryError, { modelId, signal })) throw retryError;
        throw new ContextOverflowError({
          sessionId: call.key.sessionId,
          agentName: this.agentName,
          compacted,
          message: `Model '${modelId}' rejected the request for size again after ${compacted ? 'compacting with a smaller tail' : 'truncating the view'}: ${retryError instanceof Error ? retryError.message : String(retryError)}`,
          cause: retryError,
        });
      }
    }
  }

  /**
   * Stores the model's answer with the provider's usage (the next estimate anchors on its
   * `promptTokenCount`). A store failure is logged, not thrown: the answer still reaches the app,
   * and the next call logs it from the prompt (without its usage).
   */
  async record(options: {
    call: PreparedCall;
    content: readonly LanguageModelV3Content[];
    usage?: LanguageModelV3Usage;
    signal?: AbortSignal;
  }): Promise<void> {
    const { call } = options;
    const content = responseToContent(options.content);
    // An empty answer is no message in the next prompt (the AI SDK adds none).
    if (content.parts.length === 0) return;
    if (this.mode === 'checkpoints') {
      // The app keeps the answer; only its usage is remembered for the next estimate.
      const usageMetadata = toUsageMetadata(options.usage);
      if (usageMetadata) {
        this.lastUsage.set(cursorKey(call.key), {
          index: call.responseIndex,
          previousChain: call.previousChain,
          usageMetadata,
        });
      }
      return;
    }
    try {
      await this.log.appendResponse({
        key: call.key,
        content,
        index: call.responseIndex,
        chain: chainIdentity(call.previousChain, contentIdentity(content)),
        invocationId: call.invocationId,
        usageMetadata: toUsageMetadata(options.usage),
        signal: options.signal,
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      this.logger.warn(
        { msgType: 'response_not_stored', sessionId: call.key.sessionId, error: String(error) },
        'the model response could not be stored; the next call logs it from the prompt',
      );
    }
  }

  /** The model as the guard sees it: an id and a context window (it never calls it). */
  private sizingModel(model: ModelInfo): Model {
    return sizingModel({
      modelId: `${model.provider}:${model.modelId}`,
      name: model.modelId,
      contextWindowTokens: this.contextWindowTokens,
    });
  }

  private guardOptions(call: PreparedCall, signal: AbortSignal | undefined) {
    return {
      key: call.key,
      agentName: this.agentName,
      model: call.model,
      overhead: call.overhead,
      invocationId: call.invocationId,
      signal,
    };
  }

  /** One compaction attempt for the guard: reported, logged, and noted in the log's cursor. */
  private compact(options: GuardCompactOptions, compactor: Compactor): Promise<CompactionReport> {
    return compactLoggedConversation({
      request: options,
      compactor,
      log: this.log,
      logger: this.logger,
      telemetry: this.telemetry,
      onCompaction: this.onCompaction,
    });
  }
}

/** The view holds exactly the logged messages: no summary, elision, repair or cut. */
function sameAsMessages(view: ActiveView, messageCount: number): boolean {
  if (view.checkpoint || view.warnings.length > 0 || view.events.length !== messageCount) {
    return false;
  }
  // An elided output is not the app's message (docs/architecture.md#elision-the-cheap-tier).
  return view.events.every(
    (event) => event.customMetadata?.[AI_SDK_METADATA_KEY] !== undefined && !showsElision(event),
  );
}

function cursorKey(key: SessionKey): string {
  return JSON.stringify([key.appName, key.userId, key.sessionId]);
}
