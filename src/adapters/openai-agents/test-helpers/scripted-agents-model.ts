/**
 * A fake `Model` for the OpenAI Agents Runner: each turn it calls the `lookup` tool once, then
 * answers after reading the tool's output. Every request it receives is kept, and checked for
 * orphans (a tool output without its call, a call without its output).
 */
import {
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  Usage,
} from '@openai/agents';

export interface OrphanProblem {
  request: number;
  callId: string;
  kind: 'output_without_call' | 'call_without_output';
}

function asItems(input: ModelRequest['input']): AgentInputItem[] {
  return typeof input === 'string' ? [{ role: 'user', content: input }] : input;
}

function callIdOf(item: AgentInputItem): string | undefined {
  const callId = (item as { callId?: unknown }).callId;
  return typeof callId === 'string' ? callId : undefined;
}

/** Calls and outputs that do not pair up in one request's input. */
export function findOrphans(input: AgentInputItem[], request = 0): OrphanProblem[] {
  const problems: OrphanProblem[] = [];
  const calls = new Set<string>();
  const outputs = new Set<string>();
  for (const item of input) {
    const callId = callIdOf(item);
    if (callId === undefined) continue;
    if (item.type === 'function_call') calls.add(callId);
    if (item.type === 'function_call_result') {
      if (!calls.has(callId)) problems.push({ request, callId, kind: 'output_without_call' });
      outputs.add(callId);
    }
  }
  const unanswered = [...calls].filter((callId) => !outputs.has(callId));
  return [
    ...problems,
    ...unanswered.map((callId) => ({ request, callId, kind: 'call_without_output' as const })),
  ];
}

export class ScriptedAgentsModel implements Model {
  readonly requests: AgentInputItem[][] = [];
  private calls = 0;

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const input = structuredClone(asItems(request.input));
    this.requests.push(input);
    const last = input.at(-1);
    const inputTokens = JSON.stringify(input).length / 4;
    const usage = new Usage({
      requests: 1,
      inputTokens,
      outputTokens: 20,
      totalTokens: inputTokens + 20,
    });
    if (last?.type === 'function_call_result') {
      return {
        usage,
        output: [
          {
            type: 'message',
            role: 'assistant',
            status: 'completed',
            id: `msg_${this.calls}`,
            content: [
              {
                type: 'output_text',
                text: `The lookup for call ${last.callId} is done: ${'details '.repeat(8)}`,
              },
            ],
          },
        ],
      };
    }
    this.calls++;
    return {
      usage,
      output: [
        {
          type: 'function_call',
          id: `fc_${this.calls}`,
          callId: `call_${this.calls}`,
          name: 'lookup',
          arguments: JSON.stringify({ query: `question ${this.calls}` }),
          status: 'completed',
        },
      ],
    };
  }

  // biome-ignore lint/correctness/useYield: the Runner is never asked to stream in these tests.
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('ScriptedAgentsModel does not stream');
  }
}
