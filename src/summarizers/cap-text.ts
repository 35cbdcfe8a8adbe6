/**
 * Text cut to a budget without splitting a surrogate pair: `capText` keeps head and tail around
 * a marker, `splitTextAt` halves. Shared by event rendering, the tool-output cap, the summarizers
 * and the recall tools; apart from `render.ts` so the renderer and `cap-tool-output.ts` import
 * it without importing each other.
 */

/** Index adjusted so a slice never cuts a surrogate pair in half. */
function safeIndex(text: string, index: number): number {
  if (index <= 0 || index >= text.length) return index;
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff ? index - 1 : index;
}

/** Slices `text` at about `index` without splitting a surrogate pair. */
export function splitTextAt(options: { text: string; index: number }): [string, string] {
  const index = safeIndex(options.text, options.index);
  return [options.text.slice(0, index), options.text.slice(index)];
}

/**
 * `text` shortened to about `maxChars`, keeping its head and tail around a marker that says how
 * much was left out. Text within the cap is returned unchanged.
 */
export function capText(options: { text: string; maxChars: number }): string {
  const { text, maxChars } = options;
  if (text.length <= maxChars) return text;
  const headEnd = safeIndex(text, Math.ceil(maxChars / 2));
  const tailStart = safeIndex(text, text.length - Math.floor(maxChars / 2));
  const omitted = tailStart - headEnd;
  return `${text.slice(0, headEnd)}… [${omitted} chars omitted] …${text.slice(tailStart)}`;
}
