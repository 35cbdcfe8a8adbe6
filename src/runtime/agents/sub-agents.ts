/** What every agent with sub-agents checks and sets (ADK's `sub_agents` / `parent_agent`). */
import { RunnerConfigError } from '../errors.js';
import type { Agent } from './agent.js';

/** At least one sub-agent (unless `allowEmpty`), names unique among them. */
export function validateSubAgents(options: {
  kind: string;
  name: string;
  subAgents: readonly Agent[] | undefined;
  allowEmpty?: boolean;
}): void {
  const { kind, name, subAgents } = options;
  if (!subAgents || (subAgents.length === 0 && !options.allowEmpty)) {
    throw new RunnerConfigError({
      field: 'subAgents',
      value: subAgents,
      message: `${kind} '${name}' needs at least one sub-agent`,
    });
  }
  const seen = new Set<string>();
  for (const agent of subAgents) {
    if (seen.has(agent.name)) {
      throw new RunnerConfigError({
        field: 'subAgents',
        value: agent.name,
        message: `${kind} '${name}' has two sub-agents named '${agent.name}'`,
      });
    }
    seen.add(agent.name);
  }
}

/** Sets each sub-agent's `parentAgent` to `parent` (the last parent to adopt it wins). */
export function adoptSubAgents(parent: Agent): void {
  for (const agent of parent.subAgents ?? []) agent.parentAgent = parent;
}

/** The agent named `name` in the tree under `root` (root included), depth first. */
export function findAgent(root: Agent, name: string): Agent | undefined {
  if (root.name === name) return root;
  for (const agent of root.subAgents ?? []) {
    const found = findAgent(agent, name);
    if (found) return found;
  }
  return undefined;
}

/** Whether any agent in the tree runs sub-agents on branches (a `ParallelAgent`). */
export function usesBranches(root: Agent): boolean {
  if ((root as { branchFor?: unknown }).branchFor !== undefined) return true;
  return (root.subAgents ?? []).some(usesBranches);
}
