/**
 * TEST ORACLE: `DigestSummarizer` as it was before its sections were read newest first (every
 * event read and redacted oldest first, `indexOf` + `splice`, seq tags as items). Quadratic;
 * small inputs only.
 *
 * A deterministic summarizer with no model (docs/architecture.md#summarizers): user requests, tool
 * calls with key arguments, errors, calls without a response, paths and identifiers, last results.
 * The CLI's offline default and the fallback when the model summarizer fails. The same input always
 * gives the same output, and the previous digest's facts are carried forward (bounded, most recent
 * kept). Never copies a secret: texts, call arguments and results are redacted before anything is
 * picked from them (so a cut cannot leave half a key), and the digest is redacted once more.
 */
import { InvalidConfigError } from '../../compaction/errors.js';
import type { EventsSummarizer, SummarizeOptions, Summary } from '../../compaction/types.js';
import { getText, isCompactionEvent } from '../../events/event-helpers.js';
import type { Event, FunctionResponse } from '../../events/types.js';
import { redactJson, redactText } from '../../redaction/index.js';
import { capText } from '../cap-text.js';
import {
  type DigestSectionKey,
  type DigestSections,
  emptySections,
  formatDigest,
  formattedDigestLength,
  formattedItemLength,
  parseDigest,
  type SectionLength,
} from '../digest-format.js';
import { findIdentifiers } from '../digest-identifiers.js';

interface DigestSummarizerOptions {
  /** Ceiling of the digest, in characters (the oldest items go first). */
  maxChars?: number;
  /** Recorded as the compaction's `summarizer` (default `digest`). */
  name?: string;
}

const DEFAULT_DIGEST_MAX_CHARS = 8000;

/** Most items a section keeps before the size ceiling applies. */
const SECTION_LIMITS: Record<DigestSectionKey, number> = {
  userRequests: 30,
  toolCalls: 40,
  errors: 20,
  openCalls: 20,
  identifiers: 80,
  agentAnswers: 20,
  lastResults: 5,
  earlierSummary: 1,
};
const USER_REQUEST_CHARS = 1000;
const ERROR_CHARS = 300;
const RESULT_CHARS = 400;
/** A tool result's snippet: short, since `[seq N]` lets the agent recall the whole of it. */
const TOOL_RESULT_CHARS = 200;
const IDENTIFIER_CHARS = 200;
const ARGUMENT_VALUE_CHARS = 80;
const ARGUMENTS_SHOWN = 4;
/** Text scanned for identifiers per item (head and tail): bounds the regex work. */
const SCAN_CHARS = 20_000;
const ERROR_TEXT =
  /\b(error|exception|traceback|failed|failure|fatal|denied|forbidden|not found|timed out)\b/i;
const ERROR_STATUSES = new Set(['error', 'failed', 'failure', 'fatal']);

function toJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** A path, URL or id: one token, never cut (a path cut in the middle names no file). */
function isIdentifierLike(value: string): boolean {
  return value.length <= IDENTIFIER_CHARS && !/\s/.test(value);
}

