/**
 * Every line of a summary names the seq range it comes from (docs/memory.md#summary-lines), so
 * the model can read any of it back with `recall({ fromSeq, toSeq })`. The model is asked to
 * write `(seq N)` or `(seq N-M)` after each line; a line it left without one gets the range
 * the whole summary covers: coarse, but true, and never nothing.
 */

/** `seq 12`, `(seq 12-15)`, `[seq 3, 5]`: a line that already says where it comes from. */
const SEQ_REFERENCE = /\bseqs?\s*\d/i;
const FENCE = /^\s*(```|~~~)/;

/** `text` with ` (seq from-to)` after each content line that names no seq. */
export function labelSummaryLines(options: {
  text: string;
  fromSeq: number;
  toSeq: number;
}): string {
  const { text, fromSeq, toSeq } = options;
  const range = fromSeq >= toSeq ? `(seq ${toSeq})` : `(seq ${fromSeq}-${toSeq})`;
  let inFence = false;
  return text
    .split('\n')
    .map((line) => {
      if (FENCE.test(line)) {
        inFence = !inFence;
        return line;
      }
      const trimmed = line.trim();
      // Code, headings, blank lines and "none" are not facts to read back.
      if (
        inFence ||
        trimmed === '' ||
        trimmed.startsWith('#') ||
        /^[-*]?\s*none\.?$/i.test(trimmed)
      ) {
        return line;
      }
      return SEQ_REFERENCE.test(line) ? line : `${line.trimEnd()} ${range}`;
    })
    .join('\n');
}
