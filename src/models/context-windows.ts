/**
 * Input windows of common models: the most prompt tokens the provider accepts in one request,
 * so token thresholds can be checked against the real limit. Unknown models return `undefined`:
 * callers then rely on their own settings (`contextWindowTokens` on the Runner, the agent or
 * `resolveModel` overrides this table).
 *
 * Where a provider publishes a total context window shared by input and output, the input
 * window is what is left after the largest output the model reserves (GPT-5: 400,000 total,
 * 128,000 output, 272,000 input); where the provider documents no separate reservation the
 * input may use the whole window, and that figure is listed.
 */

interface KnownWindow {
  pattern: RegExp;
  inputTokens: number;
  /** Where the figure comes from (checked 2025). */
  source: string;
}

// First match wins, so specific patterns come before general ones.
const knownContextWindows: readonly KnownWindow[] = [
  {
    pattern: /^gemini-1\.5-pro/,
    inputTokens: 2_097_152,
    source: 'ai.google.dev/gemini-api/docs/models: input token limit',
  },
  {
    pattern: /^gemini-(?:1\.5|2\.0|2\.5|3(?:\.\d+)?)-/,
    inputTokens: 1_048_576,
    source: 'ai.google.dev/gemini-api/docs/models: input token limit',
  },
  {
    pattern: /^gemini-(?:flash|flash-lite|pro)-latest$/,
    inputTokens: 1_048_576,
    source: 'ai.google.dev/gemini-api/docs/models: input token limit',
  },
  {
    pattern: /^gpt-4\.1/,
    inputTokens: 1_047_576,
    source: 'platform.openai.com/docs/models/gpt-4.1: context window (no separate input limit)',
  },
  {
    pattern: /^gpt-4o/,
    inputTokens: 128_000,
    source: 'platform.openai.com/docs/models/gpt-4o: context window (no separate input limit)',
  },
  {
    pattern: /^gpt-4-turbo/,
    inputTokens: 128_000,
    source: 'platform.openai.com/docs/models/gpt-4-turbo: context window',
  },
  {
    // The ChatGPT snapshot has a smaller window than the API models.
    pattern: /^gpt-5(?:\.\d+)?-chat/,
    inputTokens: 128_000,
    source: 'platform.openai.com/docs/models/gpt-5-chat-latest: context window',
  },
  {
    pattern: /^gpt-5/,
    inputTokens: 272_000,
    source:
      'openai.com/index/introducing-gpt-5-for-developers: 272,000 input + 128,000 output = 400,000 total',
  },
  {
    pattern: /^o[134](?:-|$)/,
    inputTokens: 200_000,
    source: 'platform.openai.com/docs/models/o3: context window (no separate input limit)',
  },
  {
    pattern: /^claude-/,
    inputTokens: 200_000,
    source:
      'docs.anthropic.com/en/docs/about-claude/models: context window (the 1M beta needs a header)',
  },
];

/** The known input window of a model name (without the `provider:` prefix), if any. */
export function knownContextWindowTokens(modelName: string): number | undefined {
  return knownContextWindow(modelName)?.inputTokens;
}

/** The known input window of a model name and where the figure comes from, if known. */
export function knownContextWindow(
  modelName: string,
): { inputTokens: number; source: string } | undefined {
  // Names such as `models/gemini-2.5-flash` (Gemini's REST form) match by their last segment.
  const name = modelName.slice(modelName.lastIndexOf('/') + 1).toLowerCase();
  const found = knownContextWindows.find((known) => known.pattern.test(name));
  return found && { inputTokens: found.inputTokens, source: found.source };
}
