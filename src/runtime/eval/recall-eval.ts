/**
 * How many facts survive compaction, measured (`orrery eval`): a transcript is replayed
 * through compaction at a token threshold, then each question's answer strings are looked for
 * in (a) the final view, (b) the final view plus what `recall` would return for the question
 * (its top k), (c) a truncation baseline (the newest events that fit the same token budget as
 * the final view), (d) the full history. recall@k: the share of questions whose evidence event
 * is among the top k search hits over the whole history. With `elision`, the replay runs the
 * cheap tier first (docs/architecture.md#elision-the-cheap-tier): the view shows placeholders,
 * and recall reaches the elided outputs too.
 */
import { applyElision, isElisionEvent, latestElision } from '../../compaction/elision.js';
import { estimateEventTokens, estimateTextTokens } from '../../compaction/token-estimate.js';
import type { ElisionConfig, EventsSummarizer } from '../../compaction/types.js';
import { getText } from '../../events/event-helpers.js';
import type { Event, NewEvent } from '../../events/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import type { SessionService } from '../../sessions/session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { renderEvent } from '../../summarizers/render.js';
import { replayTranscript } from '../replay/replay.js';
import { type PricedModel, type ReplayCost, replayCost } from '../replay/replay-cost.js';
import { recallAnswerText } from './recall-eval-tool.js';

export interface RecallQuestion {
  question: string;
  /** Each must appear (case-insensitive) for the answer to count as present. */
  answers: string[];
  /**
   * 1-based positions in the replayed events of the events that hold the answer. When
   * absent, every event whose text holds an answer string counts as evidence.
   */
  evidenceSeqs?: number[];
}

export interface RecallConversation {
  name: string;
  events: NewEvent[];
  questions: RecallQuestion[];
}

export interface EvaluateRecallOptions {
  conversation: RecallConversation;
  /** Token threshold of the replay's compaction. */
  threshold: number;
  /** Run the elision tier before summaries (`true`: its defaults). Default off. */
  elision?: boolean | ElisionConfig;
  /** Default: a `DigestSummarizer` (offline, deterministic). */
  summarizer?: EventsSummarizer;
  /** Hits of the recall tool counted in (b), and k of recall@k; default 5. */
  topK?: number;
  /** Cap of one recalled item, as the recall tool's default (2000). */
  recallItemChars?: number;
  /**
   * Events either side of each hit that (b) reads with it, as the recall tool returns them
   * (docs/memory.md#hit-windows); default 0, the hits alone.
   */
  contextEvents?: number;
  /** Price the replay (docs/cost.md): adds `cost` to the result. */
  price?: { model: PricedModel; summarizer?: PricedModel };
  /**
   * The store replayed into and searched (default: a new `InMemorySessionService`). Given, the
   * conversation is one new session in it (`sessionId`), deleted after the measure.
   */
  sessionService?: SessionService;
  /** The session's id in `sessionService` (default `eval`). */
  sessionId?: string;
  signal?: AbortSignal;
}

/** Dollars of the replay beside retention (`replayCost`'s totals). */
export interface RecallCost {
  usd: number;
  usdWithoutCompaction: number;
  summarizerUsd: number;
  /** Prompt tokens and those read from the cache, with compaction. */
  inputTokens: number;
  cacheReadTokens: number;
}

/** Shares are answer strings found / answer strings asked (0..1). */
export interface RecallEvaluation {
  name: string;
  questions: number;
  answers: number;
  compactions: number;
  /** Elision rules recorded (the cheap tier ran instead of a summary). */
  elisions: number;
  /** Estimated tokens sent over every replayed model request (what compaction keeps paying). */
  requestTokens: number;
  /** Estimated tokens of the final view (the truncation baseline's budget). */
  viewTokens: number;
  historyTokens: number;
  inView: number;
  inViewPlusRecall: number;
  inTruncation: number;
  inFullHistory: number;
  /** Questions with evidence whose evidence was in the top k hits, over those questions. */
  recallAtK: number;
  topK: number;
  /** Set when `price` was given. */
  cost?: RecallCost;
  /** (b) with the top 10 recalled instead of the top k. */
  inViewPlusRecallAt10: number;
  /** Evidence in the top 5 / top 10 hits over the whole history (questions with evidence). */
  evidenceRecallAt5: number;
  evidenceRecallAt10: number;
  /** Mean reciprocal rank of the first evidence hit in the top 10 (0 when not there). */
  mrr: number;
  /** Questions that have evidence (the denominator of the evidence figures). */
  questionsWithEvidence: number;
}

function normalized(text: string): string {
  return text.toLowerCase();
}

function eventText(event: Event): string {
  return renderEvent({ event, maxItemChars: Number.MAX_SAFE_INTEGER }) ?? '';
}

function share(found: number, total: number): number {
  return total === 0 ? 0 : found / total;
}

