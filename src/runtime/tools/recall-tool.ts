/**
 * The `recall` tool: compaction is lossy for the model and lossless for the record, so the
 * model can read back what a summary or an elision placeholder replaced (docs/memory.md).
 * `recall({ query })` searches the session's stored events that are no longer whole in the view
 * (`seq <=` the checkpoint's `endSeq`, or the elision rule's `throughSeq` when later) and
 * answers passages: each hit with the events either side of it, merged when windows touch,
 * best first, paged by `limit` and `cursor`, filtered by `after`, `before` and `authors`.
 * `recall({ fromSeq, toSeq })` reads a range of them (one seq: the whole output an elision
 * placeholder names). Items are verbatim (rendered as the summarizer reads them), each capped
 * and labelled with its `seq`, date and author. The answer is an ordinary tool result: plugins
 * (PII redaction, the output cap) run on it, it is stored, and it counts in the next request's
 * estimate.
 */
import { z } from 'zod';
import {
  branchCompactionOf,
  branchOf,
  isVisibleOnBranch,
  scopeView,
} from '../../compaction/branch-view.js';
import { isElisionEvent, latestElision } from '../../compaction/elision.js';
import type { ViewScope } from '../../compaction/types.js';
import type { Event } from '../../events/types.js';
import {
  definedHitFilters,
  type HitFilters,
  passesHitFilters,
} from '../../sessions/hit-filters.js';
import { MAX_SEARCH_LIMIT, searchTerms, tokenizeSearchText } from '../../sessions/search-text.js';
import type { SearchHit, SessionService } from '../../sessions/session-service.js';
import { capText } from '../../summarizers/cap-text.js';
import { capToolOutput } from '../../summarizers/cap-tool-output.js';
import { renderEvent } from '../../summarizers/render.js';
import { FunctionTool } from './function-tool.js';
import { multiHopHint } from './recall-hint.js';
import { fitPassages, mergeHitWindows, readHitWindows } from './recall-windows.js';
import type { ToolContext } from './tool.js';
import { nonNegativeInteger, positiveInteger } from './tool-options.js';

export const DEFAULT_RECALL_TOOL_NAME = 'recall';

/** Most hits one `recall` query answers (`limit`). */
export const MAX_RECALL_LIMIT = 20;

export const DEFAULT_RECALL_DESCRIPTION =
  'Read back earlier parts of this conversation that a summary replaced (summary lines name ' +
  'their seq ranges). `query`: a few words; answers the best-matching events, each with the ' +
  'events around it (narrow with after/before, ISO dates, and authors; `limit` up to 20; pass ' +
  'nextCursor back as `cursor` for more). `fromSeq`/`toSeq`: read a range in order. A ' +
  'placeholder "[tool output elided: ...]" names the seq to read back with fromSeq = toSeq.';

export interface RecallToolOptions {
  /** Tool name (default `recall`). */
  name?: string;
  description?: string;
  /** Hits a query returns when the model gives no `limit` (default 5). */
  maxResults?: number;
  /** Cap of one hit of a query's answer, in characters, head and tail kept (default 2000). */
  maxItemChars?: number;
  /** Events either side of each hit a query returns with it (default 2; 0: the hit alone). */
  contextEvents?: number;
  /** Cap of one context event of a query's answer, in characters (default 600). */
  maxContextItemChars?: number;
  /**
   * Characters of a query's answer past which context events go, lowest-ranked passage first
   * (default 24 000; hits always stay).
   */
  maxAnswerChars?: number;
  /** Events a range returns at most (default 20). */
  maxRangeEvents?: number;
  /** Cap of one item of a range, in characters (default 8000): ask for one seq to read more. */
  maxRangeItemChars?: number;
  /** Cap of the item of a one-seq range, in characters (default 32 000): an elided output. */
  maxSingleItemChars?: number;
}

export interface RecallItem {
  seq: number;
  author: string;
  /** When the event was stored (or its source's time, when imported), ISO 8601. */
  date: string;
  text: string;
  /** Set on the events the search matched (the rest of a passage is their context). */
  hit?: true;
}

/** A stretch of the conversation around one or more hits. */
export interface RecallPassage {
  fromSeq: number;
  toSeq: number;
  items: RecallItem[];
}

export interface RecallResult {
  /** The largest seq no longer whole in the view (0: nothing was compacted or elided yet). */
  compactedThroughSeq: number;
  /** A range read's events, in seq order. */
  items?: RecallItem[];
  /** A query's answer: passages, best hit first. */
  passages?: RecallPassage[];
  /** Pass as `cursor` for the next hits of the same query. */
  nextCursor?: number;
  note?: string;
  /** A query's answer: names to search again with when the question needs a further step. */
  hint?: string;
}

