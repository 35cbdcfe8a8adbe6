/**
 * Replay: play an imported transcript into a store as if it were live, with compaction on.
 * Before each model-authored event the triggers run on the view that request would have held
 * (recorded usage is ignored: the store the Compactor reads hides it), after each invocation the
 * sliding window and the token trigger run, exactly as the Runner does. The report says what
 * each request held; the store keeps every imported event unchanged.
 */
import {
  estimateContentTokens,
  estimatePartTokens,
  estimateTextTokens,
} from '../compaction/token-estimate.js';
import type { EventsCompactionConfig, EventsSummarizer } from '../compaction/types.js';
import { assembleView } from '../compaction/view.js';
import { isCompactionEvent } from '../events/event-helpers.js';
import type {
  CompactionTrigger,
  Content,
  Event,
  NewEvent,
  Part,
  SessionKey,
} from '../events/types.js';
import { IMPORT_REPAIR_KEY } from '../importers/transcript-builder.js';
import type { ImportResult } from '../importers/types.js';
import { type CompactionReport, Compactor } from '../runtime/compactor.js';
import type { SessionService } from '../sessions/session-service.js';
import { importedState } from './import-session.js';

export interface ReplayCompaction {
  trigger: CompactionTrigger;
  /** In import order, counting from 1. */
  startSeq: number;
  endSeq: number;
  tokensBefore: number;
  tokensAfter: number;
  /** The model call (1-based) it ran before; 0 after the last. */
  beforeCall: number;
}

export interface ReplayResult {
  events: number;
  modelCalls: number;
  compactions: ReplayCompaction[];
  maxViewTokens: number;
  orphans: number;
  lossless: boolean;
  tokens: { withoutCompaction: number; withCompaction: number };
  /** Per model call: estimated request tokens with and without compaction (for the chart). */
  requests: Array<{ withCompaction: number; withoutCompaction: number }>;
  /** Compactions attempted that failed (summarizer errors): counted, never fatal. */
  failures: string[];
  /** Compaction events recorded in the source (ADK), left out of the replay. */
  recordedCompactionsIgnored: number;
  overheadTokens: number;
}

export interface ReplayOptions {
  result: ImportResult;
  file: string;
  service: SessionService;
  key: SessionKey;
  config: EventsCompactionConfig;
  summarizer: EventsSummarizer;
  fallbackSummarizer?: EventsSummarizer;
  onProgress?: (progress: { index: number; total: number; compactions: number }) => void;
  signal?: AbortSignal;
}

/** A model-authored event stands for one model request; synthesized repair calls do not. */
export function isModelCall(event: NewEvent): boolean {
  return (
    event.author !== 'user' &&
    event.content?.role === 'model' &&
    event.customMetadata?.[IMPORT_REPAIR_KEY] === undefined
  );
}

