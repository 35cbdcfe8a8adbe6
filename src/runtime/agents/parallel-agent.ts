import type { Model } from '../../models/types.js';
import { RunnerConfigError } from '../errors.js';
import type { Agent, AgentEvent, InvocationContext } from './agent.js';
import { validateAgentName } from './llm-agent.js';
import { adoptSubAgents, validateSubAgents } from './sub-agents.js';

export interface ParallelAgentOptions {
  name: string;
  subAgents: Agent[];
}

/**
 * A workflow step that runs its sub-agents concurrently, each on its own branch
 * (`<parent branch>.<this name>.<sub-agent name>`, as ADK's `ParallelAgent` names them): each
 * sees its own branch and the trunk, never a sibling's events; the agents after it see each
 * branch's final answer (docs/workflows.md#branch-views). Events are yielded as they are stored,
 * interleaved. No model: compaction under it needs an explicit summarizer.
 */
export class ParallelAgent implements Agent {
  readonly name: string;
  readonly model = undefined;
  readonly subAgents: readonly Agent[];
  parentAgent?: Agent;

  constructor(options: ParallelAgentOptions) {
    validateAgentName(options.name);
    validateSubAgents({ kind: 'ParallelAgent', name: options.name, subAgents: options.subAgents });
    this.name = options.name;
    this.subAgents = [...options.subAgents];
    adoptSubAgents(this);
  }

  /** The same step with `model` given to each sub-agent that takes one (`withModel`). */
  withModel(model: Model): ParallelAgent {
    return new ParallelAgent({
      name: this.name,
      subAgents: this.subAgents.map((agent) => agent.withModel?.(model) ?? agent),
    });
  }

  /** The branch a sub-agent runs on under `context`. */
  branchFor(context: InvocationContext, subAgent: Agent): string {
    const suffix = `${this.name}.${subAgent.name}`;
    return context.branch ? `${context.branch}.${suffix}` : suffix;
  }

  async *runAsync(context: InvocationContext): AsyncGenerator<AgentEvent, void, undefined> {
    const withBranch = context.withBranch?.bind(context);
    if (!withBranch) {
      throw new RunnerConfigError({
        field: 'agent',
        value: this.name,
        message: `ParallelAgent '${this.name}' needs an invocation context with withBranch (the Runner's)`,
      });
    }
    context.signal?.throwIfAborted();
    const runs = this.subAgents.map((agent) =>
      agent.runAsync(withBranch(this.branchFor(context, agent))),
    );
    yield* mergeRuns(runs);
  }
}

/**
 * The runs' events as each arrives (ADK's `mergeAgentRuns`): every run advances on its own, a
 * run waits only while its last event is being handed on. The first failure ends the merge and
 * closes the other runs.
 */
async function* mergeRuns(
  runs: AsyncGenerator<AgentEvent, void, undefined>[],
): AsyncGenerator<AgentEvent, void, undefined> {
  type Step = { index: number; result: IteratorResult<AgentEvent, void> };
  const pending = new Map<number, Promise<Step>>();
  const advance = (index: number) => {
    pending.set(
      index,
      runs[index]!.next().then((result) => ({ index, result })),
    );
  };
  runs.forEach((_run, index) => {
    advance(index);
  });
  try {
    while (pending.size > 0) {
      const { index, result } = await Promise.race(pending.values());
      if (result.done) {
        pending.delete(index);
        continue;
      }
      yield result.value;
      advance(index);
    }
  } finally {
    // A failure or an early stop: the other runs end at their next step.
    for (const index of pending.keys()) {
      runs[index]!.return(undefined).catch(() => undefined);
      pending.get(index)!.catch(() => undefined);
    }
  }
}
