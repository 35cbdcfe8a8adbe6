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
import { RunnerConfigError } from '../errors.js';
import type { Plugin } from '../plugins/plugin.js';
import { FunctionTool } from './function-tool.js';
import { eventDate } from './recall-tool.js';

export const LOAD_MEMORY_TOOL_NAME = 'load_memory';
export const PRELOAD_MEMORY_PLUGIN_NAME = 'preload_memory';

export const LOAD_MEMORY_DESCRIPTION =
  "Search the user's earlier conversations (other sessions) for what they said or what was " +
  'found then. Pass `query`: a few words of what you look for. Each memory carries its date, ' +
  'author, session and seq.';

export interface LoadMemoryToolOptions {
  memory: MemoryService;
  /** Tool name (default `load_memory`). */
  name?: string;
  description?: string;
  /** Memories an answer holds (default 5). */
  limit?: number;
  /** Cap of one memory's text, in characters (default 2000). */
  maxItemChars?: number;
}

/** One memory as the model reads it. */
export interface LoadedMemory {
  content: string;
  author: string;
  /** ISO 8601. */
  timestamp: string;
  sessionId: string;
  seq: number;
}

function positiveInteger(field: string, value: number | undefined, fallback: number): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved < 1) {
    throw new RunnerConfigError({ field, value, message: 'must be a positive integer' });
  }
  return resolved;
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
    content: contentText(entry.content, maxChars),
    author: entry.author,
    timestamp: eventDate(entry.timestamp),
    sessionId: entry.sessionId,
    seq: entry.seq,
  };
}

const loadMemoryParameters = z.object({
  query: z.string().describe('The query to load the memory for.'),
});

/** `load_memory`: the model searches the user's other sessions. */
export function createLoadMemoryTool(
  options: LoadMemoryToolOptions,
): FunctionTool<typeof loadMemoryParameters> {
  const limit = positiveInteger('loadMemory.limit', options.limit, 5);
  const maxItemChars = positiveInteger('loadMemory.maxItemChars', options.maxItemChars, 2000);
  return new FunctionTool({
    name: options.name ?? LOAD_MEMORY_TOOL_NAME,
    description: options.description ?? LOAD_MEMORY_DESCRIPTION,
    parameters: loadMemoryParameters,
    execute: async ({ query }, context): Promise<{ memories: LoadedMemory[] }> => {
      const { memories } = await options.memory.searchMemory({
        appName: context.appName,
        userId: context.userId,
        query,
        limit,
        excludeSessionId: context.sessionId,
        signal: context.signal,
      });
      return { memories: memories.map((entry) => toLoaded(entry, maxItemChars)) };
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
