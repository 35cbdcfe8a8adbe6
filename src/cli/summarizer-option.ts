/** `--summarizer digest|MODEL_ID`: the offline digest, or a model summarizer with the digest as fallback. */
import type { EventsSummarizer } from '../compaction/types.js';
import { resolveModel } from '../models/resolve-model.js';
import { DigestSummarizer } from '../summarizers/digest-summarizer.js';
import { withFallback } from '../summarizers/fallback-summarizer.js';
import { LlmEventSummarizer } from '../summarizers/llm-event-summarizer.js';

export async function createSummarizer(options: {
  value: string;
  env: Record<string, string | undefined>;
}): Promise<EventsSummarizer> {
  if (options.value === 'digest') return new DigestSummarizer();
  const model = await resolveModel({ modelId: options.value, env: options.env });
  return withFallback({
    primary: new LlmEventSummarizer({ model }),
    fallback: new DigestSummarizer(),
  });
}
