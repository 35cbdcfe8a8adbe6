/**
 * Recall through the gateway (opt-in): the `recall` tool is offered in the forwarded request
 * beside the client's own tools, and when the model calls it, the gateway answers from the
 * session's store and calls the upstream again with the answer, so the client only ever sees
 * its own tools. OpenAI Chat Completions, non-streamed requests. The recall round trips are not
 * stored as conversation events: the client's next request does not hold them, and they only
 * repeat what the store holds already.
 */
import { newId } from '../events/event-helpers.js';
import type { SessionKey } from '../events/types.js';
import { isRecord } from '../importers/json-input.js';
import { createRecallTool } from '../runtime/tools/recall-tool.js';
import type { SessionService } from '../sessions/session-service.js';

/** Most recall rounds one request may take before the model's answer is returned as it is. */
export const MAX_RECALL_ROUNDS = 3;

export const RECALL_HEADER = 'x-orrery-recall';

type Body = Record<string, unknown>;

interface RecallCall {
  id: string;
  args: Record<string, unknown>;
}

/** The first choice's recall calls, when every call of the message is one. */
function recallCalls(answer: unknown, name: string): RecallCall[] | undefined {
  if (!isRecord(answer) || !Array.isArray(answer.choices)) return undefined;
  const choice: unknown = answer.choices[0];
  if (!isRecord(choice) || !isRecord(choice.message)) return undefined;
  const calls = choice.message.tool_calls;
  if (!Array.isArray(calls) || calls.length === 0) return undefined;
  const found: RecallCall[] = [];
  for (const call of calls) {
    const fn = isRecord(call) && isRecord(call.function) ? call.function : undefined;
    if (!isRecord(call) || !fn || fn.name !== name || typeof call.id !== 'string') return undefined;
    let args: unknown = {};
    try {
      args = JSON.parse(typeof fn.arguments === 'string' ? fn.arguments : '{}');
    } catch {
      args = {};
    }
    found.push({ id: call.id, args: isRecord(args) ? args : {} });
  }
  return found;
}

export class GatewayRecall {
  private readonly tool;

  constructor(options: { sessionService: SessionService }) {
    this.tool = createRecallTool({ sessionService: options.sessionService });
  }

  /** The forwarded body with `recall` offered beside the client's tools. */
  offer(body: Body): Body {
    const declaration = this.tool.declaration();
    const tools = Array.isArray(body.tools) ? body.tools : [];
    return {
      ...body,
      tools: [
        ...tools,
        {
          type: 'function',
          function: {
            name: declaration.name,
            description: declaration.description,
            parameters: declaration.parameters,
          },
        },
      ],
    };
  }

  /**
   * The next body to send when `answer` (a parsed Chat Completions response) calls only
   * `recall`: the sent body plus the model's message and the recall results. `undefined`: the
   * answer is the client's.
   */
  async continueAfter(options: {
    sent: Body;
    answer: unknown;
    key: SessionKey;
    signal?: AbortSignal;
  }): Promise<Body | undefined> {
    const calls = recallCalls(options.answer, this.tool.name);
    if (!calls || !isRecord(options.answer) || !Array.isArray(options.answer.choices)) {
      return undefined;
    }
    const choice = options.answer.choices[0] as { message: Body };
    const results: Body[] = [];
    for (const call of calls) {
      let result: unknown;
      try {
        result = await this.tool.run({
          args: call.args,
          context: {
            ...options.key,
            invocationId: newId(),
            agentName: 'gateway',
            functionCallId: call.id,
            state: { get: () => undefined, has: () => false, set: () => {}, toObject: () => ({}) },
            signal: options.signal,
          },
        });
      } catch (error) {
        result = { error: error instanceof Error ? error.message : String(error) };
      }
      results.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
    }
    const messages = Array.isArray(options.sent.messages) ? options.sent.messages : [];
    return { ...options.sent, messages: [...messages, choice.message, ...results] };
  }
}