/** The newest events whose estimated tokens fit `budget`, as text. */
function truncationText(events: Event[], budget: number): string {
  const kept: string[] = [];
  let tokens = 0;
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]!;
    const cost = estimateEventTokens(event);
    if (tokens + cost > budget) break;
    tokens += cost;
    kept.push(eventText(event));
  }
  return kept.join('\n');
}

/** Replays one conversation and measures (a)-(d) and recall@k (see the file comment). */
export async function evaluateRecall(options: EvaluateRecallOptions): Promise<RecallEvaluation> {
  const topK = options.topK ?? 5;
  const itemChars = options.recallItemChars ?? 2000;
  const sessionService = options.sessionService ?? new InMemorySessionService();
  const key = { appName: 'eval', userId: 'eval', sessionId: options.sessionId ?? 'eval' };
  try {
    return await measure({ ...options, topK, itemChars, sessionService, key });
  } finally {
    if (options.sessionService) await sessionService.deleteSession({ ...key }).catch(() => {});
  }
}

async function measure(
  options: EvaluateRecallOptions & {
    topK: number;
    itemChars: number;
    sessionService: SessionService;
    key: { appName: string; userId: string; sessionId: string };
  },
): Promise<RecallEvaluation> {
  const { conversation, threshold, topK, itemChars, sessionService, key } = options;
  const search = sessionService.searchEvents?.bind(sessionService);
  if (!search) throw new Error('evaluateRecall needs a store with searchEvents');
  const elision = options.elision === true ? {} : options.elision || undefined;
  const report = await replayTranscript({
    events: conversation.events,
    config: { tokenThreshold: threshold, eventRetentionSize: 4, ...(elision ? { elision } : {}) },
    summarizer: options.summarizer ?? new DigestSummarizer(),
    fallbackSummarizer: new DigestSummarizer(),
    sessionService,
    ...key,
    signal: options.signal,
  });
  const history = (await sessionService.getSession({ ...key, events: 'full' }))?.events ?? [];
  const raw = history.filter((event) => !event.actions.compaction && !isElisionEvent(event));
  const view = await sessionService.loadView(key);
  const summary = view.checkpoint
    ? getText(view.checkpoint.actions.compaction.compactedContent)
    : '';
  // The tail as the model reads it: elided outputs are placeholders.
  const rule = latestElision(view.tail)?.actions.elision;
  const shown = applyElision(view.tail, rule);
  const viewText = normalized([summary, ...shown.map(eventText)].join('\n'));
  const viewTokens =
    estimateTextTokens(summary) + shown.reduce((sum, event) => sum + estimateEventTokens(event), 0);
  const fullText = normalized(raw.map(eventText).join('\n'));
  const truncated = normalized(truncationText(raw, viewTokens));
  // What recall reaches: the summary's range, or the elision rule's when later.
  const endSeq = Math.max(view.checkpoint?.actions.compaction.endSeq ?? 0, rule?.throughSeq ?? 0);

  let answers = 0;
  const counts = {
    inView: 0,
    inViewPlusRecall: 0,
    inViewPlusRecallAt10: 0,
    inTruncation: 0,
    inFullHistory: 0,
  };
  let withEvidence = 0;
  let evidenceFound = 0;
  const evidenceAt = { 5: 0, 10: 0 };
  let reciprocalRanks = 0;
  const deepest = Math.max(topK, 10);
  for (const question of conversation.questions) {
    // What the recall tool answers the question (its top k, with context when asked).
    const recallTextOf = async (count: number) =>
      normalized(
        endSeq === 0
          ? ''
          : await recallAnswerText({
              sessionService,
              key,
              query: question.question,
              topK: count,
              maxItemChars: itemChars,
              contextEvents: options.contextEvents ?? 0,
              signal: options.signal,
            }),
      );
    const recallText = await recallTextOf(topK);
    const recallText10 = topK === 10 ? recallText : await recallTextOf(10);
    for (const answer of question.answers) {
      const needle = normalized(answer);
      answers++;
      if (viewText.includes(needle)) counts.inView++;
      if (viewText.includes(needle) || recallText.includes(needle)) counts.inViewPlusRecall++;
      if (viewText.includes(needle) || recallText10.includes(needle)) counts.inViewPlusRecallAt10++;
      if (truncated.includes(needle)) counts.inTruncation++;
      if (fullText.includes(needle)) counts.inFullHistory++;
    }
    // Positions in the replayed events: compactions stored between them shift their seqs.
    const evidence = new Set(
      question.evidenceSeqs?.map((position) => raw[position - 1]?.seq ?? -1) ??
        raw
          .filter((event) =>
            question.answers.some((answer) =>
              normalized(eventText(event)).includes(normalized(answer)),
            ),
          )
          .map((event) => event.seq),
    );
    if (evidence.size === 0) continue;
    withEvidence++;
    const hits = await search({ ...key, query: question.question, limit: deepest });
    if (hits.slice(0, topK).some((hit) => evidence.has(hit.seq))) evidenceFound++;
    const rank = hits.findIndex((hit) => evidence.has(hit.seq)) + 1;
    if (rank >= 1 && rank <= 5) evidenceAt[5]++;
    if (rank >= 1 && rank <= 10) {
      evidenceAt[10]++;
      reciprocalRanks += 1 / rank;
    }
  }
  return {
    name: conversation.name,
    questions: conversation.questions.length,
    answers,
    compactions: report.compactions.length,
    elisions: history.filter(isElisionEvent).length,
    requestTokens: report.tokens.withCompaction,
    viewTokens,
    historyTokens: raw.reduce((sum, event) => sum + estimateEventTokens(event), 0),
    inView: share(counts.inView, answers),
    inViewPlusRecall: share(counts.inViewPlusRecall, answers),
    inTruncation: share(counts.inTruncation, answers),
    inFullHistory: share(counts.inFullHistory, answers),
    recallAtK: share(evidenceFound, withEvidence),
    topK,
    inViewPlusRecallAt10: share(counts.inViewPlusRecallAt10, answers),
    evidenceRecallAt5: share(evidenceAt[5], withEvidence),
    evidenceRecallAt10: share(evidenceAt[10], withEvidence),
    mrr: share(reciprocalRanks, withEvidence),
    questionsWithEvidence: withEvidence,
    ...(options.price ? { cost: recallCost(replayCost({ report, ...options.price })) } : {}),
  };
}

