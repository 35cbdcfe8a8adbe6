/**
 * One AI SDK conversation through the adapter core (`ConversationCore` with `aiSdkDialect`),
 * shared by the middleware and `prepareStep`. `mode: 'checkpoints'` keeps the app's message
 * array as the log: the step's messages are read from it and only summaries are stored.
 */
import type { Content, SessionKey, UsageMetadata } from '../../events/types.js';
import type { SessionService } from '../../sessions/session-service.js';
import { AdapterOptionError } from '../shared/adapter-option-error.js';
import {
  type ConversationAdapterOptions,
  ConversationCore,
  type ConversationStep,
  type SyncedStep,
} from '../shared/conversation-core.js';
import { type AiSdkAnswer, aiSdkDialect } from './ai-sdk-dialect.js';
import {
  findCheckpoint,
  MessagesSessionView,
  messageEvents,
  saveCheckpoint,
} from './checkpoint-store.js';
import type { ConversationMessage } from './message-content.js';

export interface AiSdkCompactionOptions extends ConversationAdapterOptions {
  /**
   * `log` (default): the session holds every message and answer (lossless recall, export,
   * replay). `checkpoints`: the app's own message array is the log and the session holds only
   * the summaries, each with the message position (`seq` = index + 1) it covers up to.
   */
  mode?: 'log' | 'checkpoints';
}

/** The core as the AI SDK adapter runs it. */
export type AiSdkConversation = ConversationCore<ConversationMessage, Content[], AiSdkAnswer>;
export type AiSdkStep = ConversationStep<ConversationMessage>;

const APP_NAME = 'ai-sdk';

/** The conversation core for `options.mode`. */
export function createAiSdkConversation(options: AiSdkCompactionOptions): AiSdkConversation {
  const { mode } = options;
  if (mode !== undefined && mode !== 'log' && mode !== 'checkpoints') {
    throw new AdapterOptionError({
      field: 'mode',
      value: mode,
      message: "expected 'log' or 'checkpoints'",
    });
  }
  const settings = { dialect: aiSdkDialect, appName: APP_NAME };
  return mode === 'checkpoints'
    ? new CheckpointsConversation(options, settings)
    : new ConversationCore(options, settings);
}

/** `mode: 'checkpoints'`: the app's messages are the session the guard sees, per step. */
class CheckpointsConversation extends ConversationCore<
  ConversationMessage,
  Content[],
  AiSdkAnswer
> {
  /** The last answer's usage per conversation (nothing else remembers it). */
  private readonly lastUsage = new Map<
    string,
    { index: number; previousChain: string; usageMetadata: UsageMetadata }
  >();

  /** The app's messages and the checkpoint that still matches them, as the step's session. */
  protected override async sync(options: {
    key: SessionKey;
    contents: readonly Content[];
    chains: readonly string[];
    signal?: AbortSignal;
  }): Promise<SyncedStep> {
    const { key, contents, chains, signal } = options;
    const store: SessionService = this.sessionService;
    const checkpoint = await findCheckpoint({ sessionService: store, key, chains, signal });
    const usage = this.lastUsage.get(conversationId(key));
    const { events, invocationId } = messageEvents({
      contents,
      chains,
      agentName: this.agentName,
      ...(usage && (chains[usage.index - 1] ?? '') === usage.previousChain
        ? { usage: { index: usage.index, usageMetadata: usage.usageMetadata } }
        : {}),
    });
    const messages = new MessagesSessionView({
      key,
      events,
      ...(checkpoint ? { checkpoint } : {}),
      persist: (event) =>
        saveCheckpoint({
          sessionService: store,
          key,
          event: { ...event, compaction: event.actions.compaction },
          chain: chains[event.actions.compaction.endSeq - 1] ?? '',
          signal,
        }),
    });
    return { guard: this.createGuard(messages), invocationId };
  }

  /** The app keeps the answer; only its usage is remembered for the next estimate. */
  protected override async store(options: {
    step: AiSdkStep;
    usageMetadata?: UsageMetadata;
  }): Promise<void> {
    const { step, usageMetadata } = options;
    if (!usageMetadata) return;
    this.lastUsage.set(conversationId(step.key), {
      index: step.contents.length,
      previousChain: step.chains.at(-1) ?? '',
      usageMetadata,
    });
  }
}

function conversationId(key: SessionKey): string {
  return JSON.stringify([key.appName, key.userId, key.sessionId]);
}
