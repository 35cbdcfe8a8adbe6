/**
 * Context windows (input tokens) of common models, so token thresholds can be checked against
 * the real limit. Unknown models return `undefined`: callers then rely on their own settings.
 */

// First match wins, so specific patterns come before general ones.
const knownContextWindows: ReadonlyArray<readonly [RegExp, number]> = [
  [/^gemini-1\.5-pro/, 2_097_152],
  [/^gemini-(?:1\.5|2\.0|2\.5|3(?:\.\d+)?)-/, 1_048_576],
  [/^gemini-(?:flash|flash-lite|pro)-latest$/, 1_048_576],
  [/^gpt-4\.1/, 1_047_576],
  [/^gpt-4o/, 128_000],
  [/^gpt-4-turbo/, 128_000],
  [/^gpt-5/, 400_000],
  [/^o[134](?:-|$)/, 200_000],
  [/^claude-/, 200_000],
];

/** The known context window of a model name (without the `provider:` prefix), if any. */
export function knownContextWindowTokens(modelName: string): number | undefined {
  // Names such as `models/gemini-2.5-flash` (Gemini's REST form) match by their last segment.
  const name = modelName.slice(modelName.lastIndexOf('/') + 1).toLowerCase();
  for (const [pattern, tokens] of knownContextWindows) {
    if (pattern.test(name)) return tokens;
  }
  return undefined;
}
