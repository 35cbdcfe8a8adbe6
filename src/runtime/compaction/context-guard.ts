/**
 * Keeps every model request under the limits: before each call the token trigger, then the
 * ceilings (`maxRequestBytes`, the model's context window) with a smaller retained tail, and as
 * a last resort oversized tool output truncated in the view only.
 */
import { fitViewToCeilings } from '../../compaction/ceilings.js';
import { TailFacts } from '../../compaction/tail-facts.js';
import {
  ContentTokenMemo,
  estimateContentBytes,
  estimateContentListBytes,
  estimateContentListTokens,
  estimateContentTokens,
  estimateEventTokens,
} from '../../compaction/token-estimate.js';
import {
  estimateNextRequest,
  retentionTokensFor,
  unreadUserMessageIndex,
} from '../../compaction/triggers.js';
import type {
  CompactionRequest,
  EventsCompactionConfig,
  ViewScope,
} from '../../compaction/types.js';
import { type ActiveView, summaryContent, type ViewWarning } from '../../compaction/view.js';
import type { Content, Event, SessionKey } from '../../events/types.js';
import type { FunctionDeclaration, Model } from '../../models/types.js';
import type { SessionService, StoredView } from '../../sessions/session-service.js';
import { ContextOverflowError, MessageTooLargeError } from '../errors.js';
import { loadActiveView } from '../view/active-view.js';
import { OrphanCallRestorer } from '../view/restore-calls.js';
import { type CompactionReport, changedView } from './compactor.js';
import { type CostAwareModel, costAwareDecision } from './cost-aware.js';

export interface RequestOverhead {
  /** System instruction + tool declarations. */
  tokens: number;
  bytes: number;
}

export function estimateRequestOverhead(options: {
  systemInstruction?: string;
  /** Function declarations, or a transcript's raw tool definitions: estimated as their JSON. */
  tools?: readonly FunctionDeclaration[] | readonly unknown[];
}): RequestOverhead {
  const instruction = options.systemInstruction ?? '';
  const tools = options.tools && options.tools.length > 0 ? JSON.stringify(options.tools) : '';
  const content = { role: 'user' as const, parts: [{ text: instruction }, { text: tools }] };
  return {
    tokens: instruction || tools ? estimateContentTokens(content) : 0,
    bytes: Buffer.byteLength(instruction, 'utf8') + Buffer.byteLength(tools, 'utf8'),
  };
}

export interface GuardCompactOptions extends CompactionRequest {
  key: SessionKey;
  /** The view as `loadView` would return it now, when just read (see `CompactOptions`). */
  stored?: StoredView;
  /** The turn the attempt runs in (see `CompactOptions.turnId`). */
  turnId?: string;
  signal?: AbortSignal;
}

/** After this outcome the store holds what it held before the attempt. */
function wroteNothing(report: CompactionReport): boolean {
  return report.outcome === 'skipped';
}

/** The Runner's compaction call: never throws for compaction failures (logged and counted). */
export type GuardCompact = (options: GuardCompactOptions) => Promise<CompactionReport>;

export interface PrepareViewOptions {
  key: SessionKey;
  agentName: string;
  branch?: string;
  /** Under a workflow with branches: whose view (docs/workflows.md#branch-views). */
  scope?: ViewScope;
  model: Model;
  overhead: RequestOverhead;
  invocationId: string;
  /** Extra limits for a retry after an overflow the compaction could not shrink. */
  shrinkTo?: { tokens?: number; bytes?: number };
  /**
   * The stored view as `loadView` would return it now (the caller saw every write since its
   * last read): used instead of the first read.
   */
  stored?: StoredView;
  /** Seconds since the epoch of this request (cost-aware compaction's cache age). Default: now. */
  nowSeconds?: number;
  signal?: AbortSignal;
}

export interface PreparedView {
  view: ActiveView;
  /** The stored view the request was assembled from (after any compaction). */
  stored: StoredView;
}

export interface ViewSize {
  tokens: number;
  bytes: number;
}

/**
 * The request's estimated tokens and bytes. `bytes: false` skips the byte count (a JSON
 * serialization of every content) when no byte ceiling applies: `bytes` is then the overhead's;
 * `tokens: false` likewise skips the token count when no token limit applies. With `memo`, contents
 * estimated before (the same objects) are not scanned again: the same figure, less work.
 */
export function measureView(
  view: ActiveView,
  overhead: RequestOverhead,
  options: {
    bytes?: boolean;
    tokens?: boolean;
    memo?: ContentTokenMemo;
    /** The contents' token total, when the caller keeps one (`OrphanCallRestorer.contentTokens`). */
    contentTokens?: (contents: readonly Content[]) => number;
  } = {},
): ViewSize {
  const countBytes = options.bytes ?? true;
  const bytes = overhead.bytes + (countBytes ? estimateContentListBytes(view.contents) : 0);
  const countTokens = options.tokens ?? true;
  const memo = options.memo;
  const contents = !countTokens
    ? 0
    : options.contentTokens
      ? options.contentTokens(view.contents)
      : memo
        ? memo.listTokens(view.contents)
        : estimateContentListTokens(view.contents);
  return { tokens: overhead.tokens + contents, bytes };
}

