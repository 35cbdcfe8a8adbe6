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
import type { Logger } from 'pino';
import { validateEventsCompactionConfig } from '../../compaction/config.js';
import type { EventsCompactionConfig, EventsSummarizer } from '../../compaction/types.js';
import { newId } from '../../events/event-helpers.js';
import { assertJsonValue } from '../../events/json-value.js';
import type { CompactionTrigger, NewEvent, SessionKey } from '../../events/types.js';
import { createRuntimeLogger } from '../../observability/compaction-log.js';
import type { CompactionReport, Compactor } from '../../runtime/compaction/compactor.js';
import { loadActiveView } from '../../runtime/view/active-view.js';
import { SessionAlreadyExistsError, SessionNotFoundError } from '../../sessions/errors.js';
import type { SessionService } from '../../sessions/session-service.js';
import {
  adapterSummarizers,
  afterTurnTriggers,
  attemptCompaction,
  createAdapterCompactor,
  reportCompaction,
} from '../shared/adapter-compaction.js';
import { checkCompactionGiven, checkName, checkSessionService } from '../shared/adapter-options.js';
import { AdapterTelemetry } from '../shared/adapter-telemetry.js';
import { changedView } from '../shared/view-change.js';
import { OpenAIAgentsAdapterError } from './errors.js';
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

export interface OrreryAgentsSessionOptions {
  /** Where the session is stored (in memory, SQLite, PostgreSQL, your own). */
  sessionService: SessionService;
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
  /** Writes the summaries; default `compaction.summarizer`, else a `DigestSummarizer`. */
  summarizer?: EventsSummarizer;
  /** Tried when the summarizer fails; default a `DigestSummarizer` (`null`: none). */
  fallbackSummarizer?: EventsSummarizer | null;
  /** Author of the assistant's stored events (default `assistant`). */
  agentName?: string;
  /** Called with each compaction attempt's report (metrics, tests). */
  onCompaction?: (report: CompactionReport) => void;
  /** Compaction lines and failures (masked). `false`: silent. */
  logger?: Logger | false;
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
  private readonly config: EventsCompactionConfig | null;
  private readonly compactor?: Compactor;
  private readonly logger: Logger;
  /** Compaction spans, under the host's active span. */
  private readonly telemetry = new AdapterTelemetry();
  private readonly onCompaction?: (report: CompactionReport) => void;
  /** One operation at a time on this object, so a turn's items keep their invocation. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Whether the session is known to exist in the store. */
  private created = false;
  /** The invocation of the newest stored item, when this object knows it. */
  private invocationId?: string;

  constructor(options: OrreryAgentsSessionOptions) {
    checkSessionService(options);
    checkName('sessionId', options.sessionId);
    checkName('appName', options.appName);
    checkName('userId', options.userId);
    checkName('agentName', options.agentName);
    checkCompactionGiven(options.compaction);
    this.sessionService = options.sessionService;
    this.key = {
      appName: options.appName ?? DEFAULT_APP_NAME,
      userId: options.userId ?? DEFAULT_USER_ID,
      sessionId: options.sessionId ?? crypto.randomUUID(),
    };
    this.agentName = options.agentName ?? DEFAULT_AGENT_NAME;
    this.logger = createRuntimeLogger({ logger: options.logger });
    this.onCompaction = options.onCompaction;
    this.config =
      options.compaction === null ? null : validateEventsCompactionConfig(options.compaction);
    if (this.config) {
      this.compactor = createAdapterCompactor({
        sessionService: this.sessionService,
        // The sliding window re-reads no overlap: raw events before the checkpoint may hold
        // popped items, which must not come back through a summary.
        config: {
          ...this.config,
          ...(this.config.overlapSize === undefined ? {} : { overlapSize: 0 }),
        },
        summarizers: adapterSummarizers({ ...options, config: this.config }),
      });
    }
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
      throw new OpenAIAgentsAdapterError({
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
      throw new OpenAIAgentsAdapterError({
        field: 'items',
        value: typeof items,
        message: 'expected an array of items',
      });
    }
    items.forEach((item, index) => {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) {
        throw new OpenAIAgentsAdapterError({
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
    const config = this.config;
    if (!config) return null;
    const triggers: CompactionTrigger[] = args?.force ? ['manual'] : afterTurnTriggers(config);
    return this.serialized(async () => {
      for (const trigger of triggers) {
        const report = await this.compactOnce(trigger);
        // An elision rule changed the view as a summary does: the later trigger waits.
        if (changedView(report)) return requestUsage(report);
      }
      return null;
    });
  }

  private async compactOnce(trigger: CompactionTrigger): Promise<CompactionReport> {
    const report = await attemptCompaction({
      sessionId: this.key.sessionId,
      trigger,
      attempt: async () =>
        this.compactor!.compact({
          ...this.key,
          trigger,
          force: trigger === 'manual',
          agentName: this.agentName,
          stored: (await this.readView()).stored,
        }),
    });
    await reportCompaction({
      report,
      key: this.key,
      logger: this.logger,
      telemetry: this.telemetry,
      onCompaction: this.onCompaction,
    });
    return report;
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
