/**
 * Replay: play a recorded transcript into a store as if it were live, with compaction on, and
 * report what each model request would have held. Before each model-authored event the request
 * is prepared as the Runner's ContextGuard prepares it: the token trigger on the view that
 * request would have held (recorded usage is ignored: the store the Compactor reads hides it),
 * then the byte ceiling (`maxRequestBytes`) with a smaller tail and, as a last resort, oversized
 * tool output truncated in the view only; after each invocation the sliding window and the token trigger
 * run, as the Runner does. Offline with a deterministic summarizer; the store keeps every event.
 */
import { rewindTarget } from '../compaction/expanded-view.js';
import { SessionEventTokens } from '../compaction/token-estimate.js';
import { countCompletedInvocations } from '../compaction/triggers.js';
import type { EventsCompactionConfig, EventsSummarizer } from '../compaction/types.js';
import { isCompactionEvent } from '../events/event-helpers.js';
import { IMPORT_REPAIR_KEY } from '../events/metadata-keys.js';
import type { CompactionTrigger, Content, Event, NewEvent, SessionKey } from '../events/types.js';
import type { Model } from '../models/types.js';
import { InMemorySessionService } from '../sessions/in-memory-session-service.js';
import type { SessionService, StoredView } from '../sessions/session-service.js';
import { type CompactionReport, Compactor } from './compactor.js';
import { ContextGuard, estimateRequestOverhead } from './context-guard.js';
import { RunnerConfigError } from './errors.js';
import { RequestMeasure } from './request-measure.js';
import { UncompactedViewTokens } from './uncompacted-view-tokens.js';

export interface ReplayCompaction {
  trigger: CompactionTrigger;
  /** Position of the first summarized event in the replayed events, counting from 1. */
  startSeq: number;
  /** Position of the last summarized event, counting from 1. */
  endSeq: number;
  tokensBefore: number;
  tokensAfter: number;
  /** The model call (1-based) it ran before; `modelCalls + 1` when it ran after the last. */
  beforeCall: number;
  /** The summarizer that wrote the summary (the fallback's name when the fallback did). */
  summarizer: string;
  /** Set when the fallback wrote it: the summarizer that failed first, and why when recorded. */
  fallback?: { from: string; reason?: string };
}

/** Estimated tokens of one model request, with compaction and without (for a chart). */
export interface ReplayRequest {
  withCompaction: number;
  withoutCompaction: number;
  /** Bytes of the request with compaction: contents as JSON + instruction + tools. */
  bytes: number;
}

export interface ReplayReport {
  /** The session the replay wrote (in `sessionService`). */
  sessionId: string;
  /** Events replayed (recorded compaction events are left out and re-decided). */
  events: number;
  modelCalls: number;
  compactions: ReplayCompaction[];
  /** The largest request with compaction, in estimated tokens. */
  maxViewTokens: number;
  /** The largest request with compaction, in bytes (what `maxRequestBytes` bounds). */
  maxViewBytes: number;
  /** Requests that held a function call or response without its partner. */
  orphans: number;
  /** The stored history holds every replayed event, unchanged and in order. */
  lossless: boolean;
  /** Sums over every model call. */
  tokens: { withoutCompaction: number; withCompaction: number };
  /** One entry per model call, in order. */
  requests: ReplayRequest[];
  /** Compaction attempts that failed or lost a race (never fatal): `trigger: reason`. */
  failures: string[];
  /** Compaction events found in `events` (e.g. an ADK import), left out of the replay. */
  recordedCompactionsIgnored: number;
  /** Tokens counted in every request besides the contents (instruction, tool declarations). */
  overheadTokens: number;
}

export interface ReplayProgress {
  /** Events replayed so far. */
  index: number;
  total: number;
  compactions: number;
}