/**
 * The retained tail for overflow and ceilings: half the events and half the token budget the
 * configuration (or the ceilings) would allow, so the retry is strictly smaller.
 */
export function smallerRetention(options: {
  config: EventsCompactionConfig;
  tailLength: number;
  contextWindowTokens?: number;
}): { events: number; tokens?: number } {
  const { config } = options;
  const budgets = [
    config.retentionTokenBudget,
    config.tokenThreshold ? retentionTokensFor(config.tokenThreshold) : undefined,
    options.contextWindowTokens ? retentionTokensFor(options.contextWindowTokens) : undefined,
    // The byte ceiling at ~4 bytes a token.
    config.maxRequestBytes ? retentionTokensFor(config.maxRequestBytes / 4) : undefined,
  ].filter((value): value is number => value !== undefined && value > 0);
  const events = Math.max(
    1,
    Math.floor(Math.min(config.eventRetentionSize ?? options.tailLength, options.tailLength) / 2),
  );
  if (budgets.length === 0) return { events };
  return { events, tokens: Math.max(1, Math.floor(Math.min(...budgets) / 2)) };
}

function sessionTurnKey(key: SessionKey): string {
  return JSON.stringify([key.appName, key.userId, key.sessionId]);
}

/** Sessions whose oversized summary the guard remembers at most (the oldest are forgotten). */
const MAX_OVERSIZED_TURNS = 1_000;

export class ContextGuard {
  private readonly sessionService: SessionService;
  /**
   * Per session, the turn (invocation) in which a ceiling compaction left the request over the
   * ceiling: its summary alone is too big. A second one in that turn would store another
   * summary as big (each folds the previous one in), so the turn truncates in the view instead.
   */
  private readonly oversizedTurns = new Map<string, string>();
  private readonly config: EventsCompactionConfig;
  private readonly compact: GuardCompact;
  private readonly restorer: OrphanCallRestorer;
  private readonly onViewWarnings?: (options: { key: SessionKey; warnings: ViewWarning[] }) => void;
  private readonly estimateEvent?: (event: Event) => number;
  private readonly costModel?: () => Promise<CostAwareModel | undefined>;
  /** The view's contents are re-assembled from the same stored events each turn: estimated once. */
  private readonly contentTokens = new ContentTokenMemo();
  /** Each view's elision rule, extended turn by turn instead of scanned for. */
  private readonly tailFacts = new TailFacts();

  constructor(options: {
    sessionService: SessionService;
    config: EventsCompactionConfig;
    compact: GuardCompact;
    /** Called with the warnings of each view sent to a model (orphans, dangling calls, cuts). */
    onViewWarnings?: (options: { key: SessionKey; warnings: ViewWarning[] }) => void;
    /**
     * How the token trigger estimates a stored event (default `estimateEventTokens`): a guard
     * that serves one session (replay) passes a `SessionEventTokens` cache.
     */
    estimateEvent?: (event: Event) => number;
    /**
     * Cost-aware compaction's prices (docs/cost.md#cost-aware-compaction): with it, the token
     * trigger compacts when and as deep as the expected spend says, never above the threshold.
     */
    costModel?: () => Promise<CostAwareModel | undefined>;
  }) {
    this.sessionService = options.sessionService;
    this.config = options.config;
    this.compact = options.compact;
    this.restorer = new OrphanCallRestorer({
      sessionService: options.sessionService,
      memo: this.contentTokens,
    });
    this.onViewWarnings = options.onViewWarnings;
    this.estimateEvent = options.estimateEvent;
    this.costModel = options.costModel;
  }

  private load(options: {
    key: SessionKey;
    scope?: ViewScope;
    signal?: AbortSignal;
  }): Promise<StoredView> {
    return loadActiveView({
      sessionService: this.sessionService,
      ...options.key,
      scope: options.scope,
      signal: options.signal,
    });
  }

  private overCeilings(size: ViewSize, model: Model): boolean {
    const { maxRequestBytes } = this.config;
    if (maxRequestBytes !== undefined && size.bytes > maxRequestBytes) return true;
    return model.contextWindowTokens !== undefined && size.tokens > model.contextWindowTokens;
  }

  /** The view for the next model call, compacted as needed. */
  async prepareView(options: PrepareViewOptions): Promise<ActiveView> {
    return (await this.prepare(options)).view;
  }

