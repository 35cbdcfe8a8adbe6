/**
 * A deterministic summarizer with no model (docs/architecture.md#summarizers): user requests, tool
 * calls with key arguments, errors, calls without a response, paths and identifiers, last results.
 * The CLI's offline default and the fallback when the model summarizer fails. The same input always
 * gives the same output, and the previous digest's facts are carried forward (bounded, most recent
 * kept). Never copies a secret: texts, call arguments and results are redacted before anything is
 * picked from them (so a cut cannot leave half a key), and the digest is redacted once more.
 */
import { InvalidConfigError } from '../compaction/errors.js';
import type { EventsSummarizer, SummarizeOptions, Summary } from '../compaction/types.js';
import { getText, isCompactionEvent } from '../events/event-helpers.js';
import type { Event, FunctionResponse } from '../events/types.js';
import { redactJson, redactText } from '../redaction/index.js';
import { capText } from './cap-text.js';
import {
  type DigestSectionKey,
  type DigestSections,
  emptySections,
  formatDigest,
  formattedDigestLength,
  formattedItemLength,
  parseDigest,
  type SectionLength,
} from './digest-format.js';
import { findIdentifiers } from './digest-identifiers.js';
import { NewestItems, RecentItems } from './recent-items.js';

export interface DigestSummarizerOptions {
  /** Ceiling of the digest, in characters (the oldest items go first). */
  maxChars?: number;
  /** Recorded as the compaction's `summarizer` (default `digest`). */
  name?: string;
}

export const DEFAULT_DIGEST_MAX_CHARS = 8000;

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
 * Identifiers are listed one line per seq (`a.ts, INC-4411 [seq 12]`): a tag on each of 80
 * identifiers would cost more than the identifiers. Read back as one tagged item per identifier,
 * in order (an untagged line, from a digest written before tags, gives untagged items).
 */
function identifierItems(lines: readonly string[]): string[] {
  const items: string[] = [];
  for (const line of lines) {
    const match = /^(.*) \[seq (\d+)\]$/s.exec(line);
    if (!match) items.push(line);
    else for (const name of (match[1] ?? '').split(', ')) items.push(tagged(name, match[2] ?? 0));
  }
  return items;
}

/** Identifier items (oldest first) as lines, consecutive ones of one seq on one line. */
function identifierLines(items: readonly string[]): string[] {
  const lines: string[] = [];
  let names: string[] = [];
  let current: string | undefined;
  const flush = () => {
    if (names.length === 0) return;
    if (current === undefined) lines.push(...names);
    else lines.push(tagged(names.join(', '), current));
    names = [];
  };
  for (const item of items) {
    const seq = / \[seq (\d+)\]$/.exec(item)?.[1];
    if (seq !== current || seq === undefined) flush();
    current = seq;
    names.push(untagged(item));
  }
  flush();
  return lines;
}

function callIdOf(openCallItem: string): string | undefined {
  return /\(([^()]*)\)$/.exec(untagged(openCallItem))?.[1];
}

type NewestSections = Record<
  'toolCalls' | 'errors' | 'identifiers' | 'agentAnswers' | 'lastResults',
  NewestItems
>;

/**
 * One event's items for the sections that can still take one, in the order the event gives
 * them. Only what a section still needs is redacted; identifiers are picked from the redacted
 * text, and only from a text whose unredacted form holds one (masking can remove an
 * identifier, never reveal one).
 */
