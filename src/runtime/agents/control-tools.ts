/**
 * The tools through which a model steers a workflow, with ADK's names and arguments:
 * `transfer_to_agent({ agent_name })` hands the turn to another agent, `exit_loop()` ends the
 * enclosing `LoopAgent` (`actions.escalate`). `LlmAgent` records their action on the function
 * response event.
 */
import type { EventActions } from '../../events/types.js';
import type { FunctionDeclaration } from '../../models/types.js';
import type { Tool, ToolRunOptions } from '../tools/tool.js';

/** A tool whose call sets actions on its function response event. */
export interface ControlTool extends Tool {
  /** The actions a call with `args` records (`transferToAgent`, `escalate`). */
  actionsFor(args: Record<string, unknown>): EventActions;
}

export function isControlTool(tool: Tool | undefined): tool is ControlTool {
  return typeof (tool as ControlTool | undefined)?.actionsFor === 'function';
}

export const TRANSFER_TO_AGENT = 'transfer_to_agent';

/** ADK's `transfer_to_agent`, limited to the agents the caller may hand over to. */
export function createTransferTool(options: { targets: readonly string[] }): ControlTool {
  const targets = [...options.targets];
  const declaration: FunctionDeclaration = {
    name: TRANSFER_TO_AGENT,
    description: `Transfer the question to another agent when it is better placed to answer. Agents: ${targets.join(', ')}.`,
    parameters: {
      type: 'object',
      properties: { agent_name: { type: 'string', enum: targets } },
      required: ['agent_name'],
    },
  };
  return {
    name: TRANSFER_TO_AGENT,
    description: declaration.description,
    declaration: () => declaration,
    actionsFor: (args) =>
      typeof args.agent_name === 'string' && targets.includes(args.agent_name)
        ? { transferToAgent: args.agent_name }
        : {},
    async run({ args }: ToolRunOptions) {
      const name = args.agent_name;
      if (typeof name !== 'string' || !targets.includes(name)) {
        throw new Error(
          `agent_name must be one of ${targets.join(', ')} (got ${JSON.stringify(name)})`,
        );
      }
      return {};
    },
  };
}

/** ADK's `exit_loop`: ends the enclosing `LoopAgent` after this agent's step. */
export function createExitLoopTool(): ControlTool {
  const declaration: FunctionDeclaration = {
    name: 'exit_loop',
    description: 'Call this only when the loop is done: no further iteration is needed.',
    parameters: { type: 'object', properties: {} },
  };
  return {
    name: 'exit_loop',
    description: declaration.description,
    declaration: () => declaration,
    actionsFor: () => ({ escalate: true, skipSummarization: true }),
    async run() {
      return {};
    },
  };
}
