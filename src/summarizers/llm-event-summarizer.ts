/**
 * The model-backed summarizer (docs/architecture.md#summarizers). It renders the window, folds it
 * in chunks when it is over the input budget (each chunk's call seeded with the summary so far, so
 * every event is read, never truncated away), retries retryable provider errors with backoff, and
 * treats a timeout, an empty or a blocked answer as a failure: never written in as a summary.
 */
import { InvalidConfigError } from '../compaction/errors.js';
import { estimateTextTokens } from '../compaction/token-estimate.js';
import type { EventsSummarizer, SummarizeOptions, Summary } from '../compaction/types.js';
import { getText, isCompactionEvent } from '../events/event-helpers.js';
import type { Event, UsageMetadata } from '../events/types.js';
import { isContextOverflowError } from '../models/errors.js';
import { withModelRetry } from '../models/retry.js';
import type { Model, ModelResponse } from '../models/types.js';
import { raceAbort } from '../util/abort.js';
import { errorMessage } from '../util/error-message.js';
import { splitTextAt } from './cap-text.js';
import {
  CONVERSATION_HISTORY_PLACEHOLDER,
  DEFAULT_SUMMARY_PROMPT,
  fillPromptTemplate,
  NO_PREVIOUS_SUMMARY,
} from './default-prompt.js';
import { SummarizerError } from './errors.js';
import { DEFAULT_MAX_ITEM_CHARS, renderEventBlocks } from './render.js';
import { labelSummaryLines } from './seq-labels.js';

export interface LlmEventSummarizerOptions {
  /** The summarizer's model: independent of the agent's (a cheap one is fine). */
  model: Model;
  /** Must hold `{conversation_history}`; may hold `{previous_summary}`. */
  promptTemplate?: string;
  /** Estimated tokens of one summarizer request; a larger window is folded in chunks. */
  maxInputTokens?: number;
  /** Cap of one rendered call or response, in characters. */
  maxItemChars?: number;
  /** Timeout of one model call. */
  timeoutMs?: number;
  /** Retries of one call on a retryable provider error. */
  maxRetries?: number;
  /** First backoff delay; doubles each retry unless the provider says `retryAfterMs`. */
  retryBaseDelayMs?: number;
  /** Ceiling of one backoff delay. */
  maxRetryDelayMs?: number;
  maxOutputTokens?: number;
  /** Recorded as the compaction's `summarizer` (default: the model id). */
  name?: string;
}

export const DEFAULT_MAX_INPUT_TOKENS = 100_000;
export const DEFAULT_SUMMARIZER_TIMEOUT_MS = 120_000;
export const DEFAULT_SUMMARIZER_MAX_RETRIES = 2;
export const DEFAULT_RETRY_BASE_DELAY_MS = 1_000;
export const DEFAULT_MAX_RETRY_DELAY_MS = 30_000;

/** Below this, a chunk that still overflows the model cannot be helped by splitting. */
const MIN_CHUNK_TOKENS = 32;
/** Estimated cost of the blank line between two blocks. */
const BLOCK_SEPARATOR_TOKENS = 1;
const CONTINUED_MARKER = '[continued] ';
/** Finish reasons (normalized) that mean the provider withheld the answer. */
const BLOCKED_FINISH_REASONS = new Set([
  'content-filter',
  'safety',
  'blocklist',
  'prohibited-content',
  'spii',
  'image-safety',
  'recitation',
]);

/** The provider withheld the answer (a normalized blocked finish reason). */
export function isBlockedFinishReason(finishReason: string | undefined): boolean {
  const normalized = finishReason?.toLowerCase().replaceAll('_', '-');
  return normalized !== undefined && BLOCKED_FINISH_REASONS.has(normalized);
}

function checkInteger(field: string, value: number | undefined, minimum: number): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < minimum) {
    throw new InvalidConfigError({
      field,
      value,
      message: `must be an integer >= ${minimum}`,
    });
  }
}

function addUsage(total: UsageMetadata | undefined, usage: UsageMetadata | undefined) {
  if (!usage) return total;
  const sum: UsageMetadata = { ...total };
  for (const key of [
    'promptTokenCount',
    'candidatesTokenCount',
    'totalTokenCount',
    'cachedContentTokenCount',
  ] as const) {
    const value = usage[key];
    if (value !== undefined) sum[key] = (sum[key] ?? 0) + value;
  }
  return sum;
}

/** Halves `text` until every piece fits `budget`; later pieces say they continue a block. */
function splitToBudget(text: string, budget: number): string[] {
  if (estimateTextTokens(text) <= budget || text.length <= 1) return [text];
  const [head, tail] = splitTextAt({ text, index: Math.floor(text.length / 2) });
  const pieces = [...splitToBudget(head, budget), ...splitToBudget(tail, budget)];
  return pieces.map((piece, index) =>
    index === 0 || piece.startsWith(CONTINUED_MARKER) ? piece : `${CONTINUED_MARKER}${piece}`,
  );
}