  /** `prepareView`, also returning the stored view it was assembled from. */
  async prepare(options: PrepareViewOptions): Promise<PreparedView> {
    const { key, agentName, branch, model, overhead, invocationId, signal } = options;
    const common = {
      key,
      agentName,
      branch,
      scope: options.scope,
      overheadTokens: overhead.tokens,
      currentInvocationId: invocationId,
      signal,
    };
    let stored = options.stored ?? (await this.load(options));
    const turnKey = sessionTurnKey(key);
    // The user's new message is sent whole or not at all: never summarized, never cut.
    const unreadIndex = unreadUserMessageIndex(stored.tail, invocationId);
    const unread = unreadIndex === -1 ? undefined : stored.tail[unreadIndex];
    if (unread) this.checkMessageFits({ key, message: unread, model, overhead });
    // Whether `stored` is still what the store holds (a compaction attempt may have written).
    let current = true;
    // The same session as the same scope sees it: extended from the last turn's when it can be.
    const viewKey = JSON.stringify([turnKey, options.scope ? (options.scope.branch ?? '') : null]);
    const { tokenThreshold } = this.config;
    if (tokenThreshold) {
      const estimate = estimateNextRequest({
        checkpoint: stored.checkpoint,
        tail: stored.tail,
        agentName,
        branch,
        overheadTokens: overhead.tokens,
        estimateEvent: this.estimateEvent,
        latestElision: this.tailFacts.latestElision({ viewKey, events: stored.tail }) ?? null,
      });
      const costModel = await this.costModel?.();
      const cost = costModel
        ? costAwareDecision({
            model: costModel,
            config: this.config,
            checkpoint: stored.checkpoint,
            tail: stored.tail,
            requestTokens: estimate.tokens,
            overheadTokens: overhead.tokens,
            nowSeconds: options.nowSeconds ?? Date.now() / 1000,
            estimateEvent: this.estimateEvent ?? estimateEventTokens,
          })
        : undefined;
      if (cost ? cost.compact : estimate.tokens >= tokenThreshold) {
        const report = await this.compact({
          ...common,
          stored,
          trigger: 'token_threshold',
          ...(cost?.force && { force: true }),
          ...(cost?.retention && { retention: cost.retention }),
          ...(cost?.note && { costChoice: cost.note }),
        });
        if (changedView(report)) {
          stored = await this.load(options);
          this.noteSummarySize({ turnKey, stored, model, overhead, invocationId });
        } else current = wroteNothing(report);
      }
    }
    let view = await this.restorer.assemble({ key, stored, viewKey, signal });
    // Bytes only matter under a byte ceiling (the config's or a retry's), tokens under a limit.
    const measure = {
      bytes: this.config.maxRequestBytes !== undefined || options.shrinkTo?.bytes !== undefined,
      tokens: model.contextWindowTokens !== undefined || options.shrinkTo?.tokens !== undefined,
      contentTokens: (contents: readonly Content[]) =>
        this.restorer.contentTokens({ viewKey, contents }),
    };
    let size = measureView(view, overhead, measure);
    if (this.overCeilings(size, model) && !this.summaryOversizedIn(turnKey, invocationId)) {
      // The retained tail alone is over a ceiling: compact again keeping less.
      const report = await this.compact({
        ...common,
        stored: current ? stored : undefined,
        trigger: 'overflow',
        force: true,
        retention: smallerRetention({
          config: this.config,
          tailLength: stored.tail.length,
          contextWindowTokens: model.contextWindowTokens,
        }),
      });
      if (report.outcome === 'compacted') {
        stored = await this.load(options);
        view = await this.restorer.assemble({ key, stored, viewKey, signal });
        size = measureView(view, overhead, measure);
        this.noteSummarySize({ turnKey, stored, model, overhead, invocationId });
      }
    }
    const limits = this.limits(model, overhead, options.shrinkTo);
    if (
      (limits.bytes !== undefined && size.bytes - overhead.bytes > limits.bytes) ||
      (limits.tokens !== undefined && size.tokens > limits.tokens)
    ) {
      // Last resort: truncate oversized tool output, the summary and long texts in the view
      // only (storage keeps them whole); the user's unread message stays whole.
      const fitted = fitViewToCeilings({
        checkpoint: stored.checkpoint,
        tail: stored.tail,
        view,
        maxRequestBytes: limits.bytes,
        maxTokens: limits.tokens,
        overheadTokens: overhead.tokens,
        keepWhole: new Set(unread ? [unread.id] : []),
      });
      view = fitted;
      size = { tokens: fitted.tokens, bytes: fitted.bytes + overhead.bytes };
    }
    const { maxRequestBytes } = this.config;
    if (maxRequestBytes !== undefined && size.bytes > maxRequestBytes) {
      // Never sent over the ceiling: what is left cannot be cut (calls' arguments, structure).
      throw new ContextOverflowError({
        sessionId: key.sessionId,
        agentName,
        compacted: true,
        message: `The request for agent '${agentName}' is ${size.bytes} bytes after compacting and truncating, over maxRequestBytes=${maxRequestBytes} by ${size.bytes - maxRequestBytes} bytes; it was not sent`,
      });
    }
    if (view.warnings.length > 0) this.onViewWarnings?.({ key, warnings: view.warnings });
    return { view, stored };
  }