export interface ReplayTranscriptOptions {
  /** The recorded events, in order (e.g. `importTranscript(...).events`). */
  events: NewEvent[];
  /** Which triggers run and how much they keep (e.g. `createEventsCompactionConfig(...)`). */
  config: EventsCompactionConfig;
  /** Default: `config.summarizer`. A `DigestSummarizer` keeps the replay offline. */
  summarizer?: EventsSummarizer;
  /** Tried when the summarizer fails. */
  fallbackSummarizer?: EventsSummarizer;
  /** Where the replayed session is written. Default: a new `InMemorySessionService`. */
  sessionService?: SessionService;
  appName?: string;
  userId?: string;
  /** Default: `replay-<random>`; the session must not exist yet. */
  sessionId?: string;
  /** Initial state of the replayed session. */
  state?: Record<string, unknown>;
  /** The transcript's system instruction: counted in every request. */
  systemInstruction?: string;
  /** The transcript's tool declarations: counted in every request (as JSON). */
  tools?: unknown[];
  /** Overrides the overhead computed from `systemInstruction` and `tools`. */
  overheadTokens?: number;
  /**
   * Which events stand for a model request. Default: events authored by an agent with a model
   * role, except calls an importer synthesized to repair an orphan result.
   */
  isModelCall?: (event: NewEvent) => boolean;
  /** Called after each event is stored. */
  onProgress?: (progress: ReplayProgress) => void;
  signal?: AbortSignal;
}

/** A model-authored event stands for one model request; synthesized repair calls do not. */
export function isRecordedModelCall(event: NewEvent): boolean {
  return (
    event.author !== 'user' &&
    event.content?.role === 'model' &&
    event.customMetadata?.[IMPORT_REPAIR_KEY] === undefined
  );
}

