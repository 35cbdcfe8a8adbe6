/** The OpenAI Agents Runner with an `OrreryAgentsSession`, for the shared adapter scenarios. */
import { Agent, type ModelRequest, type ModelResponse, Runner, tool } from '@openai/agents';
import { z } from 'zod';
import { type FrameworkUnderTest, sizeRefusal } from '../../shared/scenarios/harness.js';
import { OrreryAgentsSession } from '../orrery-agents-session.js';
import { ScriptedAgentsModel } from './scripted-agents-model.js';

/** The scripted model, refusing a request for size when told to. */
class RefusingAgentsModel extends ScriptedAgentsModel {
  refuseNext = false;
  received = 0;

  override async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.received++;
    if (this.refuseNext) {
      this.refuseNext = false;
      throw sizeRefusal();
    }
    return super.getResponse(request);
  }
}

const lookup = tool({
  name: 'lookup',
  description: 'Looks a question up.',
  parameters: z.object({ query: z.string() }),
  execute: async ({ query }) => `Result for ${query}: ${'facts '.repeat(40)}`,
});

export const agentsFramework: FrameworkUnderTest = {
  name: 'openai-agents',
  retriesOverflow: false,
  create: (options) => {
    const model = new RefusingAgentsModel();
    const agent = new Agent({
      name: 'assistant',
      instructions: 'Use the tool.',
      model,
      tools: [lookup],
    });
    const runner = new Runner({ tracingDisabled: true });
    const sessions = new Map<string, OrreryAgentsSession>();
    const session = (conversation: string) => {
      let found = sessions.get(conversation);
      if (!found) {
        found = new OrreryAgentsSession({
          ...options,
          sessionId: conversation,
          fallbackSummarizer: null,
          logger: false,
        });
        sessions.set(conversation, found);
      }
      return found;
    };
    return {
      key: (conversation) => session(conversation).key,
      turn: async ({ conversation, text }) => {
        await runner.run(agent, text, { session: session(conversation) });
      },
      refuseNextForSize: () => {
        model.refuseNext = true;
      },
      requests: () => model.received,
    };
  },
};