const parameters = z.object({
  query: z.string().optional().describe('Words to search for.'),
  limit: z.number().int().min(1).max(MAX_RECALL_LIMIT).optional().describe(`Hits (default 5).`),
  cursor: z.number().int().min(0).optional().describe('nextCursor of the previous answer.'),
  after: z.string().optional().describe('ISO 8601 time: only events after it.'),
  before: z.string().optional().describe('ISO 8601 time: only events before it.'),
  authors: z.array(z.string()).optional().describe('Only events by these authors.'),
  fromSeq: z.number().int().min(1).optional().describe('First seq of a range to read.'),
  toSeq: z.number().int().min(1).optional().describe('Last seq of a range to read.'),
});

type RecallArguments = z.output<typeof parameters>;

/** An event's timestamp (epoch seconds) as ISO 8601; an impossible one as its number. */
export function eventDate(timestamp: number): string {
  const date = new Date(timestamp * 1000);
  return Number.isNaN(date.getTime()) ? String(timestamp) : date.toISOString();
}

/** An ISO 8601 time the model gave, as epoch seconds; a bad one names the argument. */
function epochSeconds(field: 'after' | 'before', value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const milliseconds = Date.parse(value);
  if (Number.isNaN(milliseconds)) {
    throw new Error(
      `${field}: expected an ISO 8601 date such as 2024-05-01 or 2024-05-01T14:00:00Z (got ${JSON.stringify(value)})`,
    );
  }
  return milliseconds / 1000;
}

/**
 * One recalled event as text within `maxChars`. With a query, the lines holding its words are
 * kept first: a fact in the middle of a long tool output is what was searched for, and head +
 * tail alone would cut it out.
 */
export function renderRecallItem(options: {
  event: Event;
  maxChars: number;
  query?: string;
}): string {
  const text = renderEvent({ event: options.event, maxItemChars: Number.MAX_SAFE_INTEGER }) ?? '';
  if (options.query === undefined) return capText({ text, maxChars: options.maxChars });
  const terms = new Set(searchTerms(options.query, { foldDiacritics: true }));
  const keep = (line: string) =>
    tokenizeSearchText(line, { foldDiacritics: true }).some((word) => terms.has(word));
  return capToolOutput({ text, maxChars: options.maxChars, keep });
}

function toItem(event: Event, maxChars: number, query?: string): RecallItem {
  return {
    seq: event.seq,
    author: event.author,
    date: eventDate(event.timestamp),
    text: renderRecallItem({ event, maxChars, query }),
  };
}

