import type { Model } from '../../models/types.js';
import { RunnerConfigError } from '../errors.js';
import type { Agent, AgentEvent, InvocationContext } from './agent.js';
import { validateAgentName } from './llm-agent.js';
import { adoptSubAgents } from './sub-agents.js';

export interface SequentialAgentOptions {
  name: string;
  subAgents: Agent[];
}

/**
 * A workflow root: runs its sub-agents in order within one invocation, each over the same
 * session. It has no model, so compaction under it needs an explicit summarizer.
 */
export class SequentialAgent implements Agent {
  readonly name: string;
  readonly model = undefined;
  readonly subAgents: readonly Agent[];
  parentAgent?: Agent;

  constructor(options: SequentialAgentOptions) {
    validateAgentName(options.name);
    if (!options.subAgents || options.subAgents.length === 0) {
      throw new RunnerConfigError({
        field: 'subAgents',
        value: options.subAgents,
        message: `SequentialAgent '${options.name}' needs at least one sub-agent`,
      });
    }
    this.name = options.name;
    this.subAgents = [...options.subAgents];
    adoptSubAgents(this);
  }

  /** The same sequence with `model` given to each sub-agent that takes one (`withModel`). */
  withModel(model: Model): SequentialAgent {
    return new SequentialAgent({
      name: this.name,
      subAgents: this.subAgents.map((agent) => agent.withModel?.(model) ?? agent),
    });
  }

  async *runAsync(context: InvocationContext): AsyncGenerator<AgentEvent, void, undefined> {
    for (const agent of this.subAgents) {
      context.signal?.throwIfAborted();
      yield* agent.runAsync(context);
    }
  }
}