  /** Throws `MessageTooLargeError` when the message alone makes the request too large. */
  private checkMessageFits(options: {
    key: SessionKey;
    message: Event;
    model: Model;
    overhead: RequestOverhead;
  }): void {
    const { key, message, model, overhead } = options;
    const content = message.content;
    if (!content) return;
    const common = { sessionId: key.sessionId, eventId: message.id, seq: message.seq };
    const { maxRequestBytes } = this.config;
    if (maxRequestBytes !== undefined) {
      const bytes = overhead.bytes + estimateContentBytes(content);
      if (bytes > maxRequestBytes) {
        throw new MessageTooLargeError({
          ...common,
          unit: 'bytes',
          size: bytes,
          limit: maxRequestBytes,
          ceiling: 'maxRequestBytes',
        });
      }
    }
    const window = model.contextWindowTokens;
    if (window !== undefined) {
      const tokens = overhead.tokens + estimateContentTokens(content);
      if (tokens > window) {
        throw new MessageTooLargeError({
          ...common,
          unit: 'tokens',
          size: tokens,
          limit: window,
          ceiling: `contextWindowTokens of '${model.modelId}'`,
        });
      }
    }
  }

  /** Content bytes (overhead excluded) and request tokens (overhead included) allowed. */
  private limits(
    model: Model,
    overhead: RequestOverhead,
    shrinkTo: PrepareViewOptions['shrinkTo'],
  ): { bytes?: number; tokens?: number } {
    const bytes = [this.config.maxRequestBytes, shrinkTo?.bytes]
      .filter((value): value is number => value !== undefined)
      .map((value) => Math.max(1, value - overhead.bytes));
    const tokens = [model.contextWindowTokens, shrinkTo?.tokens].filter(
      (value): value is number => value !== undefined,
    );
    return {
      bytes: bytes.length > 0 ? Math.min(...bytes) : undefined,
      tokens: tokens.length > 0 ? Math.min(...tokens) : undefined,
    };
  }

  /** Whether a ceiling compaction in this turn left a summary over the ceiling by itself. */
  private summaryOversizedIn(turnKey: string, invocationId: string): boolean {
    const turn = this.oversizedTurns.get(turnKey);
    if (turn === undefined) return false;
    if (turn === invocationId) return true;
    this.oversizedTurns.delete(turnKey);
    return false;
  }

  /** After a compaction wrote in this turn: remember when its summary alone is over a ceiling. */
  private noteSummarySize(options: {
    turnKey: string;
    stored: StoredView;
    model: Model;
    overhead: RequestOverhead;
    invocationId: string;
  }): void {
    const { stored, model, overhead } = options;
    if (!stored.checkpoint) return;
    const summary = summaryContent(stored.checkpoint);
    const size = {
      bytes: overhead.bytes + estimateContentBytes(summary),
      tokens: overhead.tokens + estimateContentTokens(summary),
    };
    if (this.overCeilings(size, model))
      this.rememberOversized(options.turnKey, options.invocationId);
  }

  private rememberOversized(turnKey: string, invocationId: string): void {
    this.oversizedTurns.delete(turnKey);
    this.oversizedTurns.set(turnKey, invocationId);
    if (this.oversizedTurns.size > MAX_OVERSIZED_TURNS) {
      const oldest = this.oversizedTurns.keys().next().value;
      if (oldest !== undefined) this.oversizedTurns.delete(oldest);
    }
  }

  /**
   * After a provider rejected a request for size: compact with a smaller tail (not again in a
   * turn whose summary is over the ceiling by itself: the retry truncates the view instead).
   */
  async compactForOverflow(options: Omit<PrepareViewOptions, 'shrinkTo'>): Promise<boolean> {
    if (this.summaryOversizedIn(sessionTurnKey(options.key), options.invocationId)) return false;
    const stored = await this.load(options);
    const report = await this.compact({
      key: options.key,
      stored,
      trigger: 'overflow',
      force: true,
      agentName: options.agentName,
      branch: options.branch,
      scope: options.scope,
      overheadTokens: options.overhead.tokens,
      currentInvocationId: options.invocationId,
      retention: smallerRetention({
        config: this.config,
        tailLength: stored.tail.length,
        contextWindowTokens: options.model.contextWindowTokens,
      }),
      signal: options.signal,
    });
    return report.outcome === 'compacted';
  }
}