/** Replays `events` through compaction and reports each request's size, orphans and losslessness. */
export async function replayTranscript(options: ReplayTranscriptOptions): Promise<ReplayReport> {
  const { signal, config } = options;
  const summarizer = options.summarizer ?? config.summarizer;
  if (!summarizer) {
    throw new RunnerConfigError({
      field: 'summarizer',
      value: undefined,
      message:
        'replay needs a summarizer: pass one (e.g. new DigestSummarizer()) or set config.summarizer',
    });
  }
  const service = options.sessionService ?? new InMemorySessionService();
  const key: SessionKey = {
    appName: options.appName ?? 'orrery',
    userId: options.userId ?? 'replay',
    sessionId: options.sessionId ?? `replay-${crypto.randomUUID()}`,
  };
  const isModelCall = options.isModelCall ?? isRecordedModelCall;
  const replayed = options.events.filter((event) => !isCompactionEvent(event));
  // Counted as the Runner counts it, so a replayed request is sized like a live one.
  const estimatedOverhead = estimateRequestOverhead({
    systemInstruction: options.systemInstruction,
    tools: options.tools,
  });
  const overheadTokens = options.overheadTokens ?? estimatedOverhead.tokens;
  const overhead = { tokens: overheadTokens, bytes: estimatedOverhead.bytes };
  await service.createSession({ ...key, state: options.state, signal });

  const compactions: ReplayCompaction[] = [];
  const failures: string[] = [];
  const requests: ReplayRequest[] = [];
  /** Store seq -> position in `replayed` (1-based). */
  const positions = new Map<number, number>();
  // Every request's figures are kept current as events are appended, never recounted whole.
  const uncompacted = new UncompactedViewTokens();
  const measure = new RequestMeasure(overhead);
  /** The replayed session's events, each estimated once (the token trigger's sums). */
  const estimates = new SessionEventTokens();
  /**
   * The store's view as the Compactor sees it (`usageBlind`), extended by each append: the
   * replay is the store's only writer, so nothing is read back before a model call unless a
   * compaction attempt wrote (see `extendView`).
   */
  let known: StoredView | undefined;
  /** A compaction attempt inside `guard.prepare` failed: its view may not be the store's. */
  let attemptFailed = false;

  const compactorService = usageBlind(service);
  const compactor = new Compactor({
    sessionService: compactorService,
    config,
    summarizer,
    fallbackSummarizer: options.fallbackSummarizer,
  });
  const record = (report: CompactionReport) => {
    if (
      report.outcome === 'compacted' &&
      report.startSeq !== undefined &&
      report.endSeq !== undefined
    ) {
      const fallback =
        report.event?.actions.compaction.fallback ??
        (report.usedFallback ? { from: summarizer.name } : undefined);
      compactions.push({
        trigger: report.trigger,
        startSeq: toPosition(positions, report.startSeq),
        endSeq: toPosition(positions, report.endSeq),
        tokensBefore: report.tokensBefore,
        tokensAfter: report.tokensAfter ?? 0,
        beforeCall: requests.length + 1,
        summarizer: report.event?.actions.compaction.summarizer ?? report.summarizer ?? '',
        ...(fallback ? { fallback } : {}),
      });
    } else if (report.outcome === 'failed' || report.outcome === 'conflict') {
      failures.push(`${report.trigger}: ${report.reason ?? report.outcome}`);
    }
  };
  // Each request is prepared as the Runner prepares it: token trigger, byte ceiling, truncation.
  const guard = new ContextGuard({
    sessionService: compactorService,
    config,
    estimateEvent: (event) => estimates.tokens(event),
    compact: async ({ key: guardKey, ...request }) => {
      const report = await compactor.compact({ ...guardKey, ...request });
      record(report);
      // The guard reads the store again after a compaction, not after a failed attempt.
      if (report.outcome === 'failed' || report.outcome === 'conflict') attemptFailed = true;
      return report;
    },
  });
  const compactAfter = async (trigger: 'sliding_window' | 'token_threshold') => {
    const report = await compactor.compact({
      ...key,
      trigger,
      overheadTokens,
      stored: known,
      signal,
    });
    record(report);
    if (report.outcome !== 'skipped') known = undefined;
  };
  // As the Runner does, the Compactor is only called when its trigger is due on the view the
  // replay knows (a skip records nothing): the estimate then costs only the new events.
  const afterInvocation = async () => {
    const interval = config.compactionInterval;
    if (
      interval !== undefined &&
      (!known || (interval > 0 && countCompletedInvocations({ tail: known.tail }) >= interval))
    ) {
      await compactAfter('sliding_window');
    }
    const threshold = config.tokenThreshold;
    if (threshold && (!known || estimateView(known, overheadTokens, estimates) >= threshold)) {
      await compactAfter('token_threshold');
    }
  };

  let orphans = 0;
  let previousInvocation: string | undefined;
  for (const [index, event] of replayed.entries()) {
    signal?.throwIfAborted();
    if (previousInvocation !== undefined && event.invocationId !== previousInvocation) {
      await afterInvocation();
    }
    if (isModelCall(event)) {
      attemptFailed = false;
      const prepared = await guard.prepare({
        key,
        agentName: event.author,
        branch: event.branch,
        model: RECORDED_MODEL,
        overhead,
        invocationId: event.invocationId,
        stored: known,
        signal,
      });
      known = attemptFailed ? undefined : prepared.stored;
      const { view } = prepared;
      if (hasUnpaired(view.contents)) orphans++;
      const size = measure.measure(view.contents);
      requests.push({
        withCompaction: size.tokens,
        withoutCompaction: uncompacted.total(overheadTokens),
        bytes: size.bytes,
      });
    }
    const stored = await service.appendEvent({ ...key, event, signal });
    positions.set(stored.seq, index + 1);
    uncompacted.append(stored);
    known = extendView(known, stored);
    previousInvocation = event.invocationId;
    options.onProgress?.({
      index: index + 1,
      total: replayed.length,
      compactions: compactions.length,
    });
  }
  if (previousInvocation !== undefined) await afterInvocation();

  return {
    sessionId: key.sessionId,
    events: replayed.length,
    modelCalls: requests.length,
    compactions,
    maxViewTokens: requests.reduce((most, request) => Math.max(most, request.withCompaction), 0),
    maxViewBytes: requests.reduce((most, request) => Math.max(most, request.bytes), 0),
    orphans,
    lossless: await isLossless({ service, key, replayed, signal }),
    tokens: {
      withoutCompaction: requests.reduce((total, request) => total + request.withoutCompaction, 0),
      withCompaction: requests.reduce((total, request) => total + request.withCompaction, 0),
    },
    requests,
    failures,
    recordedCompactionsIgnored: options.events.length - replayed.length,
    overheadTokens,
  };
}

/**
 * The recorded transcript's model as the context guard sees it: no known context window (the
 * replay bounds requests by the configured threshold and byte ceiling only); never called.
 */
const RECORDED_MODEL: Model = {
  modelId: 'recorded',
  generate: () => Promise.reject(new Error('replay never calls the recorded model')),
};

/**
 * The view after `event` was appended to the store `known` came from, as the Compactor would
 * load it (recorded usage hidden), or `undefined` when only a read can tell: a write came in
 * between (a gap in `seq`), or the view is one the runtime expands (a rewind, ADK summaries).
 */
function extendView(known: StoredView | undefined, event: Event): StoredView | undefined {
  if (!known || known.expandedFromCheckpointSeq !== undefined) return undefined;
  if (event.seq !== known.lastSeq + 1 || isCompactionEvent(event)) return undefined;
  if (rewindTarget(event) !== undefined) return undefined;
  known.tail.push(withoutUsage(event));
  known.lastSeq = event.seq;
  return known;
}

