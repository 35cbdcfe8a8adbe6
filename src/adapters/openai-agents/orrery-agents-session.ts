/**
 * A `Session` for OpenAI Agents JS (`@openai/agents`) backed by any orrery `SessionService`.
 * Every item the Runner adds is stored as one orrery event (the original item in
 * `customMetadata`, so it reads back exactly); `getItems` returns orrery's view (the summary
 * first, then the tail); `runCompaction`, which the Runner calls after each completed turn,
 * runs orrery's Compactor; `popItem` and `clearSession` append tombstones and delete nothing.
 * `@openai/agents` is imported for its types only: this module never loads it.
 */
import type {
  AgentInputItem,
  OpenAIResponsesCompactionArgs,
  OpenAIResponsesCompactionAwareSession,
  OpenAIResponsesCompactionResult,
} from '@openai/agents';
import type { EventsCompactionConfig } from '../../compaction/types.js';
import { newId } from '../../events/event-helpers.js';
import { assertJsonValue } from '../../events/json-value.js';
import type { NewEvent, SessionKey } from '../../events/types.js';
import type { CompactionReport, Compactor } from '../../runtime/compaction/compactor.js';
import { loadActiveView } from '../../runtime/view/active-view.js';
import { SessionAlreadyExistsError, SessionNotFoundError } from '../../sessions/errors.js';
import type { SessionService } from '../../sessions/session-service.js';
import { type AdapterCompactionOptions, AdapterCore } from '../shared/adapter-core.js';
import { AdapterOptionError } from '../shared/adapter-option-error.js';
import { checkName } from '../shared/adapter-options.js';
import { type ItemRecord, isResultItem, itemToContent } from './item-content.js';
import {
  buildSessionView,
  type ItemBatch,
  OPENAI_AGENTS_METADATA_KEY,
  type SessionView,
  startsTurn,
  type Tombstone,
  tombstoneEvent,
} from './session-view.js';

export interface OrreryAgentsSessionOptions extends AdapterCompactionOptions {
  /** The orrery session id (generated when omitted; `getSessionId()` returns it). */
  sessionId?: string;
  /** The session's app (default `openai-agents`). */
  appName?: string;
  /** The session's user (default `anonymous`). */
  userId?: string;
  /**
   * When and how much to compact (`createEventsCompactionConfig()` reads it from the
   * environment); `null`: never compact (the session still stores everything).
   */
  compaction: EventsCompactionConfig | null;
  /** Author of the assistant's stored events (default `assistant`). */
  agentName?: string;
}

const DEFAULT_APP_NAME = 'openai-agents';
const DEFAULT_USER_ID = 'anonymous';
const DEFAULT_AGENT_NAME = 'assistant';

/** The summarizer's usage as the Agents SDK counts a request (`null`: it reported none). */
function requestUsage(report: CompactionReport): OpenAIResponsesCompactionResult | null {
  const usage = report.event?.usageMetadata;
  if (!usage) return null;
  const inputTokens = usage.promptTokenCount ?? 0;
  const outputTokens = usage.candidatesTokenCount ?? 0;
  return {
    usage: {
      inputTokens,
      outputTokens,
      totalTokens: usage.totalTokenCount ?? inputTokens + outputTokens,
      inputTokensDetails: {},
      outputTokensDetails: {},
      endpoint: 'orrery.compact',
    },
  };
}

export class OrreryAgentsSession implements OpenAIResponsesCompactionAwareSession {
  readonly key: SessionKey;
  private readonly sessionService: SessionService;
  private readonly agentName: string;
  /** The adapter core: the compaction after a turn, reported and never thrown. */
  private readonly core: AdapterCore;
  private readonly compactor?: Compactor;
  /** One operation at a time on this object, so a turn's items keep their invocation. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Whether the session is known to exist in the store. */
  private created = false;
  /** The invocation of the newest stored item, when this object knows it. */
  private invocationId?: string;

  constructor(options: OrreryAgentsSessionOptions) {
    this.core = new AdapterCore(options);
    checkName('sessionId', options.sessionId);
    checkName('appName', options.appName);
    checkName('userId', options.userId);
    checkName('agentName', options.agentName);
    this.sessionService = options.sessionService;
    this.key = {
      appName: options.appName ?? DEFAULT_APP_NAME,
      userId: options.userId ?? DEFAULT_USER_ID,
      sessionId: options.sessionId ?? crypto.randomUUID(),
    };
    this.agentName = options.agentName ?? DEFAULT_AGENT_NAME;
    this.compactor = this.core.createCompactor({
      // The sliding window re-reads no overlap: raw events before the checkpoint may hold
      // popped items, which must not come back through a summary.
      adjust: (config) => ({
        ...config,
        ...(config.overlapSize === undefined ? {} : { overlapSize: 0 }),
      }),
    });
  }

  async getSessionId(): Promise<string> {
    return this.serialized(async () => {
      await this.ensureCreated();
      return this.key.sessionId;
    });
  }

