/**
 * orrery's lossless compaction as a LangChain.js v1 agent middleware. It changes only the model
 * request (`wrapModelCall`): the request's messages become orrery's view of the state's
 * messages, the summary first and then the tail, while the graph state keeps every message.
 * (LangChain's `summarizationMiddleware` deletes them: it replaces the state's messages.)
 *
 * Where the summary lives: in an orrery `SessionService`, one session per LangGraph thread
 * (`config.configurable.thread_id`). Each call logs the state's new messages there (the shared
 * conversation log: messages are matched by chained identity, so a fork or an edit of the
 * thread is recorded as a branch, never rewritten), lets the Runner's `ContextGuard` compact,
 * and stores the answer with its usage; when the provider refuses the request for size, it
 * compacts with a smaller tail and retries once (the adapter core's step, as the AI SDK's). The store holds the whole conversation as orrery events
 * (audit, export, `orrery view`); the request is built from the state's own message objects.
 */
import { type AgentMiddleware, createMiddleware } from 'langchain';
import { AdapterOptionError } from '../shared/adapter-option-error.js';
import { type ConversationAdapterOptions, ConversationCore } from '../shared/conversation-core.js';
import { langChainDialect } from './langchain-dialect.js';

export type CompactionMiddlewareOptions = ConversationAdapterOptions;

/** The model's name as orrery looks up its context window (`gpt-4o`, `claude-...`). */
function modelName(model: unknown): string {
  for (const field of ['model', 'modelName', 'modelId']) {
    const value: unknown =
      model !== null && typeof model === 'object' ? Reflect.get(model, field) : undefined;
    if (typeof value === 'string' && value !== '') return value;
  }
  return 'unknown';
}

/** Tools as the request overhead counts them: name and description (schemas vary by kind). */
function toolDescriptions(tools: readonly unknown[]): { name: string; description: string }[] {
  return tools.map((tool) => {
    const name: unknown =
      tool !== null && typeof tool === 'object' ? Reflect.get(tool, 'name') : undefined;
    const description: unknown =
      tool !== null && typeof tool === 'object' ? Reflect.get(tool, 'description') : undefined;
    return { name: String(name ?? ''), description: String(description ?? '') };
  });
}

/**
 * The middleware: `createAgent({ model, tools, middleware: [compactionMiddleware({...})],
 * checkpointer })`, invoked with `{ configurable: { thread_id } }`.
 */
export function compactionMiddleware(options: CompactionMiddlewareOptions): AgentMiddleware {
  const threads = new ConversationCore(options, {
    dialect: langChainDialect,
    appName: 'langchain',
  });
  return createMiddleware({
    name: 'OrreryCompactionMiddleware',
    wrapModelCall: async (request, handler) => {
      const threadId = request.runtime.configurable?.thread_id;
      if (typeof threadId !== 'string' || threadId === '') {
        throw new AdapterOptionError({
          field: 'config.configurable.thread_id',
          value: threadId,
          message:
            'orrery keeps one session per thread: invoke the agent with a thread_id (and a checkpointer)',
        });
      }
      const name = modelName(request.model);
      return threads.run({
        key: threads.key({ conversationId: threadId }),
        messages: request.messages,
        systemInstruction: request.systemMessage?.text ?? request.systemPrompt,
        tools: toolDescriptions(request.tools ?? []),
        model: { modelId: name, name },
        signal: request.runtime.signal,
        send: (messages) => handler(messages ? { ...request, messages } : request),
      });
    },
  });
}