/**
 * `estimateNextRequest` of a view whose recorded usage is hidden (the basis is then always the
 * estimate): overhead, summary and every tail event, each event estimated once.
 */
function estimateView(view: StoredView, overheadTokens: number, estimates: SessionEventTokens) {
  let tokens = overheadTokens;
  if (view.checkpoint) tokens += estimates.tokens(view.checkpoint);
  for (const event of view.tail) if (!isCompactionEvent(event)) tokens += estimates.tokens(event);
  return tokens;
}

/** Store seq -> replay position; a compaction's seq maps to the event before it. */
function toPosition(positions: Map<number, number>, seq: number): number {
  for (let candidate = seq; candidate > 0; candidate--) {
    const found = positions.get(candidate);
    if (found !== undefined) return found;
  }
  return 0;
}

/**
 * A request holds an unpaired call or response: a response with no earlier call, or a call
 * that no later content answers (a pending call in a final model content is allowed).
 */
export function hasUnpaired(contents: Content[]): boolean {
  const open = new Set<string>();
  const seen = new Set<string>();
  for (const content of contents) {
    for (const part of content.parts) {
      if (part.functionCall) {
        open.add(part.functionCall.id);
        seen.add(part.functionCall.id);
      }
      if (part.functionResponse) {
        if (!seen.has(part.functionResponse.id) || !open.has(part.functionResponse.id)) return true;
        open.delete(part.functionResponse.id);
      }
    }
  }
  if (open.size === 0) return false;
  const last = contents[contents.length - 1];
  if (last?.role !== 'model') return true;
  const pending = new Set(
    last.parts.flatMap((part) => (part.functionCall ? [part.functionCall.id] : [])),
  );
  return [...open].some((id) => !pending.has(id));
}

/** The full history holds every replayed event, unchanged, in order (`seq` ignored). */
async function isLossless(options: {
  service: SessionService;
  key: SessionKey;
  replayed: NewEvent[];
  signal?: AbortSignal;
}): Promise<boolean> {
  const stored: Event[] = [];
  let afterSeq: number | undefined;
  for (;;) {
    const page = await options.service.listEvents({
      ...options.key,
      afterSeq,
      signal: options.signal,
    });
    stored.push(...page.events);
    if (page.nextCursor === undefined || page.events.length === 0) break;
    afterSeq = page.nextCursor;
  }
  const raw = stored.filter((event) => !isCompactionEvent(event));
  if (raw.length !== options.replayed.length) return false;
  return raw.every(({ seq: _seq, ...event }, index) => {
    const replayed = options.replayed[index];
    // Equal JSON is equal canonical JSON; stores keep the key order, so this is the usual case.
    return (
      JSON.stringify(event) === JSON.stringify(replayed) || canonical(event) === canonical(replayed)
    );
  });
}

/** JSON with sorted keys and no `undefined` members: equal events give equal strings. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, entry: unknown) => {
    if (entry && typeof entry === 'object' && !Array.isArray(entry)) {
      return Object.fromEntries(
        Object.entries(entry as Record<string, unknown>)
          .filter(([, inner]) => inner !== undefined)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
      );
    }
    return entry;
  });
}

/** An event as the Compactor sees it during replay: its recorded usage hidden. */
function withoutUsage<T extends Event>(event: T): T {
  if (!event.usageMetadata || isCompactionEvent(event)) return event;
  const { usageMetadata: _usage, ...rest } = event;
  return rest as T;
}

/** The store as the Compactor sees it during replay: recorded usage hidden, writes unchanged. */
function usageBlind(service: SessionService): SessionService {
  const strip = withoutUsage;
  return {
    createSession: (options) => service.createSession(options),
    getSession: (options) => service.getSession(options),
    loadView: async (options) => {
      const view = await service.loadView(options);
      return { ...view, tail: view.tail.map(strip) };
    },
    listEvents: async (options) => {
      const page = await service.listEvents(options);
      return { ...page, events: page.events.map(strip) };
    },
    appendEvent: (options) => service.appendEvent(options),
    appendCompaction: (options) => service.appendCompaction(options),
    listSessions: (options) => service.listSessions(options),
    deleteSession: (options) => service.deleteSession(options),
  };
}