function formatArgumentValue(value: unknown): string {
  if (typeof value === 'string') {
    if (isIdentifierLike(value)) return JSON.stringify(value);
    return JSON.stringify(capText({ text: value, maxChars: ARGUMENT_VALUE_CHARS }));
  }
  if (value === null || typeof value === 'number' || typeof value === 'boolean') {
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.length} items]`;
  if (typeof value === 'object') return '{…}';
  return String(value);
}

/** `name(key="value", n=3, …)`: the first few arguments, values shortened. */
function formatCall(name: string, args: Record<string, unknown> | undefined): string {
  const entries = Object.entries(args ?? {});
  const shown = entries
    .slice(0, ARGUMENTS_SHOWN)
    .map(([key, value]) => `${key}=${formatArgumentValue(value)}`);
  if (entries.length > ARGUMENTS_SHOWN) shown.push('…');
  return oneLine(`${name}(${shown.join(', ')})`);
}

/** What a response says went wrong, or `undefined` when it looks like a success. */
function responseError(response: FunctionResponse['response']): string | undefined {
  const value = response ?? {};
  for (const key of ['error', 'errors', 'errorMessage', 'error_message', 'stderr']) {
    const field = value[key];
    if (field !== undefined && field !== null && field !== '' && field !== false) {
      return typeof field === 'string' ? field : toJson(field);
    }
  }
  const status = value.status;
  if (typeof status === 'string' && ERROR_STATUSES.has(status.toLowerCase())) return toJson(value);
  if (value.ok === false || value.success === false) return toJson(value);
  for (const key of ['exitCode', 'exit_code']) {
    const code = value[key];
    if (typeof code === 'number' && code !== 0) return toJson(value);
  }
  // Error-ish text near the start of the result (a stack trace, "Error: ...").
  const head = toJson(value).slice(0, 300);
  return ERROR_TEXT.test(head) ? head : undefined;
}

/** Appends `item`; a repeat moves to the end (most recent), or stays put when `keepFirst`. */
function remember(list: string[], item: string, keepFirst = false): void {
  const index = list.indexOf(item);
  if (index !== -1) {
    if (keepFirst) return;
    list.splice(index, 1);
  }
  list.push(item);
}

/** Every string in `value` (the text a tool returned, without JSON's escapes), one per line. */
function stringsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsOf(item, out);
  else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) stringsOf(item, out);
  }
  return out;
}

/** `text [seq N]`: where an item comes from, so the agent can recall it (docs/memory.md). */
function tagged(text: string, seq: string | number): string {
  return `${text} [seq ${seq}]`;
}

const SEQ_TAG = / \[seq [0-9][0-9, -]*\]$/;

/** The item without its seq tag (items of digests written before tags have none). */
function untagged(item: string): string {
  return item.replace(SEQ_TAG, '');
}

/**
 * `remember` for tagged items: a repeat is the same text from another seq, so it is found by
 * its text and moves to the end with the newer seq (or, `keepFirst`, stays with its first).
 */
function rememberAt(list: string[], text: string, seq: number, keepFirst = false): void {
  const index = list.findIndex((item) => untagged(item) === text);
  if (index !== -1) {
    if (keepFirst) return;
    list.splice(index, 1);
  }
  list.push(tagged(text, seq));
}

/**
 * Identifiers are listed one line per seq (`a.ts, INC-4411 [seq 12]`): a tag on each of 80
 * identifiers would cost more than the identifiers. Read back as identifier -> seq, in order
 * (an untagged line, from a digest written before tags, has seq 0).
 */
function identifierSeqs(lines: readonly string[]): Map<string, number> {
  const seqs = new Map<string, number>();
  for (const line of lines) {
    const match = /^(.*) \[seq (\d+)\]$/s.exec(line);
    const names = match ? (match[1] ?? '').split(', ') : [line];
    const seq = match ? Number(match[2]) : 0;
    for (const name of names) {
      seqs.delete(name);
      seqs.set(name, seq);
    }
  }
  return seqs;
}

/** The newest `limit` identifiers, consecutive ones of one seq on one line. */
function identifierLines(seqs: Map<string, number>, limit: number): string[] {
  const entries = [...seqs.entries()].slice(-limit);
  const lines: string[] = [];
  let names: string[] = [];
  let current: number | undefined;
  const flush = () => {
    if (names.length === 0) return;
    if (current === 0) lines.push(...names);
    else lines.push(tagged(names.join(', '), current ?? 0));
    names = [];
  };
  for (const [name, seq] of entries) {
    if (seq !== current) flush();
    current = seq;
    names.push(name);
  }
  flush();
  return lines;
}

function callIdOf(openCallItem: string): string | undefined {
  return /\(([^()]*)\)$/.exec(untagged(openCallItem))?.[1];
}

export class ReferenceDigestSummarizer implements EventsSummarizer {
  readonly name: string;
  private readonly maxChars: number;

  constructor(options: DigestSummarizerOptions = {}) {
    const maxChars = options.maxChars ?? DEFAULT_DIGEST_MAX_CHARS;
    if (!Number.isInteger(maxChars) || maxChars < 200) {
      throw new InvalidConfigError({
        field: 'maxChars',
        value: options.maxChars,
        message: 'must be an integer >= 200',
      });
    }
    this.maxChars = maxChars;
    this.name = options.name ?? 'digest';
  }

  async summarize(options: SummarizeOptions): Promise<Summary | null> {
    options.signal?.throwIfAborted();
    const previousText = options.previousSummary ? getText(options.previousSummary).trim() : '';
    const events = options.events.filter((event) => !isCompactionEvent(event));
    if (events.length === 0 && previousText === '') return null;
    const firstSeq = events.reduce((smallest, event) => Math.min(smallest, event.seq), Infinity);
    const sections = this.carryForward(previousText, firstSeq);
    this.addEvents(sections, events);
    for (const key of Object.keys(SECTION_LIMITS) as DigestSectionKey[]) {
      const items = sections[key];
      const excess = items.length - SECTION_LIMITS[key];
      // The first user request is the goal: it stays while later ones rotate out.
      if (excess > 0) items.splice(key === 'userRequests' ? 1 : 0, excess);
    }
    const coveredThroughSeq = events.reduce((largest, event) => Math.max(largest, event.seq), 0);
    const text = redactText(this.bounded(sections, coveredThroughSeq));
    return { content: { role: 'model', parts: [{ text }] } };
  }

  /** `firstSeq`: the first new event's; a rolling summary covers every seq before it. */
  private carryForward(previousText: string, firstSeq: number): DigestSections {
    if (previousText === '') return emptySections();
    const parsed = parseDigest(previousText);
    if (parsed) return parsed;
    // A model's summary (e.g. before a fallback): kept whole, within half the budget.
    const sections = emptySections();
    const text = capText({ text: previousText, maxChars: this.maxChars / 2 });
    const range = Number.isFinite(firstSeq) && firstSeq > 2 ? `1-${firstSeq - 1}` : undefined;
    sections.earlierSummary.push(range === undefined ? text : tagged(text, range));
    return sections;
  }

  private addEvents(sections: DigestSections, events: Event[]): void {
    const openCalls = new Map<string, string>();
    const identifiers = identifierSeqs(sections.identifiers);
    const addIdentifiers = (text: string, seq: number) => {
      for (const found of findIdentifiers(capText({ text, maxChars: SCAN_CHARS }))) {
        const identifier = capText({ text: found, maxChars: IDENTIFIER_CHARS });
        // A repeat moves to the end (most recent) with its newer seq.
        identifiers.delete(identifier);
        identifiers.set(identifier, seq);
      }
    };
    for (const event of events) {
      const role = event.content?.role;
      const text = redactText(getText(event).trim());
      if (text !== '') {
        if (event.author === 'user' && role === 'user') {
          rememberAt(
            sections.userRequests,
            capText({ text, maxChars: USER_REQUEST_CHARS }),
            event.seq,
            true,
          );
        } else {
          remember(
            sections.agentAnswers,
            `${event.author}: ${oneLine(capText({ text, maxChars: RESULT_CHARS }))} [seq ${event.seq}]`,
          );
        }
        addIdentifiers(text, event.seq);
      }
      for (const part of event.content?.parts ?? []) {
        if (part.functionCall) {
          const { id, name } = part.functionCall;
          const args = redactJson(part.functionCall.args ?? {});
          rememberAt(sections.toolCalls, formatCall(name, args), event.seq);
          openCalls.set(id, tagged(`${name}(${id})`, event.seq));
          addIdentifiers(stringsOf(args ?? {}).join('\n'), event.seq);
        }
        if (part.functionResponse) {
          const { id, name } = part.functionResponse;
          const response = redactJson(part.functionResponse.response ?? {});
          openCalls.delete(id);
          const json = toJson(response ?? {});
          const error = responseError(response);
          if (error !== undefined) {
            remember(
              sections.errors,
              oneLine(
                `${name}(${id}): ${capText({ text: error, maxChars: ERROR_CHARS })} [seq ${event.seq}]`,
              ),
            );
          }
          remember(
            sections.lastResults,
            oneLine(
              `${name}(${id}) -> ${capText({ text: json, maxChars: TOOL_RESULT_CHARS })} [seq ${event.seq}]`,
            ),
          );
          addIdentifiers(stringsOf(response).join('\n'), event.seq);
        }
      }
      if (event.errorCode !== undefined || event.errorMessage !== undefined) {
        const message = `${event.author}: ${event.errorCode ?? 'error'}: ${redactText(event.errorMessage ?? '')}`;
        remember(
          sections.errors,
          `${oneLine(capText({ text: message, maxChars: ERROR_CHARS }))} [seq ${event.seq}]`,
        );
      }
    }
    // A carried-forward open call answered in this window is no longer open.
    const answered = new Set<string>();
    for (const event of events) {
      for (const part of event.content?.parts ?? []) {
        if (part.functionResponse) answered.add(part.functionResponse.id);
      }
    }
    sections.openCalls = sections.openCalls.filter((item) => {
      const id = callIdOf(item);
      return id === undefined || !answered.has(id);
    });
    for (const item of openCalls.values()) remember(sections.openCalls, item);
    sections.identifiers = identifierLines(identifiers, SECTION_LIMITS.identifiers);
  }

  /** The digest within `maxChars`: the oldest item of the largest section goes first. */
  private bounded(sections: DigestSections, coveredThroughSeq: number): string {
    const keys = Object.keys(sections) as DigestSectionKey[];
    // Sizes kept current as items go, so each removal costs O(sections), not a new text.
    const lengths = {} as Record<DigestSectionKey, SectionLength & { size: number }>;
    for (const key of keys) {
      const items = sections[key];
      lengths[key] = {
        count: items.length,
        itemsLength: items.reduce((total, item) => total + formattedItemLength(item), 0),
        size: items.reduce((total, item) => total + item.length + 3, 0),
      };
    }
    const measure = () => formattedDigestLength(lengths, { coveredThroughSeq });
    for (let length = measure(); length > this.maxChars; length = measure()) {
      let victim: { key: DigestSectionKey; index: number; size: number } | undefined;
      for (const key of keys) {
        const count = lengths[key].count;
        // The goal (first) and the latest user request are the last to go.
        const index = key === 'userRequests' ? (count > 2 ? 1 : -1) : count > 0 ? 0 : -1;
        if (index === -1) continue;
        const size = lengths[key].size;
        if (!victim || size > victim.size) victim = { key, index, size };
      }
      if (!victim) break;
      const [removed = ''] = sections[victim.key].splice(victim.index, 1);
      const section = lengths[victim.key];
      section.count--;
      section.itemsLength -= formattedItemLength(removed);
      section.size -= removed.length + 3;
    }
    const text = formatDigest(sections, { coveredThroughSeq });
    return text.length > this.maxChars ? capText({ text, maxChars: this.maxChars - 40 }) : text;
  }
}
