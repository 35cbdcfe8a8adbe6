/**
 * The `recall` tool: compaction is lossy for the model and lossless for the record, so the
 * model can read back what a summary or an elision placeholder replaced. `recall({ query })`
 * searches the session's stored events that are no longer whole in the view (`seq <=` the
 * checkpoint's `endSeq`, or the elision rule's `throughSeq` when later);
 * `recall({ fromSeq, toSeq })` reads a range of them (one seq: the whole output an elision
 * placeholder names). Items are verbatim (rendered as the summarizer reads them), each capped
 * and labelled with its `seq`. The answer is an ordinary tool result: plugins (PII redaction,
 * the output cap) run on it, it is stored, and it counts in the next request's estimate.
 */
import { z } from 'zod';
import {
  branchCompactionOf,
  branchOf,
  isVisibleOnBranch,
  scopeView,
  type ViewScope,
} from '../../compaction/branch-view.js';
import { isElisionEvent, latestElision } from '../../compaction/elision.js';
import type { Event } from '../../events/types.js';
import { searchTerms, tokenizeSearchText } from '../../sessions/search-text.js';
import type { SearchHit, SessionService } from '../../sessions/session-service.js';
import { capText, renderEvent } from '../../summarizers/render.js';
import { capToolOutput } from '../../summarizers/tool-output-cap.js';
import { RunnerConfigError } from '../errors.js';
import { FunctionTool } from './function-tool.js';
import type { ToolContext } from './tool.js';

export const DEFAULT_RECALL_TOOL_NAME = 'recall';

export const DEFAULT_RECALL_DESCRIPTION =
  'Read back earlier parts of this conversation that were replaced by a summary. Your context ' +
  'starts with a summary that names the seq ranges it covers; details (exact values, file ' +
  'contents, tool outputs, error messages) are still stored. Pass `query` (a few words of what ' +
  'you look for) to get the best-matching earlier events, or `fromSeq` and `toSeq` to read a ' +
  'range of them in order. Each item carries its seq. A placeholder "[tool output elided: ...]" ' +
  'names the seq whose whole output `fromSeq` = `toSeq` = that seq reads back.';

export interface RecallToolOptions {
  /** Tool name (default `recall`). */
  name?: string;
  description?: string;
  /** Hits a query returns (default 5). */
  maxResults?: number;
  /** Cap of one item of a query's answer, in characters, head and tail kept (default 2000). */
  maxItemChars?: number;
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
  text: string;
}

export interface RecallResult {
  /** The largest seq no longer whole in the view (0: nothing was compacted or elided yet). */
  compactedThroughSeq: number;
  items: RecallItem[];
  note?: string;
}

const parameters = z.object({
  query: z.string().optional().describe('Words to search the earlier conversation for.'),
  fromSeq: z.number().int().min(1).optional().describe('First seq of a range to read.'),
  toSeq: z.number().int().min(1).optional().describe('Last seq of a range to read.'),
});

function positiveInteger(field: string, value: number | undefined, fallback: number): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved < 1) {
    throw new RunnerConfigError({ field, value, message: 'must be a positive integer' });
  }
  return resolved;
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

  async function byQuery(context: ToolContext, query: string, endSeq: number) {
    if (!sessionService.searchEvents) {
      return { items: [], note: 'this store cannot search: pass fromSeq and toSeq instead' };
    }
    const scope = context.viewScope;
    const found = await sessionService.searchEvents({
      ...keyOf(context),
      query,
      // On a branch, siblings' hits are dropped: ask for more so enough remain.
      limit: scope ? Math.min(1000, maxResults * 4) : maxResults,
      beforeSeq: endSeq + 1,
      signal: context.signal,
    });
    const hits = scope ? branchFirst(found, scope).slice(0, maxResults) : found;
    const items = hits.map((hit) => toItem(hit.event, maxItemChars, query));
    return items.length > 0 ? { items } : { items, note: 'nothing earlier matches these words' };
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
      if (!args.query || args.query.trim() === '') {
        throw new Error('pass a query, or fromSeq and toSeq');
      }
      return { compactedThroughSeq: endSeq, ...(await byQuery(context, args.query, endSeq)) };
    },
  });
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