export async function replayTranscript(options: ReplayOptions): Promise<ReplayResult> {
  const { service, key, signal } = options;
  const imported = options.result.events.filter((event) => !isCompactionEvent(event));
  const overheadTokens =
    estimateTextTokens(options.result.meta.systemInstruction ?? '') +
    (options.result.meta.tools ? estimateTextTokens(JSON.stringify(options.result.meta.tools)) : 0);
  await service.createSession({
    ...key,
    state: importedState(options.result, options.file),
    signal,
  });

  const compactions: ReplayCompaction[] = [];
  const failures: string[] = [];
  const importSeq = new Map<number, number>();
  const requests: ReplayResult['requests'] = [];
  const appended: Event[] = [];
  const tokenCache = new WeakMap<Part, number>();
  const contentsTokens = (contents: Content[]) => {
    let total = overheadTokens;
    for (const content of contents) {
      // estimateContentTokens on an empty content is its fixed overhead alone.
      total += estimateContentTokens({ role: content.role, parts: [] });
      for (const part of content.parts) {
        let tokens = tokenCache.get(part);
        if (tokens === undefined) {
          tokens = estimatePartTokens(part);
          tokenCache.set(part, tokens);
        }
        total += tokens;
      }
    }
    return total;
  };

  const compactor = new Compactor({
    sessionService: usageBlind(service),
    config: options.config,
    summarizer: options.summarizer,
    fallbackSummarizer: options.fallbackSummarizer,
  });
  const record = (report: CompactionReport) => {
    if (
      report.outcome === 'compacted' &&
      report.startSeq !== undefined &&
      report.endSeq !== undefined
    ) {
      compactions.push({
        trigger: report.trigger,
        startSeq: toImportSeq(importSeq, report.startSeq),
        endSeq: toImportSeq(importSeq, report.endSeq),
        tokensBefore: report.tokensBefore,
        tokensAfter: report.tokensAfter ?? 0,
        beforeCall: requests.length + 1,
      });
    } else if (report.outcome === 'failed' || report.outcome === 'conflict') {
      failures.push(`${report.trigger}: ${report.reason ?? report.outcome}`);
    }
  };
  const afterInvocation = async () => {
    if (options.config.compactionInterval !== undefined) {
      record(
        await compactor.compact({ ...key, trigger: 'sliding_window', overheadTokens, signal }),
      );
    }
    if (options.config.tokenThreshold) {
      record(
        await compactor.compact({ ...key, trigger: 'token_threshold', overheadTokens, signal }),
      );
    }
  };

  let orphans = 0;
  let previousInvocation: string | undefined;
  for (const [index, event] of imported.entries()) {
    signal?.throwIfAborted();
    if (previousInvocation !== undefined && event.invocationId !== previousInvocation) {
      await afterInvocation();
    }
    if (isModelCall(event)) {
      if (options.config.tokenThreshold) {
        record(
          await compactor.compact({
            ...key,
            trigger: 'token_threshold',
            agentName: event.author,
            branch: event.branch,
            overheadTokens,
            currentInvocationId: event.invocationId,
            signal,
          }),
        );
      }
      const stored = await service.loadView({ ...key, signal });
      const view = assembleView({ checkpoint: stored.checkpoint, tail: stored.tail });
      const full = assembleView({ tail: appended });
      if (hasUnpaired(view.contents)) orphans++;
      requests.push({
        withCompaction: contentsTokens(view.contents),
        withoutCompaction: contentsTokens(full.contents),
      });
    }
    const stored = await service.appendEvent({ ...key, event, signal });
    importSeq.set(stored.seq, index + 1);
    appended.push(stored);
    previousInvocation = event.invocationId;
    options.onProgress?.({
      index: index + 1,
      total: imported.length,
      compactions: compactions.length,
    });
  }
  if (previousInvocation !== undefined) await afterInvocation();

  return {
    events: imported.length,
    modelCalls: requests.length,
    compactions,
    maxViewTokens: Math.max(0, ...requests.map((request) => request.withCompaction)),
    orphans,
    lossless: await isLossless({ service, key, imported, signal }),
    tokens: {
      withoutCompaction: requests.reduce((total, request) => total + request.withoutCompaction, 0),
      withCompaction: requests.reduce((total, request) => total + request.withCompaction, 0),
    },
    requests,
    failures,
    recordedCompactionsIgnored: options.result.events.length - imported.length,
    overheadTokens,
  };
}

/** Store seq -> import order; a seq that is a compaction's maps to the event before it. */
function toImportSeq(map: Map<number, number>, seq: number): number {
  for (let candidate = seq; candidate > 0; candidate--) {
    const found = map.get(candidate);
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

/** The full history holds every imported event, unchanged, in order (seq ignored). */
async function isLossless(options: {
  service: SessionService;
  key: SessionKey;
  imported: NewEvent[];
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
  if (raw.length !== options.imported.length) return false;
  return raw.every(
    ({ seq: _seq, ...event }, index) => canonical(event) === canonical(options.imported[index]),
  );
}

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

/** The store as the Compactor sees it during replay: recorded usage hidden, writes unchanged. */
function usageBlind(service: SessionService): SessionService {
  const strip = <T extends Event>(event: T): T => {
    if (!event.usageMetadata || isCompactionEvent(event)) return event;
    const { usageMetadata: _usage, ...rest } = event;
    return rest as T;
  };
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
