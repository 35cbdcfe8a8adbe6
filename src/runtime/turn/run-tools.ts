/**
 * A model's function calls run as tools, in parallel, each inside its span and the plugins'
 * `beforeTool` / `afterTool`; every outcome (a result, a tool's failure, a plugin's refusal, a
 * value that is not JSON) becomes one function response of one event. A cancelled run stops.
 * Split from `invocation.ts`, which calls it for `Invocation.runTools`.
 */
import type { ViewScope } from '../../compaction/types.js';
import { createEvent } from '../../events/event-helpers.js';
import type { FunctionCall, NewEvent, Part, SessionKey } from '../../events/types.js';
import type { Telemetry, TelemetrySpan } from '../../observability/telemetry.js';
import { errorMessage } from '../../util/error-message.js';
import type { RunToolsOptions } from '../agents/agent.js';
import type { PluginRunContext } from '../plugins/plugin.js';
import type { PluginManager } from '../plugins/plugin-manager.js';
import { toJsonValue } from '../tools/to-json-value.js';
import type { Tool } from '../tools/tool.js';
import { type InvocationState, ToolStateDelta } from './state.js';

/** What a tool run reads of its invocation (the `Invocation` passes itself). */
export interface ToolRunHost {
  readonly invocationId: string;
  readonly branch?: string;
  readonly signal?: AbortSignal;
  readonly state: InvocationState;
  readonly key: SessionKey;
  pluginContext(agentName?: string): PluginRunContext;
}

export interface RunToolsInput extends RunToolsOptions {
  invocation: ToolRunHost;
  plugins: PluginManager;
  telemetry?: Telemetry;
  agentSpan?: TelemetrySpan;
  scope?: ViewScope;
}

/** A tool result as a function response's `response` object. */
export function toResponseObject(result: unknown): Record<string, unknown> {
  if (result === undefined) return {};
  if (result !== null && typeof result === 'object' && !Array.isArray(result)) {
    return result as Record<string, unknown>;
  }
  return { result };
}

export async function runTools(options: RunToolsInput): Promise<NewEvent> {
  const outcomes = await Promise.all(
    options.calls.map((call) => runTool(options, options.agentName, call, options.tools)),
  );
  const parts: Part[] = [];
  const stateDelta: Record<string, unknown> = {};
  options.calls.forEach((call, index) => {
    const outcome = outcomes[index]!;
    parts.push({
      functionResponse: { id: call.id, name: call.name, response: outcome.response },
    });
    Object.assign(stateDelta, outcome.stateDelta);
  });
  return createEvent({
    author: options.agentName,
    invocationId: options.invocation.invocationId,
    branch: options.invocation.branch,
    content: { role: 'user', parts },
    actions: Object.keys(stateDelta).length > 0 ? { stateDelta } : {},
  });
}

async function runTool(
  host: RunToolsInput,
  agentName: string,
  call: FunctionCall,
  tools: readonly Tool[],
): Promise<{ response: Record<string, unknown>; stateDelta: Record<string, unknown> }> {
  const args = call.args ?? {};
  const pluginContext = {
    ...host.invocation.pluginContext(agentName),
    toolName: call.name,
    functionCallId: call.id,
    args,
  };
  const state = new ToolStateDelta(host.invocation.state);
  const span = host.telemetry?.startSpan({
    name: `execute_tool ${call.name}`,
    parent: host.agentSpan,
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': call.name,
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.call.id': call.id,
      'gen_ai.agent.name': agentName,
    },
  });
  try {
    return await runToolSpanned(host, agentName, call, tools, pluginContext, state, span);
  } catch (caught) {
    span?.fail(caught);
    throw caught;
  } finally {
    span?.end();
  }
}

async function runToolSpanned(
  host: RunToolsInput,
  agentName: string,
  call: FunctionCall,
  tools: readonly Tool[],
  pluginContext: Parameters<PluginManager['beforeTool']>[0],
  state: ToolStateDelta,
  span: TelemetrySpan | undefined,
): Promise<{ response: Record<string, unknown>; stateDelta: Record<string, unknown> }> {
  const args = pluginContext.args;
  let result = await host.plugins.beforeTool(pluginContext);
  let error: unknown;
  if (result === undefined) {
    try {
      const tool = tools.find((candidate) => candidate.name === call.name);
      if (!tool) {
        const available = tools.map((candidate) => candidate.name).join(', ') || 'none';
        throw new Error(
          `Tool '${call.name}' is not available to agent '${agentName}' (available: ${available})`,
        );
      }
      result = await tool.run({
        args,
        context: {
          ...host.invocation.key,
          invocationId: host.invocation.invocationId,
          agentName,
          functionCallId: call.id,
          state,
          ...(host.invocation.branch !== undefined && { branch: host.invocation.branch }),
          ...(host.scope && { viewScope: host.scope }),
          signal: host.invocation.signal,
        },
      });
    } catch (caught) {
      // A cancelled run stops; any other tool failure goes back to the model as data.
      if (host.invocation.signal?.aborted) throw caught;
      error = caught;
      span?.fail(caught);
      result = { error: errorMessage(caught) };
    }
  }
  let final: unknown;
  try {
    final = await host.plugins.afterTool({ ...pluginContext, result, error });
  } catch (caught) {
    // A plugin that cannot process the result (a redaction over a value too deep to walk):
    // the call still gets its response, an error, and never the unprocessed result.
    if (host.invocation.signal?.aborted) throw caught;
    span?.fail(caught);
    return {
      response: {
        error: `Tool '${call.name}' result was refused by a plugin's afterTool: ${caught instanceof Error ? `${caught.name}: ` : ''}${errorMessage(caught)}`,
      },
      stateDelta: state.delta,
    };
  }
  // Stored as JSON: a Date, Map, bigint or cycle in a result (or a plugin's) is converted,
  // and a value that cannot be read at all goes back to the model as an error.
  try {
    return { response: toResponseObject(toJsonValue(final)), stateDelta: state.delta };
  } catch (caught) {
    if (host.invocation.signal?.aborted) throw caught;
    return {
      response: {
        error: `Tool '${call.name}' returned a value that cannot be stored as JSON: ${errorMessage(caught)}`,
      },
      stateDelta: state.delta,
    };
  }
}