/** A recall tool reading `sessionService` (the session of the calling invocation). */
export function createRecallTool(options: {
  sessionService: SessionService;
  recall?: RecallToolOptions;
}): FunctionTool<typeof parameters> {
  const { sessionService } = options;
  const settings = options.recall ?? {};
  const maxResults = positiveInteger('recall.maxResults', settings.maxResults, 5);
  const maxItemChars = positiveInteger('recall.maxItemChars', settings.maxItemChars, 2000);
  const contextEvents = nonNegativeInteger('recall.contextEvents', settings.contextEvents, 2);
  const maxContextItemChars = positiveInteger(
    'recall.maxContextItemChars',
    settings.maxContextItemChars,
    600,
  );
  const maxAnswerChars = positiveInteger('recall.maxAnswerChars', settings.maxAnswerChars, 24_000);
  const maxRangeEvents = positiveInteger('recall.maxRangeEvents', settings.maxRangeEvents, 20);
  const maxRangeItemChars = positiveInteger(
    'recall.maxRangeItemChars',
    settings.maxRangeItemChars,
    8000,
  );
  const maxSingleItemChars = positiveInteger(
    'recall.maxSingleItemChars',
    settings.maxSingleItemChars,
    32_000,
  );

  /** The summary's end, or the elision rule's when later. */
  async function compactedThrough(context: ToolContext): Promise<number> {
    const stored = await sessionService.loadView({ ...keyOf(context), signal: context.signal });
    const view = context.viewScope ? scopeView(stored, context.viewScope) : stored;
    const summarized = view.checkpoint?.actions.compaction.endSeq ?? 0;
    const elided = latestElision(view.tail)?.actions.elision.throughSeq ?? 0;
    return Math.max(summarized, elided);
  }

  async function byQuery(
    context: ToolContext,
    args: RecallArguments & { query: string },
    endSeq: number,
  ): Promise<Omit<RecallResult, 'compactedThroughSeq'>> {
    if (!sessionService.searchEvents) {
      return { passages: [], note: 'this store cannot search: pass fromSeq and toSeq instead' };
    }
    const { query } = args;
    const limit = args.limit ?? Math.min(maxResults, MAX_RECALL_LIMIT);
    const offset = args.cursor ?? 0;
    const filters: HitFilters = {
      after: epochSeconds('after', args.after),
      before: epochSeconds('before', args.before),
      authors: args.authors,
    };
    const scope = context.viewScope;
    const found = await sessionService.searchEvents({
      ...keyOf(context),
      query,
      // One more than the page: whether there is a next one (within the store's largest page).
      // On a branch, siblings' hits are dropped: ask for more so enough remain.
      limit: Math.min(MAX_SEARCH_LIMIT, (offset + limit + 1) * (scope ? 4 : 1)),
      beforeSeq: endSeq + 1,
      ...definedHitFilters(filters),
      signal: context.signal,
    });
    const passing = found.filter((hit) => passesHitFilters(hit, filters));
    const matching = scope ? branchFirst(passing, scope) : passing;
    const hits = matching.slice(offset, offset + limit);
    const more = matching.length > offset + limit ? { nextCursor: offset + limit } : {};
    if (hits.length === 0) {
      return {
        passages: [],
        note: offset > 0 ? 'no more hits for this query' : 'nothing earlier matches these words',
      };
    }
    const windows = mergeHitWindows({
      hitSeqs: hits.map((hit) => hit.seq),
      contextEvents,
      maxSeq: endSeq,
    });
    const read = await readHitWindows({
      sessionService,
      ...keyOf(context),
      windows,
      signal: context.signal,
    });
    const hitSeqs = new Set(hits.map((hit) => hit.seq));
    const passages = read.map(({ window, events }) => ({
      fromSeq: window.fromSeq,
      toSeq: window.toSeq,
      // A hit's neighbours on a sibling branch are not this branch's to read.
      items: events
        .filter((event) => !scope || isVisibleOnBranch(event, scope))
        .map((event) =>
          hitSeqs.has(event.seq)
            ? { ...toItem(event, maxItemChars, query), hit: true as const }
            : toItem(event, maxContextItemChars, query),
        ),
    }));
    const hint = multiHopHint({ query, texts: hits.map((hit) => eventText(hit.event)) });
    return {
      passages: fitPassages(passages, maxAnswerChars, (item) => item.text.length),
      ...more,
      ...(hint !== undefined ? { hint } : {}),
    };
  }

  async function byRange(context: ToolContext, fromSeq: number, toSeq: number, endSeq: number) {
    const last = Math.min(toSeq, endSeq);
    const page = await sessionService.listEvents({
      ...keyOf(context),
      afterSeq: fromSeq - 1,
      beforeSeq: last + 1,
      limit: maxRangeEvents,
      signal: context.signal,
    });
    const cap = fromSeq === last ? maxSingleItemChars : maxRangeItemChars;
    const scope = context.viewScope;
    const items = page.events
      .filter((event) => !event.actions.compaction && !isElisionEvent(event))
      .filter((event) => !scope || (!branchCompactionOf(event) && isVisibleOnBranch(event, scope)))
      .map((event) => toItem(event, cap));
    const notes: string[] = [];
    if (toSeq > endSeq) notes.push(`events after seq ${endSeq} are in your context already`);
    if (page.nextCursor !== undefined) {
      notes.push(
        `range capped at ${maxRangeEvents} events: continue from seq ${page.nextCursor + 1}`,
      );
    }
    return notes.length > 0 ? { items, note: notes.join('; ') } : { items };
  }

  return new FunctionTool({
    name: settings.name ?? DEFAULT_RECALL_TOOL_NAME,
    description: settings.description ?? DEFAULT_RECALL_DESCRIPTION,
    parameters,
    execute: async (args, context): Promise<RecallResult> => {
      const endSeq = await compactedThrough(context);
      if (endSeq === 0) {
        return {
          compactedThroughSeq: 0,
          items: [],
          note: 'nothing was summarized or elided yet: the whole conversation is in your context',
        };
      }
      if (args.fromSeq !== undefined || args.toSeq !== undefined) {
        const fromSeq = args.fromSeq ?? 1;
        const toSeq = args.toSeq ?? fromSeq + maxRangeEvents - 1;
        if (toSeq < fromSeq) throw new Error(`toSeq ${toSeq} is before fromSeq ${fromSeq}`);
        return { compactedThroughSeq: endSeq, ...(await byRange(context, fromSeq, toSeq, endSeq)) };
      }
      const query = args.query;
      if (!query || query.trim() === '') {
        throw new Error('pass a query, or fromSeq and toSeq');
      }
      return {
        compactedThroughSeq: endSeq,
        ...(await byQuery(context, { ...args, query }, endSeq)),
      };
    },
  });
}

function eventText(event: Event): string {
  return renderEvent({ event, maxItemChars: Number.MAX_SAFE_INTEGER }) ?? '';
}

/**
 * The hits a branch may see (docs/workflows.md#branch-views), its own branch's first, then the
 * rest in the store's order: never a sibling's.
 */
function branchFirst(hits: SearchHit[], scope: ViewScope): SearchHit[] {
  const visible = hits.filter((hit) => isVisibleOnBranch(hit.event, scope));
  const own = visible.filter((hit) => branchOf(hit.event) === scope.branch);
  return [...own, ...visible.filter((hit) => branchOf(hit.event) !== scope.branch)];
}

function keyOf(context: ToolContext) {
  return { appName: context.appName, userId: context.userId, sessionId: context.sessionId };
}
