/**
 * What the `recall` tool answers a question, as one text, for `orrery eval`: the real tool
 * run against the replayed session, so the figures measure what the model would read (its
 * passages, context windows and caps), not a re-implementation of it.
 */
import type { SessionKey } from '../../events/types.js';
import type { SessionService } from '../../sessions/session-service.js';
import { createRecallTool, type RecallResult } from '../tools/recall-tool.js';
import type { ToolContext } from '../tools/tool.js';

function evalContext(key: SessionKey, signal?: AbortSignal): ToolContext {
  return {
    ...key,
    invocationId: 'eval',
    agentName: 'eval',
    functionCallId: 'eval',
    state: {
      get: () => undefined,
      has: () => false,
      set: () => {},
      toObject: () => ({}),
    },
    signal,
  };
}

export async function recallAnswerText(options: {
  sessionService: SessionService;
  key: SessionKey;
  query: string;
  topK: number;
  maxItemChars: number;
  contextEvents: number;
  signal?: AbortSignal;
}): Promise<string> {
  const tool = createRecallTool({
    sessionService: options.sessionService,
    recall: {
      maxResults: options.topK,
      maxItemChars: options.maxItemChars,
      contextEvents: options.contextEvents,
    },
  });
  const result = (await tool.run({
    args: { query: options.query, limit: Math.min(options.topK, 20) },
    context: evalContext(options.key, options.signal),
  })) as RecallResult;
  return (result.passages ?? [])
    .flatMap((passage) => passage.items.map((item) => item.text))
    .join('\n');
}
