/** ADK's `Runner` over an `OrreryAdkSessionService`, for the shared adapter scenarios. */
import { FunctionTool, LlmAgent, type LlmRequest, type LlmResponse, Runner } from '@google/adk';
import { z } from 'zod';
import { type FrameworkUnderTest, sizeRefusal } from '../../shared/scenarios/harness.js';
import { OrreryAdkSessionService } from '../orrery-adk-session-service.js';
import { StubLlm } from './stub-llm.js';

/** The scripted model, refusing a request for size when told to. */
class RefusingLlm extends StubLlm {
  refuseNext = false;
  received = 0;

  override async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void> {
    this.received++;
    if (this.refuseNext) {
      this.refuseNext = false;
      throw sizeRefusal();
    }
    yield* super.generateContentAsync(request);
  }
}

const lookup = new FunctionTool({
  name: 'lookup',
  description: 'Looks a question up.',
  parameters: z.object({ question: z.string() }),
  execute: async ({ question }: { question: string }) => ({
    result: `Result for ${question}: ${'facts '.repeat(40)}`,
  }),
});

/** An agent answering each question with one `lookup`, over a model that can refuse. */
function scriptedAgent(): { model: RefusingLlm; agent: LlmAgent } {
  const model = new RefusingLlm();
  const instruction = 'Use the tool.';
  return { model, agent: new LlmAgent({ name: 'assistant', model, instruction, tools: [lookup] }) };
}

const APP_NAME = 'adk-app';
const USER_ID = 'u';

export const adkFramework: FrameworkUnderTest = {
  name: 'adk',
  retriesOverflow: false,
  create: (options) => {
    const { model, agent } = scriptedAgent();
    const sessionService = new OrreryAdkSessionService({
      ...options,
      fallbackSummarizer: null,
      logger: false,
    });
    const runner = new Runner({ appName: APP_NAME, agent, sessionService });
    const created = new Set<string>();
    return {
      key: (conversation) => ({ appName: APP_NAME, userId: USER_ID, sessionId: conversation }),
      turn: async ({ conversation, text }) => {
        if (!created.has(conversation)) {
          created.add(conversation);
          await sessionService.createSession({
            appName: APP_NAME,
            userId: USER_ID,
            sessionId: conversation,
          });
        }
        for await (const event of runner.runAsync({
          userId: USER_ID,
          sessionId: conversation,
          newMessage: { role: 'user', parts: [{ text }] },
        })) {
          if (event.errorCode) throw new Error(`${event.errorCode}: ${event.errorMessage}`);
        }
      },
      refuseNextForSize: () => {
        model.refuseNext = true;
      },
      requests: () => model.received,
    };
  },
};
