/**
 * Caps a tool item (a call's arguments, a result) for the summarizer without losing the lines
 * that matter. Head + tail alone drops the middle of a test run, which is where the failing
 * test, its assertion and its stack frames are; so lines that look like errors, failures, stack
 * frames or a diff's file names are kept first (within half the cap), in their order, and head
 * and tail fill what is left. Pure.
 */
import { capText, splitTextAt } from './cap-text.js';

/** Lines a summary of a tool's output must not lose. */
const SALIENT_LINE =
  /\b(errors?|exception|traceback|fail(?:ed|ure|ures|ing|s)?|fatal|panic(?:ked)?|assert(?:ion)?(?:error)?|denied|refused|timed? ?out|segfault|segmentation fault|cannot|could not|not found|undefined reference|expected|received)\b|^\s+at\s|^\s*File ".+", line \d+|^(?:diff --git|\+\+\+ |--- |Index: )|^\s*(?:FAIL|ERROR|not ok)\b/i;
/** One kept line at most this long (a minified line is no "line that matters"). */
const MAX_SALIENT_LINE_CHARS = 240;
/** Share of the cap the kept lines may take. */
const SALIENT_SHARE = 0.5;

interface Line {
  start: number;
  end: number;
  text: string;
}

function linesOf(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (start <= text.length) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    lines.push({ start, end, text: text.slice(start, end) });
    if (newline === -1) break;
    start = newline + 1;
  }
  return lines;
}

/**
 * Lines that matter within `budget` characters, in text order: first those `keep` asks for (in
 * order), then salient ones taken from both ends inwards.
 */
function pickSalient(lines: Line[], budget: number, keep?: (line: string) => boolean): Line[] {
  const asked = keep ? lines.filter((line) => line.text.trim() !== '' && keep(line.text)) : [];
  const candidates = lines.filter(
    (line) => line.text.trim() !== '' && SALIENT_LINE.test(line.text) && !asked.includes(line),
  );
  const picked: Line[] = [];
  let used = 0;
  const take = (line: Line) => {
    const size = Math.min(line.text.length, MAX_SALIENT_LINE_CHARS) + 1;
    if (used + size > budget) return;
    picked.push(line);
    used += size;
  };
  for (const line of asked) take(line);
  let low = 0;
  let high = candidates.length - 1;
  let fromStart = true;
  while (low <= high) {
    take(fromStart ? candidates[low++]! : candidates[high--]!);
    fromStart = !fromStart;
  }
  return picked.sort((a, b) => a.start - b.start);
}

function shown(lines: Line[]): string {
  return lines
    .map((line) => capText({ text: line.text, maxChars: MAX_SALIENT_LINE_CHARS }))
    .join('\n');
}

/**
 * `text` within about `maxChars`: unchanged when it fits; else head, the lines that matter
 * from the middle, and tail, with markers saying how much was left out.
 */
export function capToolOutput(options: {
  text: string;
  maxChars: number;
  /** Lines to keep before any other (e.g. those holding the words a search was for). */
  keep?: (line: string) => boolean;
}): string {
  const { text, maxChars } = options;
  if (text.length <= maxChars) return text;
  const salient = pickSalient(linesOf(text), Math.floor(maxChars * SALIENT_SHARE), options.keep);
  if (salient.length === 0) return capText({ text, maxChars });
  // Lines inside head or tail are shown there already: their share goes back to head and tail.
  const room = (lines: Line[]) => Math.max(0, maxChars - shown(lines).length);
  const outside = (lines: Line[]) => {
    const space = room(lines);
    const headEnd = Math.ceil(space / 2);
    const tailStart = text.length - Math.floor(space / 2);
    return salient.filter((line) => line.end > headEnd && line.start < tailStart);
  };
  const middle = outside(outside(salient));
  if (middle.length === 0) return capText({ text, maxChars });
  const kept = shown(middle);
  const space = room(middle);
  const [head] = splitTextAt({ text, index: Math.ceil(space / 2) });
  const [, tail] = splitTextAt({ text, index: text.length - Math.floor(space / 2) });
  const omitted = text.length - head.length - tail.length;
  return `${head}… [${omitted} chars omitted; kept ${middle.length} lines that matter:]\n${kept}\n… …${tail}`;
}
