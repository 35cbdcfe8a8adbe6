/**
 * Memory across sessions for an orrery agent, as ADK offers it (docs/memory.md#the-memory-tools):
 * `load_memory`, a tool the model calls with a query, and `preload_memory`, which puts what the
 * user's other sessions say about the new message into the system instruction before each
 * model call. ADK's preload is a tool that edits the request; an orrery tool cannot, so here it
 * is a plugin. Both read a `MemoryService` (e.g. `SessionMemoryService`) and leave the calling
 * session out: its events are in the view or behind `recall`.
 */
import { z } from 'zod';
import { getText } from '../../events/event-helpers.js';
import type { Content } from '../../events/types.js';
import type { MemoryEntry, MemoryService } from '../../sessions/memory-service.js';
import { capText } from '../../summarizers/cap-text.js';
import type { Plugin } from '../plugins/plugin.js';
import { FunctionTool } from './function-tool.js';
import { eventDate } from './recall-tool.js';
import { fitPassages, type HitWindow, mergeHitWindows } from './recall-windows.js';
import { nonNegativeInteger, positiveInteger } from './tool-options.js';

export const LOAD_MEMORY_TOOL_NAME = 'load_memory';
export const PRELOAD_MEMORY_PLUGIN_NAME = 'preload_memory';

export const LOAD_MEMORY_DESCRIPTION =
  "Search the user's earlier conversations (other sessions) for what they said or what was " +
  'found then. Pass `query`: a few words of what you look for. Answers passages, best first: ' +
  'each memory (`hit: true`) with the turns around it, each turn with its date, author and seq.';

export interface LoadMemoryToolOptions {
  memory: MemoryService;
  /** Tool name (default `load_memory`). */
  name?: string;
  description?: string;
  /** Memories (hits) an answer holds (default 5). */
  limit?: number;
  /** Cap of one memory's text, in characters (default 2000). */
  maxItemChars?: number;
  /**
   * Turns either side of each memory shown with it (default 2; 0: the memory alone). Read with
   * `memory.readMemories`; a memory service without it shows each memory alone.
   */
  contextEvents?: number;
  /** Cap of one context turn's text, in characters (default 600). */
  maxContextItemChars?: number;
  /**
   * Characters of an answer past which context turns go, lowest-ranked passage first (default
   * 16 000; memories always stay).
   */
  maxAnswerChars?: number;
}

/** One remembered turn as the model reads it. */
export interface LoadedMemory {
  seq: number;
  author: string;
  /** ISO 8601. */
  timestamp: string;
  content: string;
  /** Set on the turns the search matched (the rest of a passage is their context). */
  hit?: true;
}

/** A stretch of one earlier session around one or more memories. */
export interface MemoryPassage {
  sessionId: string;
  fromSeq: number;
  toSeq: number;
  items: LoadedMemory[];
}

/** A memory's content as text: its text parts, or its tool calls and results as JSON. */
function contentText(content: Content, maxChars: number): string {
  const text = getText(content).trim();
  const shown =
    text !== ''
      ? text
      : content.parts
          .map((part) => JSON.stringify(part.functionCall ?? part.functionResponse ?? {}))
          .join('\n');
  return capText({ text: shown, maxChars });
}

function toLoaded(entry: MemoryEntry, maxChars: number): LoadedMemory {
  return {
    seq: entry.seq,
    author: entry.author,
    timestamp: eventDate(entry.timestamp),
    content: contentText(entry.content, maxChars),
  };
}

const loadMemoryParameters = z.object({
  query: z.string().describe('The query to load the memory for.'),
});

/**
 * The passages of `memories` (best first): per session, `contextEvents` seqs either side of each
 * memory, merged when they touch (`mergeHitWindows`, as `recall` does), ordered by their best
 * memory; the turns read with `memory.readMemories`.
 */
async function memoryPassages(options: {
  memory: MemoryService;
  memories: readonly MemoryEntry[];
  appName: string;
  userId: string;
  contextEvents: number;
  maxItemChars: number;
  maxContextItemChars: number;
  signal?: AbortSignal;
}): Promise<MemoryPassage[]> {
  const { memory, memories, contextEvents } = options;
  const bySession = new Map<string, number[]>();
  memories.forEach((entry, rank) => {
    const ranks = bySession.get(entry.sessionId) ?? [];
    ranks.push(rank);
    bySession.set(entry.sessionId, ranks);
  });
  const windows: Array<{ sessionId: string; rank: number; window: HitWindow }> = [];
  for (const [sessionId, ranks] of bySession) {
    const merged = mergeHitWindows({
      hitSeqs: ranks.map((rank) => memories[rank]!.seq),
      contextEvents: memory.readMemories ? contextEvents : 0,
      maxSeq: Number.MAX_SAFE_INTEGER,
    });
    for (const window of merged) windows.push({ sessionId, rank: ranks[window.rank]!, window });
  }
  windows.sort((left, right) => left.rank - right.rank);
  const passages: MemoryPassage[] = [];
  for (const { sessionId, window } of windows) {
    const hits = new Set(window.hitSeqs);
    const around =
      memory.readMemories && contextEvents > 0
        ? await memory.readMemories({
            appName: options.appName,
            userId: options.userId,
            sessionId,
            fromSeq: window.fromSeq,
            toSeq: window.toSeq,
            signal: options.signal,
          })
        : [];
    // The memories themselves always show, whatever the read returned.
    const entries = new Map(around.map((entry) => [entry.seq, entry]));
    for (const entry of memories) {
      if (entry.sessionId === sessionId && hits.has(entry.seq)) entries.set(entry.seq, entry);
    }
    const items = [...entries.values()]
      .sort((left, right) => left.seq - right.seq)
      .map((entry) =>
        hits.has(entry.seq)
          ? { ...toLoaded(entry, options.maxItemChars), hit: true as const }
          : toLoaded(entry, options.maxContextItemChars),
      );
    passages.push({
      sessionId,
      fromSeq: items[0]?.seq ?? window.fromSeq,
      toSeq: items[items.length - 1]?.seq ?? window.toSeq,
      items,
    });
  }
  return passages;
}

