/**
 * A fake LangChain chat model for `createAgent`: after a user's message it calls the `lookup`
 * tool, after the tool's result it answers. Every request's messages are kept, and checked for
 * orphans (a tool result without its call, a call without its result).
 */
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';

export interface OrphanProblem {
  request: number;
  callId: string;
  kind: 'result_without_call' | 'call_without_result';
}

/** Calls and results that do not pair up in one request. */
export function findOrphans(messages: readonly BaseMessage[], request = 0): OrphanProblem[] {
  const problems: OrphanProblem[] = [];
  const calls = new Set<string>();
  const results = new Set<string>();
  for (const message of messages) {
    if (AIMessage.isInstance(message)) {
      for (const call of message.tool_calls ?? []) calls.add(call.id ?? '');
    }
    if (ToolMessage.isInstance(message)) {
      if (!calls.has(message.tool_call_id)) {
        problems.push({ request, callId: message.tool_call_id, kind: 'result_without_call' });
      }
      results.add(message.tool_call_id);
    }
  }
  for (const callId of calls) {
    if (!results.has(callId)) problems.push({ request, callId, kind: 'call_without_result' });
  }
  return problems;
}

export class ScriptedChatModel extends BaseChatModel {
  readonly requests: BaseMessage[][] = [];
  private calls = 0;

  _llmType(): string {
    return 'scripted';
  }

  // createAgent binds the tools; the script calls `lookup` whatever they are.
  override bindTools(): this {
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.requests.push([...messages]);
    const last = messages.at(-1);
    const inputTokens = Math.ceil(
      JSON.stringify(messages.map((message) => message.content)).length / 4,
    );
    const usage_metadata = {
      input_tokens: inputTokens,
      output_tokens: 20,
      total_tokens: inputTokens + 20,
    };
    let message: AIMessage;
    if (last && HumanMessage.isInstance(last)) {
      this.calls++;
      message = new AIMessage({
        content: '',
        tool_calls: [
          {
            id: `call_${this.calls}`,
            name: 'lookup',
            args: { query: `question ${this.calls}` },
            type: 'tool_call',
          },
        ],
        usage_metadata,
      });
    } else {
      message = new AIMessage({
        content: `The lookup for call ${this.calls} is done: ${'details '.repeat(8)}`,
        usage_metadata,
      });
    }
    return {
      generations: [{ text: typeof message.content === 'string' ? message.content : '', message }],
    };
  }
}