export class LlmEventSummarizer implements EventsSummarizer {
  readonly name: string;
  private readonly model: Model;
  private readonly promptTemplate: string;
  private readonly maxInputTokens: number;
  private readonly maxItemChars: number;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly retryBaseDelayMs: number;
  private readonly maxRetryDelayMs: number;
  private readonly maxOutputTokens?: number;
  /** The template's own cost, without the placeholders' contents. */
  private readonly templateTokens: number;

  constructor(options: LlmEventSummarizerOptions) {
    const template = options.promptTemplate ?? DEFAULT_SUMMARY_PROMPT;
    if (!template.includes(CONVERSATION_HISTORY_PLACEHOLDER)) {
      throw new InvalidConfigError({
        field: 'promptTemplate',
        value: template.length > 80 ? `${template.slice(0, 80)}…` : template,
        message: `must contain ${CONVERSATION_HISTORY_PLACEHOLDER}`,
      });
    }
    checkInteger('maxInputTokens', options.maxInputTokens, MIN_CHUNK_TOKENS * 4);
    checkInteger('maxItemChars', options.maxItemChars, 16);
    checkInteger('timeoutMs', options.timeoutMs, 1);
    checkInteger('maxRetries', options.maxRetries, 0);
    checkInteger('retryBaseDelayMs', options.retryBaseDelayMs, 0);
    checkInteger('maxRetryDelayMs', options.maxRetryDelayMs, 0);
    checkInteger('maxOutputTokens', options.maxOutputTokens, 1);
    this.model = options.model;
    this.name = options.name ?? options.model.modelId;
    this.promptTemplate = template;
    this.maxInputTokens = options.maxInputTokens ?? DEFAULT_MAX_INPUT_TOKENS;
    this.maxItemChars = options.maxItemChars ?? DEFAULT_MAX_ITEM_CHARS;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_SUMMARIZER_TIMEOUT_MS;
    this.maxRetries = options.maxRetries ?? DEFAULT_SUMMARIZER_MAX_RETRIES;
    this.retryBaseDelayMs = options.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS;
    this.maxOutputTokens = options.maxOutputTokens;
    this.templateTokens = estimateTextTokens(
      fillPromptTemplate({ template, conversationHistory: '', previousSummary: '' }),
    );
  }

  async summarize(options: SummarizeOptions): Promise<Summary | null> {
    const { events, previousSummary, signal } = options;
    if (signal?.aborted) throw this.abortedError(signal);
    const previousText = previousSummary ? getText(previousSummary).trim() : '';
    const blocks = renderEventBlocks({ events, maxItemChars: this.maxItemChars });
    if (blocks.length === 0) {
      // Nothing new to read: the previous summary still holds (no model call needed).
      return previousText === ''
        ? null
        : { content: { role: 'model', parts: [{ text: previousText }] } };
    }
    try {
      const summary = await this.fold(
        blocks,
        previousText === '' ? undefined : previousText,
        signal,
      );
      return withSeqLabels(summary, events, previousText !== '');
    } catch (error) {
      if (SummarizerError.isInstance(error)) throw error;
      if (signal?.aborted) throw this.abortedError(signal, error);
      throw new SummarizerError({
        reason: 'model_error',
        summarizer: this.name,
        message: errorMessage(error),
        cause: error,
      });
    }
  }