  /** The view: the summary (a user message) first, then the tail; the newest `limit` of it. */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit))) {
      throw new AdapterOptionError({
        field: 'limit',
        value: limit,
        message: 'expected a whole number of items (or none for all)',
      });
    }
    return this.serialized(async () => {
      if (limit !== undefined && limit <= 0) return [];
      const view = await this.readView();
      const entries = limit === undefined ? view.entries : view.entries.slice(-limit);
      return entries.map((entry) => structuredClone(entry.item) as AgentInputItem);
    });
  }

  /**
   * Stores each item as one orrery event, all or nothing: when the store fails midway the items
   * already stored stay hidden (a batch mark, see `session-view.ts`) and the error is thrown.
   * Items must be JSON (the Runner's always are).
   */
  async addItems(items: AgentInputItem[]): Promise<void> {
    if (!Array.isArray(items)) {
      throw new AdapterOptionError({
        field: 'items',
        value: typeof items,
        message: 'expected an array of items',
      });
    }
    items.forEach((item, index) => {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) {
        throw new AdapterOptionError({
          field: `items[${index}]`,
          value: item === null ? null : typeof item,
          message: 'expected an item object',
        });
      }
      // Checked before anything is stored: a bad item stores none of the batch.
      assertJsonValue(item, `items[${index}]`);
    });
    if (items.length === 0) return;
    await this.serialized(async () => {
      await this.ensureCreated();
      let invocationId = this.invocationId;
      if (invocationId === undefined && !startsTurn(items[0] as ItemRecord)) {
        invocationId = (await this.readView()).lastInvocationId;
      }
      // One append is whole already; more are marked as one batch.
      const batchId = items.length > 1 ? newId() : undefined;
      for (const [index, original] of items.entries()) {
        const item = structuredClone(original) as ItemRecord;
        if (invocationId === undefined || startsTurn(item)) invocationId = newId();
        const batch =
          batchId === undefined ? undefined : { id: batchId, index, size: items.length };
        await this.append(this.itemEvent(item, invocationId, batch));
      }
      // Only once all are stored: after a failure the next item continues what is shown.
      this.invocationId = invocationId;
    });
  }

  /**
   * Hides the newest item of the view and returns it. When only the summary is left, hides the
   * summary (and with it everything it covers). Nothing stored is deleted.
   */
  async popItem(): Promise<AgentInputItem | undefined> {
    return this.serialized(async () => {
      const view = await this.readView();
      const last = view.entries.at(-1);
      if (!last) return undefined;
      await this.append(this.tombstone({ seq: last.seq }));
      return structuredClone(last.item) as AgentInputItem;
    });
  }

  /** Hides everything stored so far (one tombstone); the session and its history remain. */
  async clearSession(): Promise<void> {
    await this.serialized(async () => {
      let lastSeq: number;
      try {
        lastSeq = (await this.sessionService.loadView({ ...this.key })).lastSeq;
      } catch (error) {
        if (SessionNotFoundError.isInstance(error)) return;
        throw error;
      }
      this.created = true;
      if (lastSeq > 0) await this.append(this.tombstone({ throughSeq: lastSeq }));
    });
  }

  /**
   * The Runner's hook after each completed turn: orrery's token trigger, then its sliding
   * window (`force`: one manual compaction). Best effort: a failure is logged and reported
   * through `onCompaction`, never thrown into the run. Returns the summarizer's usage when it
   * reported some, else `null`.
   */
  async runCompaction(
    args?: OpenAIResponsesCompactionArgs,
  ): Promise<OpenAIResponsesCompactionResult | null> {
    const compactor = this.compactor;
    if (!compactor) return null;
    return this.serialized(async () => {
      const changed = await this.core.compactAfterTurn({
        key: this.key,
        ...(args?.force ? { triggers: ['manual' as const] } : {}),
        compact: async (trigger) =>
          compactor.compact({
            ...this.key,
            trigger,
            force: trigger === 'manual',
            agentName: this.agentName,
            stored: (await this.readView()).stored,
          }),
      });
      return changed ? requestUsage(changed) : null;
    });
  }

  private itemEvent(item: ItemRecord, invocationId: string, batch?: ItemBatch): NewEvent {
    const content = itemToContent(item);
    const fromUser = content.role === 'user' && !isResultItem(item);
    return {
      id: newId(),
      invocationId,
      author: fromUser ? 'user' : this.agentName,
      timestamp: Date.now() / 1000,
      content,
      actions: {},
      customMetadata: { [OPENAI_AGENTS_METADATA_KEY]: { item, ...(batch ? { batch } : {}) } },
    };
  }

  private tombstone(tombstone: Tombstone): NewEvent {
    // A tombstone ends the turn it cuts into: the next item starts a new invocation.
    this.invocationId = undefined;
    return tombstoneEvent({ id: newId(), invocationId: newId(), tombstone });
  }

  private async append(event: NewEvent): Promise<void> {
    await this.sessionService.appendEvent({ ...this.key, event });
  }

  private async readView(): Promise<SessionView> {
    try {
      const stored = await loadActiveView({ sessionService: this.sessionService, ...this.key });
      this.created = true;
      return buildSessionView(stored);
    } catch (error) {
      if (!SessionNotFoundError.isInstance(error)) throw error;
      return buildSessionView({ tail: [], lastSeq: 0 });
    }
  }

  private async ensureCreated(): Promise<void> {
    if (this.created) return;
    try {
      await this.sessionService.createSession({ ...this.key });
    } catch (error) {
      // It exists already (another process, an earlier run): that is the session we want.
      if (!SessionAlreadyExistsError.isInstance(error)) throw error;
    }
    this.created = true;
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