function eventItems(
  event: Event,
  sections: NewestSections,
): Record<keyof NewestSections, string[]> {
  const items: Record<keyof NewestSections, string[]> = {
    toolCalls: [],
    errors: [],
    identifiers: [],
    agentAnswers: [],
    lastResults: [],
  };
  const wantsIdentifiers = !sections.identifiers.full;
  const addIdentifiers = (raw: string, redact: (text: string) => string) => {
    if (
      !wantsIdentifiers ||
      findIdentifiers(capText({ text: raw, maxChars: SCAN_CHARS })).length === 0
    )
      return;
    for (const identifier of findIdentifiers(
      capText({ text: redact(raw), maxChars: SCAN_CHARS }),
    )) {
      items.identifiers.push(
        tagged(capText({ text: identifier, maxChars: IDENTIFIER_CHARS }), event.seq),
      );
    }
  };
  const raw = getText(event).trim();
  if (raw !== '') {
    const isRequest = event.author === 'user' && event.content?.role === 'user';
    if (!isRequest && !sections.agentAnswers.full) {
      const text = redactText(raw);
      items.agentAnswers.push(
        `${event.author}: ${oneLine(capText({ text, maxChars: RESULT_CHARS }))} [seq ${event.seq}]`,
      );
    }
    addIdentifiers(raw, redactText);
  }
  for (const part of event.content?.parts ?? []) {
    if (part.functionCall) {
      const { name } = part.functionCall;
      const rawArgs = part.functionCall.args ?? {};
      if (!sections.toolCalls.full) {
        items.toolCalls.push(tagged(formatCall(name, redactJson(rawArgs)), event.seq));
      }
      addIdentifiers(stringsOf(rawArgs).join('\n'), () =>
        stringsOf(redactJson(rawArgs)).join('\n'),
      );
    }
    if (part.functionResponse) {
      const { id, name } = part.functionResponse;
      const rawResponse = part.functionResponse.response ?? {};
      // A response that is no error unredacted is none redacted (masking adds no error word).
      const mayBeError = !sections.errors.full && responseError(rawResponse) !== undefined;
      if (mayBeError || !sections.lastResults.full) {
        const response = redactJson(rawResponse);
        const error = mayBeError ? responseError(response) : undefined;
        if (error !== undefined) {
          items.errors.push(
            oneLine(
              `${name}(${id}): ${capText({ text: error, maxChars: ERROR_CHARS })} [seq ${event.seq}]`,
            ),
          );
        }
        if (!sections.lastResults.full) {
          const json = toJson(response ?? {});
          items.lastResults.push(
            oneLine(
              `${name}(${id}) -> ${capText({ text: json, maxChars: TOOL_RESULT_CHARS })} [seq ${event.seq}]`,
            ),
          );
        }
      }
      addIdentifiers(stringsOf(rawResponse).join('\n'), () =>
        stringsOf(redactJson(rawResponse)).join('\n'),
      );
    }
  }
  if (event.errorCode !== undefined || event.errorMessage !== undefined) {
    const message = `${event.author}: ${event.errorCode ?? 'error'}: ${redactText(event.errorMessage ?? '')}`;
    items.errors.push(
      `${oneLine(capText({ text: message, maxChars: ERROR_CHARS }))} [seq ${event.seq}]`,
    );
  }
  return items;
}

export class DigestSummarizer implements EventsSummarizer {
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

  private addEvents(digest: DigestSections, events: Event[]): void {
    // Oldest first and whole: the requests (the first one is the goal and a repeat keeps its
    // place) and the calls still open, which need no redaction.
    // Tagged items are the same item whatever their seq: keyed by their text.
    const userRequests = new RecentItems(digest.userRequests, untagged);
    const openCalls = new Map<string, string>();
    const answered = new Set<string>();
    for (const event of events) {
      if (event.author === 'user' && event.content?.role === 'user') {
        const text = getText(event).trim();
        if (text !== '') {
          const request = capText({ text: redactText(text), maxChars: USER_REQUEST_CHARS });
          userRequests.remember(tagged(request, event.seq), true);
        }
      }
      for (const part of event.content?.parts ?? []) {
        if (part.functionCall) {
          const { id, name } = part.functionCall;
          openCalls.set(id, tagged(`${name}(${id})`, event.seq));
        }
        if (part.functionResponse) {
          openCalls.delete(part.functionResponse.id);
          answered.add(part.functionResponse.id);
        }
      }
    }
    // A carried-forward open call answered in this window is no longer open.
    const open = new RecentItems(digest.openCalls);
    open.retain((item) => {
      const id = callIdOf(item);
      return id === undefined || !answered.has(id);
    });
    for (const item of openCalls.values()) open.remember(item);
    digest.userRequests = userRequests.toArray();
    digest.openCalls = open.toArray();
    // Newest first: the other sections keep their most recent items only, so the events a full
    // section can no longer take are neither redacted nor scanned (a 50k-event backlog costs
    // what its newest events cost, not a redaction of everything).
    const newest = {
      toolCalls: new NewestItems(digest.toolCalls, SECTION_LIMITS.toolCalls, untagged),
      errors: new NewestItems(digest.errors, SECTION_LIMITS.errors),
      identifiers: new NewestItems(
        identifierItems(digest.identifiers),
        SECTION_LIMITS.identifiers,
        untagged,
      ),
      agentAnswers: new NewestItems(digest.agentAnswers, SECTION_LIMITS.agentAnswers),
      lastResults: new NewestItems(digest.lastResults, SECTION_LIMITS.lastResults),
    };
    const sections = Object.values(newest);
    for (let index = events.length - 1; index >= 0; index--) {
      if (sections.every((section) => section.full)) break;
      const items = eventItems(events[index] as Event, newest);
      for (const [key, list] of Object.entries(items) as [keyof typeof newest, string[]][]) {
        for (let item = list.length - 1; item >= 0; item--) newest[key].offer(list[item] as string);
      }
    }
    for (const [key, section] of Object.entries(newest) as [keyof typeof newest, NewestItems][]) {
      digest[key] = section.toArray();
    }
    digest.identifiers = identifierLines(digest.identifiers);
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