  /** Folds the blocks into the summary chunk by chunk, each call seeded with the summary so far. */
  private async fold(
    blocks: string[],
    previousSummary: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Summary> {
    const queue = [...blocks];
    let summary = previousSummary;
    let usageMetadata: UsageMetadata | undefined;
    // Lowered when the provider says a chunk was too long, so later chunks are smaller too.
    let budgetCap = Number.POSITIVE_INFINITY;
    while (queue.length > 0) {
      const budget = Math.min(this.chunkBudget(summary), budgetCap);
      const { chunk, tokens } = this.takeChunk(queue, budget);
      const prompt = fillPromptTemplate({
        template: this.promptTemplate,
        conversationHistory: chunk.join('\n\n'),
        previousSummary: summary,
      });
      try {
        const answer = await this.completeWithRetry(prompt, signal);
        summary = answer.text;
        usageMetadata = addUsage(usageMetadata, answer.usageMetadata);
      } catch (error) {
        if (!isContextOverflowError(error)) throw error;
        if (tokens <= MIN_CHUNK_TOKENS) {
          throw new SummarizerError({
            reason: 'model_error',
            summarizer: this.name,
            message: `context overflow on a chunk of ~${tokens} tokens: cannot split further`,
            cause: error,
          });
        }
        // Put the chunk back and retry it in halves.
        queue.unshift(...chunk);
        budgetCap = Math.max(MIN_CHUNK_TOKENS, Math.floor(tokens / 2));
      }
    }
    const content = { role: 'model' as const, parts: [{ text: summary ?? '' }] };
    return usageMetadata ? { content, usageMetadata } : { content };
  }

  /** Tokens left for events once the template and the summary so far are in the prompt. */
  private chunkBudget(summary: string | undefined): number {
    const summaryTokens = estimateTextTokens(summary ?? NO_PREVIOUS_SUMMARY);
    const room = this.maxInputTokens - this.templateTokens - summaryTokens;
    // A summary near the budget must still leave room to make progress.
    return Math.max(room, Math.floor(this.maxInputTokens / 4), MIN_CHUNK_TOKENS);
  }

  /** Takes blocks off the queue up to `budget`; a block larger than the budget is split. */
  private takeChunk(queue: string[], budget: number): { chunk: string[]; tokens: number } {
    const chunk: string[] = [];
    let tokens = 0;
    while (queue.length > 0) {
      const block = queue[0]!;
      const blockTokens = estimateTextTokens(block) + BLOCK_SEPARATOR_TOKENS;
      if (chunk.length === 0 && blockTokens > budget) {
        const pieces = splitToBudget(block, budget - BLOCK_SEPARATOR_TOKENS);
        if (pieces.length > 1) {
          queue.splice(0, 1, ...pieces);
          continue;
        }
      } else if (tokens + blockTokens > budget) {
        break;
      }
      chunk.push(block);
      queue.shift();
      tokens += blockTokens;
    }
    return { chunk, tokens };
  }

  private async completeWithRetry(
    prompt: string,
    signal: AbortSignal | undefined,
  ): Promise<{ text: string; usageMetadata?: UsageMetadata }> {
    try {
      return await withModelRetry({
        attempt: () => this.generateOnce(prompt, signal),
        policy: {
          maxRetries: this.maxRetries,
          baseDelayMs: this.retryBaseDelayMs,
          maxDelayMs: this.maxRetryDelayMs,
        },
        signal,
      });
    } catch (error) {
      // An abort during a backoff wait surfaces as the summarizer's own abort error.
      if (signal?.aborted && !SummarizerError.isInstance(error)) {
        throw this.abortedError(signal, error);
      }
      throw error;
    }
  }

  private async generateOnce(
    prompt: string,
    signal: AbortSignal | undefined,
  ): Promise<{ text: string; usageMetadata?: UsageMetadata }> {
    const timeoutSignal = AbortSignal.timeout(this.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeoutSignal]) : timeoutSignal;
    let response: ModelResponse;
    try {
      response = await raceAbort(
        this.model.generate({
          contents: [{ role: 'user', parts: [{ text: prompt }] }],
          maxOutputTokens: this.maxOutputTokens,
          signal: combined,
        }),
        combined,
      );
    } catch (error) {
      if (signal?.aborted) throw this.abortedError(signal, error);
      if (timeoutSignal.aborted) {
        throw new SummarizerError({
          reason: 'timeout',
          summarizer: this.name,
          message: `no answer within timeoutMs=${this.timeoutMs}`,
          cause: error,
        });
      }
      throw error;
    }
    if (isBlockedFinishReason(response.finishReason)) {
      throw new SummarizerError({
        reason: 'blocked',
        summarizer: this.name,
        message: `the provider withheld the answer (finishReason=${response.finishReason})`,
      });
    }
    const text = getText(response.content).trim();
    if (text === '') {
      throw new SummarizerError({
        reason: 'empty',
        summarizer: this.name,
        message: `the answer held no text (finishReason=${response.finishReason ?? 'none'})`,
      });
    }
    return { text, usageMetadata: response.usageMetadata };
  }

  private abortedError(signal: AbortSignal | undefined, cause?: unknown): SummarizerError {
    return new SummarizerError({
      reason: 'aborted',
      summarizer: this.name,
      message: 'the caller aborted the summary',
      cause: cause ?? signal?.reason,
    });
  }
}

/**
 * The summary with every line naming its seq range: a rolling summary (one was folded in)
 * covers from seq 1, a first one from its first event.
 */
function withSeqLabels(summary: Summary, events: readonly Event[], rolling: boolean): Summary {
  const seqs = events.filter((event) => !isCompactionEvent(event)).map((event) => event.seq);
  if (seqs.length === 0) return summary;
  const fromSeq = rolling ? 1 : Math.min(...seqs);
  const toSeq = Math.max(...seqs);
  const text = labelSummaryLines({ text: getText(summary.content), fromSeq, toSeq });
  return { ...summary, content: { role: 'model', parts: [{ text }] } };
}
