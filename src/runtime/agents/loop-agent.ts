import type { Model } from '../../models/types.js';
import { RunnerConfigError } from '../errors.js';
import type { Agent, AgentEvent, InvocationContext } from './agent.js';
import { validateAgentName } from './llm-agent.js';
import { adoptSubAgents, validateSubAgents } from './sub-agents.js';

export interface LoopAgentOptions {
  name: string;
  subAgents: Agent[];
  /** Passes over the sub-agents at most; default: until a sub-agent escalates. */
  maxIterations?: number;
}

/**
 * A workflow step that runs its sub-agents in order, again and again (ADK's `LoopAgent`): it
 * stops after the sub-agent that yields an event with `actions.escalate` finishes, or after
 * `maxIterations` passes. Sub-agents run on the loop's branch, one at a time.
 */
export class LoopAgent implements Agent {
  readonly name: string;
  readonly model = undefined;
  readonly subAgents: readonly Agent[];
  readonly maxIterations?: number;
  parentAgent?: Agent;

  constructor(options: LoopAgentOptions) {
    validateAgentName(options.name);
    validateSubAgents({ kind: 'LoopAgent', name: options.name, subAgents: options.subAgents });
    const { maxIterations } = options;
    if (maxIterations !== undefined && (!Number.isInteger(maxIterations) || maxIterations < 1)) {
      throw new RunnerConfigError({
        field: 'maxIterations',
        value: maxIterations,
        message: 'must be a positive integer',
      });
    }
    this.name = options.name;
    this.subAgents = [...options.subAgents];
    this.maxIterations = maxIterations;
    adoptSubAgents(this);
  }

  withModel(model: Model): LoopAgent {
    return new LoopAgent({
      name: this.name,
      maxIterations: this.maxIterations,
      subAgents: this.subAgents.map((agent) => agent.withModel?.(model) ?? agent),
    });
  }

  async *runAsync(context: InvocationContext): AsyncGenerator<AgentEvent, void, undefined> {
    const bound = this.maxIterations ?? Number.POSITIVE_INFINITY;
    for (let iteration = 0; iteration < bound; iteration++) {
      for (const agent of this.subAgents) {
        context.signal?.throwIfAborted();
        let escalated = false;
        for await (const event of agent.runAsync(context)) {
          yield event;
          if (event.actions?.escalate === true) escalated = true;
        }
        if (escalated) return;
      }
    }
  }
}
