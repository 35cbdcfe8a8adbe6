/**
 * The redaction scanner: every rule finds its spans in the original text, overlapping spans
 * merge (the earlier rule names the merged span), and the text is rebuilt once. Each rule is
 * linear in the text (see `PatternRule`), so the whole scan is linear in text length times
 * the number of rules.
 */

/** What a validator sees: the candidate and where it sits, for checks that need context. */
export interface RedactionCandidate {
  /** The matched text (the `secret` group when the pattern has one). */
  match: string;
  /** The whole text being scanned. */
  text: string;
  start: number;
  end: number;
}

/**
 * A rule written as a regular expression. To stay linear it must bound every quantifier on a
 * character class that can run long (`{1,64}`, not `+`), never nest quantifiers that can split
 * the same text two ways, and start with a boundary (a lookbehind or a literal) so a long run
 * of token characters is tried from its start only. The `g` flag is added when missing. A named
 * group `secret` narrows the redacted span to that group (e.g. the value after `password=`).
 */
export interface PatternRule {
  /** Shown in the marker: `[REDACTED:<kind>]`. */
  kind: string;
  pattern: RegExp;
  /** Extra check (a checksum, the context); `false` keeps the text. */
  validate?: (candidate: RedactionCandidate) => boolean;
  /**
   * What every match contains (a literal, or a pattern found anywhere in the text): a text
   * without it is not scanned with `pattern`. Speed only, so it must hold for every match;
   * rules sharing one `RegExp` here test it once per text.
   */
  requires?: string | RegExp;
}

/** A rule written as code, for shapes a bounded pattern cannot express (a PEM block). */
export interface ScanRule {
  kind: string;
  /** Spans to redact, in any order; must be linear in `text`. */
  scan: (text: string) => Iterable<{ start: number; end: number }>;
}

export type RedactionRule = PatternRule | ScanRule;

export interface RedactionSpan {
  start: number;
  end: number;
  kind: string;
}

const compiled = new WeakMap<RegExp, RegExp>();

function compile(pattern: RegExp): RegExp {
  let regex = compiled.get(pattern);
  if (!regex) {
    let flags = pattern.flags;
    if (!flags.includes('g')) flags += 'g';
    if (!flags.includes('d') && pattern.source.includes('(?<secret>')) flags += 'd';
    regex = new RegExp(pattern.source, flags.replace('y', ''));
    compiled.set(pattern, regex);
  }
  return regex;
}

/** `requires` as an unanchored, stateless test (its `g` and `y` flags dropped). */
const requirements = new WeakMap<RegExp, RegExp>();

function requirementOf(pattern: RegExp): RegExp {
  let regex = requirements.get(pattern);
  if (!regex) {
    regex = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''));
    requirements.set(pattern, regex);
  }
  return regex;
}

/** False when `text` lacks what every match of `rule` contains (`tested`: per-text memo). */
function mayMatch(rule: PatternRule, text: string, tested: Map<RegExp, boolean>): boolean {
  const required = rule.requires;
  if (required === undefined) return true;
  if (typeof required === 'string') return text.includes(required);
  let found = tested.get(required);
  if (found === undefined) {
    found = requirementOf(required).test(text);
    tested.set(required, found);
  }
  return found;
}

function* patternSpans(text: string, rule: PatternRule): Generator<RedactionSpan> {
  // A fresh lastIndex per scan: the compiled regex is shared across calls.
  const regex = compile(rule.pattern);
  regex.lastIndex = 0;
  for (let found = regex.exec(text); found !== null; found = regex.exec(text)) {
    if (found[0] === '') {
      regex.lastIndex++;
      continue;
    }
    const narrowed = found.indices?.groups?.secret;
    const [start, end] = narrowed ?? [found.index, found.index + found[0].length];
    if (start === end) continue;
    const match = text.slice(start, end);
    if (rule.validate && !rule.validate({ match, text, start, end })) {
      // Retry just past this candidate's start: a shorter match may still be valid.
      regex.lastIndex = found.index + 1;
      continue;
    }
    yield { start, end, kind: rule.kind };
  }
}

/** Every span the rules find, merged: overlapping or touching spans become one. */
export function findRedactionSpans(options: {
  text: string;
  rules: readonly RedactionRule[];
}): RedactionSpan[] {
  const { text, rules } = options;
  const found: Array<RedactionSpan & { priority: number }> = [];
  const tested = new Map<RegExp, boolean>();
  rules.forEach((rule, priority) => {
    if (!('scan' in rule) && !mayMatch(rule, text, tested)) return;
    const spans = 'scan' in rule ? rule.scan(text) : patternSpans(text, rule);
    for (const span of spans)
      found.push({ start: span.start, end: span.end, kind: rule.kind, priority });
  });
  if (found.length === 0) return [];
  found.sort((left, right) => left.start - right.start || left.priority - right.priority);
  const merged: RedactionSpan[] = [];
  let current = found[0] as RedactionSpan & { priority: number };
  for (const span of found.slice(1)) {
    if (span.start < current.end) {
      current.end = Math.max(current.end, span.end);
      if (span.priority < current.priority) {
        current.kind = span.kind;
        current.priority = span.priority;
      }
      continue;
    }
    merged.push({ start: current.start, end: current.end, kind: current.kind });
    current = span;
  }
  merged.push({ start: current.start, end: current.end, kind: current.kind });
  return merged;
}

export function redactionMarker(kind: string): string {
  return `[REDACTED:${kind}]`;
}

/** `text` with each span replaced by its marker. */
export function applySpans(text: string, spans: readonly RedactionSpan[]): string {
  if (spans.length === 0) return text;
  const pieces: string[] = [];
  let position = 0;
  for (const span of spans) {
    pieces.push(text.slice(position, span.start), redactionMarker(span.kind));
    position = span.end;
  }
  pieces.push(text.slice(position));
  return pieces.join('');
}