/** `load_memory`: the model searches the user's other sessions and reads passages of them. */
export function createLoadMemoryTool(
  options: LoadMemoryToolOptions,
): FunctionTool<typeof loadMemoryParameters> {
  const limit = positiveInteger('loadMemory.limit', options.limit, 5);
  const maxItemChars = positiveInteger('loadMemory.maxItemChars', options.maxItemChars, 2000);
  const contextEvents = nonNegativeInteger('loadMemory.contextEvents', options.contextEvents, 2);
  const maxContextItemChars = positiveInteger(
    'loadMemory.maxContextItemChars',
    options.maxContextItemChars,
    600,
  );
  const maxAnswerChars = positiveInteger(
    'loadMemory.maxAnswerChars',
    options.maxAnswerChars,
    16_000,
  );
  return new FunctionTool({
    name: options.name ?? LOAD_MEMORY_TOOL_NAME,
    description: options.description ?? LOAD_MEMORY_DESCRIPTION,
    parameters: loadMemoryParameters,
    execute: async ({ query }, context): Promise<{ passages: MemoryPassage[] }> => {
      const { memories } = await options.memory.searchMemory({
        appName: context.appName,
        userId: context.userId,
        query,
        limit,
        excludeSessionId: context.sessionId,
        signal: context.signal,
      });
      const passages = await memoryPassages({
        memory: options.memory,
        memories,
        appName: context.appName,
        userId: context.userId,
        contextEvents,
        maxItemChars,
        maxContextItemChars,
        signal: context.signal,
      });
      return { passages: fitPassages(passages, maxAnswerChars, (item) => item.content.length) };
    },
  });
}

export interface PreloadMemoryPluginOptions {
  memory: MemoryService;
  /** Memories searched for the user's message (default 5). */
  limit?: number;
  /** Cap of the whole preloaded text, in characters (default 4000). */
  maxChars?: number;
}

/** The instruction ADK's preload_memory writes, with orrery's session and seq on each memory. */
export function formatPreloadedMemories(
  memories: readonly MemoryEntry[],
  maxChars: number,
): string {
  const lines = memories.map((entry) => {
    const text = contentText(entry.content, maxChars);
    return `Time: ${eventDate(entry.timestamp)} (session ${entry.sessionId}, seq ${entry.seq})\n${entry.author}: ${text}`;
  });
  const body = capText({ text: lines.join('\n'), maxChars });
  return `The following content is from your previous conversations with the user.\nThey may be useful for answering the user's current query.\n<PAST_CONVERSATIONS>\n${body}\n</PAST_CONVERSATIONS>`;
}

/** Invocations whose memories are kept at once (a run that throws never reaches afterRun). */
const MAX_PENDING_INVOCATIONS = 256;

/**
 * `preload_memory`: before the agent runs, searches memory with the user's message; before each
 * of that invocation's model calls, appends what it found to the system instruction. A failed
 * search preloads nothing (as ADK's); an abort still ends the run.
 */
export function createPreloadMemoryPlugin(options: PreloadMemoryPluginOptions): Plugin {
  const limit = positiveInteger('preloadMemory.limit', options.limit, 5);
  const maxChars = positiveInteger('preloadMemory.maxChars', options.maxChars, 4000);
  const preloaded = new Map<string, string>();
  return {
    name: PRELOAD_MEMORY_PLUGIN_NAME,
    async beforeRun(context) {
      const query = getText(context.newMessage).trim();
      if (query === '') return;
      let memories: MemoryEntry[];
      try {
        ({ memories } = await options.memory.searchMemory({
          appName: context.appName,
          userId: context.userId,
          query,
          limit,
          excludeSessionId: context.sessionId,
          signal: context.signal,
        }));
      } catch (error) {
        context.signal?.throwIfAborted();
        void error;
        return;
      }
      if (memories.length === 0) return;
      if (preloaded.size >= MAX_PENDING_INVOCATIONS) {
        const oldest = preloaded.keys().next().value;
        if (oldest !== undefined) preloaded.delete(oldest);
      }
      preloaded.set(context.invocationId, formatPreloadedMemories(memories, maxChars));
    },
    beforeModel(context) {
      const text = preloaded.get(context.invocationId);
      if (text === undefined) return;
      const { request } = context;
      request.systemInstruction = request.systemInstruction
        ? `${request.systemInstruction}\n\n${text}`
        : text;
    },
    afterRun(context) {
      preloaded.delete(context.invocationId);
    },
  };
}