function recallCost(cost: ReplayCost): RecallCost {
  return {
    usd: cost.withCompaction.usd,
    usdWithoutCompaction: cost.withoutCompaction.usd,
    summarizerUsd: cost.withCompaction.summarizerUsd,
    inputTokens: cost.withCompaction.inputTokens,
    cacheReadTokens: cost.withCompaction.cacheReadTokens,
  };
}

function sumCosts(results: RecallEvaluation[]): RecallCost | undefined {
  const costs = results.flatMap((result) => (result.cost ? [result.cost] : []));
  if (costs.length === 0) return undefined;
  const total = (field: keyof RecallCost) => costs.reduce((sum, cost) => sum + cost[field], 0);
  return {
    usd: total('usd'),
    usdWithoutCompaction: total('usdWithoutCompaction'),
    summarizerUsd: total('summarizerUsd'),
    inputTokens: total('inputTokens'),
    cacheReadTokens: total('cacheReadTokens'),
  };
}

/** Answer-weighted means over several evaluations (recall@k weighted by questions). */
export function combineEvaluations(results: RecallEvaluation[]): Omit<RecallEvaluation, 'name'> {
  const cost = sumCosts(results);
  const answers = results.reduce((sum, result) => sum + result.answers, 0);
  const questions = results.reduce((sum, result) => sum + result.questions, 0);
  const withEvidence = results.reduce((sum, result) => sum + result.questionsWithEvidence, 0);
  const byEvidence = (field: 'evidenceRecallAt5' | 'evidenceRecallAt10' | 'mrr') =>
    share(
      results.reduce((sum, result) => sum + result[field] * result.questionsWithEvidence, 0),
      withEvidence,
    );
  const weighted = (
    field:
      | 'inView'
      | 'inViewPlusRecall'
      | 'inViewPlusRecallAt10'
      | 'inTruncation'
      | 'inFullHistory',
  ) =>
    share(
      results.reduce((sum, result) => sum + result[field] * result.answers, 0),
      answers,
    );
  return {
    questions,
    answers,
    compactions: results.reduce((sum, result) => sum + result.compactions, 0),
    elisions: results.reduce((sum, result) => sum + result.elisions, 0),
    requestTokens: results.reduce((sum, result) => sum + result.requestTokens, 0),
    viewTokens: Math.max(0, ...results.map((result) => result.viewTokens)),
    historyTokens: results.reduce((sum, result) => sum + result.historyTokens, 0),
    inView: weighted('inView'),
    inViewPlusRecall: weighted('inViewPlusRecall'),
    inTruncation: weighted('inTruncation'),
    inFullHistory: weighted('inFullHistory'),
    recallAtK: share(
      results.reduce((sum, result) => sum + result.recallAtK * result.questions, 0),
      questions,
    ),
    topK: results[0]?.topK ?? 5,
    ...(cost ? { cost } : {}),
    inViewPlusRecallAt10: weighted('inViewPlusRecallAt10'),
    evidenceRecallAt5: byEvidence('evidenceRecallAt5'),
    evidenceRecallAt10: byEvidence('evidenceRecallAt10'),
    mrr: byEvidence('mrr'),
    questionsWithEvidence: withEvidence,
  };
}
