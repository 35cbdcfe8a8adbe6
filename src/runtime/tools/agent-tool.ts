/**
 * An agent used as a tool (ADK's `AgentTool`): the model calls it with `{ request }`, the agent
 * runs to its final answer in a session of its own (in memory, as ADK's), and that answer is
 * the tool's result. Only its final answer reaches the caller's session (as the function
 * response), so its work never fills the caller's context. State it writes is not copied back.
 */
import { getText } from '../../events/event-helpers.js';
import type { Event } from '../../events/types.js';
import type { FunctionDeclaration } from '../../models/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import type { Agent } from '../agents/agent.js';
import { Runner, type RunnerOptions } from '../turn/runner.js';
import type { Tool, ToolRunOptions } from './tool.js';

export interface AgentToolOptions {
  agent: Agent;
  /** Default: `Ask agent '<name>' and get its answer.` */
  description?: string;
  /**
   * The inner Runner's compaction (`RunnerOptions.compaction`, `summarizer`): default off (the
   * inner session lives only for one call).
   */
  compaction?: RunnerOptions['compaction'];
  summarizer?: RunnerOptions['summarizer'];
}

export class AgentTool implements Tool {
  readonly name: string;
  readonly description: string;
  readonly agent: Agent;
  private readonly options: AgentToolOptions;

  constructor(options: AgentToolOptions) {
    this.agent = options.agent;
    this.name = options.agent.name;
    this.description =
      options.description ?? `Ask agent '${options.agent.name}' and get its answer.`;
    this.options = options;
  }

  declaration(): FunctionDeclaration {
    return {
      name: this.name,
      description: this.description,
      parameters: {
        type: 'object',
        properties: { request: { type: 'string' } },
        required: ['request'],
      },
    };
  }

  async run({ args, context }: ToolRunOptions): Promise<unknown> {
    const request = args.request;
    if (typeof request !== 'string' || request === '') {
      throw new Error(`request must be a non-empty string (got ${JSON.stringify(request)})`);
    }
    const sessionService = new InMemorySessionService();
    const runner = new Runner({
      appName: context.appName,
      agent: this.agent,
      sessionService,
      compaction: this.options.compaction ?? null,
      summarizer: this.options.summarizer,
      sessionLease: false,
    });
    const session = await sessionService.createSession({
      appName: context.appName,
      userId: context.userId,
      state: context.state.toObject(),
      signal: context.signal,
    });
    let last: Event | undefined;
    for await (const event of runner.run({
      userId: context.userId,
      sessionId: session.sessionId,
      newMessage: request,
      signal: context.signal,
    })) {
      if (event.author !== 'user' && event.content?.role === 'model') last = event;
    }
    return { result: last ? getText(last.content) : '' };
  }
}
