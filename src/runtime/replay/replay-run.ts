/**
 * One transcript's replay behind `replayTranscript`: options resolved, the session created,
 * the events played in order (the replay loop), then the report. The estimates are a parameter
 * so a test can replay without `PartTokens`' memory and compare.
 */
import { hasWorkflowBranches } from '../../compaction/branch-view.js';
import { isCompactionEvent } from '../../events/event-helpers.js';
import type { NewEvent, SessionKey } from '../../events/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { estimateRequestOverhead } from '../compaction/context-guard.js';
import { RunnerConfigError } from '../errors.js';
import { isLossless } from './replay-lossless.js';
import { type ReplayEstimates, ReplaySession } from './replay-session.js';
import type { ReplayProgress, ReplayReport, ReplayTranscriptOptions } from './types.js';

export interface ReplayWithOptions extends ReplayTranscriptOptions {
  /** Used when `isModelCall` is not given. */
  defaultIsModelCall: (event: NewEvent) => boolean;
  estimates: ReplayEstimates;
}

/** `replayTranscript` with its defaults and estimates given. */
export async function replayWith(options: ReplayWithOptions): Promise<ReplayReport> {
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
  // Recorded summaries (the trunk's and the branches') are re-decided by the replay.
  const replayed = options.events.filter(
    (event) => !isCompactionEvent(event) && event.actions?.branchCompaction === undefined,
  );
  const scoped = hasWorkflowBranches(replayed);
  // Counted as the Runner counts it, so a replayed request is sized like a live one.
  const estimatedOverhead = estimateRequestOverhead({
    systemInstruction: options.systemInstruction,
    tools: options.tools,
  });
  const overhead = {
    tokens: options.overheadTokens ?? estimatedOverhead.tokens,
    bytes: estimatedOverhead.bytes,
  };
  await service.createSession({ ...key, state: options.state, signal });
  const session = new ReplaySession({
    service,
    key,
    config,
    summarizer,
    fallbackSummarizer: options.fallbackSummarizer,
    overhead,
    estimates: options.estimates,
    scoped,
    signal,
  });
  await replayEvents({
    session,
    replayed,
    isModelCall: options.isModelCall ?? options.defaultIsModelCall,
    onProgress: options.onProgress,
    signal,
  });
  const { requests } = session;
  return {
    sessionId: key.sessionId,
    events: replayed.length,
    modelCalls: requests.length,
    compactions: session.compactions,
    ...(session.elisions.length > 0 && { elisions: session.elisions }),
    maxViewTokens: requests.reduce((most, request) => Math.max(most, request.withCompaction), 0),
    maxViewBytes: requests.reduce((most, request) => Math.max(most, request.bytes), 0),
    orphans: session.orphans,
    lossless: await isLossless({ service, key, replayed, signal }),
    tokens: {
      withoutCompaction: requests.reduce((total, request) => total + request.withoutCompaction, 0),
      withCompaction: requests.reduce((total, request) => total + request.withCompaction, 0),
    },
    requests,
    failures: session.failures,
    recordedCompactionsIgnored: options.events.length - replayed.length,
    overheadTokens: overhead.tokens,
    ...(scoped && { branches: session.branchFigures() }),
  };
}

/** The replay loop: each event in order, a model call measured before its event is stored. */
async function replayEvents(options: {
  session: ReplaySession;
  replayed: NewEvent[];
  isModelCall: (event: NewEvent) => boolean;
  onProgress?: (progress: ReplayProgress) => void;
  signal?: AbortSignal;
}): Promise<void> {
  const { session, replayed, signal } = options;
  let previousInvocation: string | undefined;
  for (const [index, event] of replayed.entries()) {
    signal?.throwIfAborted();
    if (previousInvocation !== undefined && event.invocationId !== previousInvocation) {
      await session.afterInvocation();
    }
    if (options.isModelCall(event)) await session.measureModelCall(event);
    await session.append(event, index + 1);
    previousInvocation = event.invocationId;
    options.onProgress?.({
      index: index + 1,
      total: replayed.length,
      compactions: session.compactions.length,
    });
  }
  if (previousInvocation !== undefined) await session.afterInvocation();
}
