/**
 * `--summarizer digest|MODEL_ID`: the offline digest, or a model summarizer with the digest as
 * the Compactor's fallback (not a wrapper: the Compactor then knows, and records, which of the
 * two wrote each summary and why the model did not).
 */
import type { EventsSummarizer } from '../compaction/types.js';
import { ModelConfigError } from '../models/errors.js';
import { resolveModel } from '../models/resolve-model.js';
import { DigestSummarizer } from '../summarizers/digest-summarizer.js';
import { LlmEventSummarizer } from '../summarizers/llm-event-summarizer.js';

export interface SummarizerChoice {
  summarizer: EventsSummarizer;
  /** Tried when `summarizer` fails; none for the digest itself. */
  fallbackSummarizer?: EventsSummarizer;
  /** For headers: "digest", or "google:gemini-2.5-flash (digest on failure)". */
  label: string;
}

export async function createSummarizer(options: {
  value: string;
  env: Record<string, string | undefined>;
  /** The flag or variable the value came from, named in errors. */
  source?: string;
}): Promise<SummarizerChoice> {
  if (options.value === 'digest') {
    const summarizer = new DigestSummarizer();
    return { summarizer, label: summarizer.name };
  }
  const source = options.source ?? '--summarizer';
  let model: Awaited<ReturnType<typeof resolveModel>>;
  try {
    model = await resolveModel({ modelId: options.value, env: options.env });
  } catch (error) {
    if (!ModelConfigError.isInstance(error)) throw error;
    throw new ModelConfigError({
      variable: error.variable,
      value: error.value,
      message: `${source} ${JSON.stringify(options.value)} cannot be used: ${error.message}`,
      cause: error,
    });
  }
  const summarizer = new LlmEventSummarizer({ model });
  const fallbackSummarizer = new DigestSummarizer();
  return {
    summarizer,
    fallbackSummarizer,
    label: `${summarizer.name} (${fallbackSummarizer.name} on failure)`,
  };
}
