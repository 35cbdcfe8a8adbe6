export {
  CONVERSATION_HISTORY_PLACEHOLDER,
  DEFAULT_SUMMARY_PROMPT,
  fillPromptTemplate,
  PREVIOUS_SUMMARY_PLACEHOLDER,
} from './default-prompt.js';
export {
  DEFAULT_DIGEST_MAX_CHARS,
  DigestSummarizer,
  type DigestSummarizerOptions,
} from './digest-summarizer.js';
export { SummarizerError, type SummarizerErrorReason } from './errors.js';
export {
  type FallbackSummarizer,
  type FallbackSummary,
  withFallback,
} from './fallback-summarizer.js';
export {
  DEFAULT_MAX_INPUT_TOKENS,
  DEFAULT_SUMMARIZER_MAX_RETRIES,
  DEFAULT_SUMMARIZER_TIMEOUT_MS,
  LlmEventSummarizer,
  type LlmEventSummarizerOptions,
} from './llm-event-summarizer.js';
export { type RenderOptions, renderEvent, renderEventBlocks, renderEvents } from './render.js';
