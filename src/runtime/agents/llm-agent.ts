import { createEvent, getFunctionCalls, newId } from '../../events/event-helpers.js';
import type { Content, EventActions, FunctionCall, Part } from '../../events/types.js';
import type { Model, ModelResponse, ModelStreamPart } from '../../models/types.js';
import { MaxStepsExceededError, RunnerConfigError } from '../errors.js';
import type { Tool } from '../tools/tool.js';
import { type ModelRetryOptions, resolveModelRetry } from '../turn/model-retry.js';
import type {
  Agent,
  AgentEvent,
  GenerateOptions,
  InvocationContext,
  PartialEvent,
} from './agent.js';
import { createTransferTool, isControlTool } from './control-tools.js';
import { adoptSubAgents, validateSubAgents } from './sub-agents.js';

export interface LlmAgentOptions {
  name: string;
  model: Model;
  instruction?: string;
  tools?: Tool[];
  /** Model calls per invocation before giving up on a model that keeps calling tools. Default 25. */
  maxSteps?: number;
  temperature?: number;
  maxOutputTokens?: number;
  /**
   * Backoff on retryable provider errors (429, 5xx): `maxRetries` 2, `baseDelayMs` 1000
   * (doubling), `maxDelayMs` 30000; a `retry-after` past `maxDelayMs` fails at once.
   */
  modelRetry?: ModelRetryOptions;
  /**
   * `false`: none of the Runner's built-in tools (the `recall` tool it adds when compaction is
   * on). Default true.
   */
  recall?: boolean;
  /**
   * Agents this one may hand the turn to with ADK's `transfer_to_agent` (offered to the model
   * when there is someone to transfer to: these, the parent `LlmAgent` and its other
   * sub-agents). The target then answers in the same invocation.
   */
  subAgents?: Agent[];
  /** No `transfer_to_agent` to the parent `LlmAgent` (ADK's `disallowTransferToParent`). */
  disallowTransferToParent?: boolean;
  /** No `transfer_to_agent` to the parent's other sub-agents (ADK's `disallowTransferToPeers`). */
  disallowTransferToPeers?: boolean;
}

const agentNamePattern = /^[A-Za-z_][A-Za-z0-9_-]*$/;

export function validateAgentName(name: string): void {
  // `user` is the author of the user's own events: an agent of that name would be ambiguous.
  if (!agentNamePattern.test(name) || name === 'user') {
    throw new RunnerConfigError({
      field: 'name',
      value: name,
      message: `agent name '${name}' must be an identifier (letters, digits, '_', '-') and not 'user'`,
    });
  }
}

/** An agent with a model and a tool loop: call the model, run the tools it asks for, repeat. */
export class LlmAgent implements Agent {
  readonly name: string;
  readonly model: Model;
  readonly instruction?: string;
  readonly tools: readonly Tool[];
  readonly maxSteps: number;
  readonly temperature?: number;
  readonly maxOutputTokens?: number;
  readonly modelRetry: Required<ModelRetryOptions>;
  /** As given, for `withModel`. */
  private readonly options: LlmAgentOptions;
  readonly recall: boolean;
  readonly subAgents: readonly Agent[];
  parentAgent?: Agent;

  constructor(options: LlmAgentOptions) {
    validateAgentName(options.name);
    validateSubAgents({
      kind: 'LlmAgent',
      name: options.name,
      subAgents: options.subAgents ?? [],
      allowEmpty: true,
    });
    if (!options.model) {
      throw new RunnerConfigError({
        field: 'model',
        value: options.model,
        message: `LlmAgent '${options.name}' needs a model`,
      });
    }
    const maxSteps = options.maxSteps ?? 25;
    if (!Number.isInteger(maxSteps) || maxSteps < 1) {
      throw new RunnerConfigError({
        field: 'maxSteps',
        value: maxSteps,
        message: 'must be a positive integer',
      });
    }
    const seen = new Set<string>();
    for (const tool of options.tools ?? []) {
      if (seen.has(tool.name)) {
        throw new RunnerConfigError({
          field: 'tools',
          value: tool.name,
          message: `LlmAgent '${options.name}' has two tools named '${tool.name}'`,
        });
      }
      seen.add(tool.name);
    }
    this.name = options.name;
    this.model = options.model;
    this.instruction = options.instruction;
    this.tools = [...(options.tools ?? [])];
    this.recall = options.recall ?? true;
    this.maxSteps = maxSteps;
    this.temperature = options.temperature;
    this.maxOutputTokens = options.maxOutputTokens;
    this.modelRetry = resolveModelRetry(options.modelRetry);
    this.subAgents = [...(options.subAgents ?? [])];
    this.options = { ...options, tools: [...(options.tools ?? [])] };
    adoptSubAgents(this);
  }

  /**
   * Who `transfer_to_agent` may name (ADK's rule): the sub-agents, the parent when it is an
   * `LlmAgent`, and that parent's other sub-agents.
   */
  transferTargets(): Agent[] {
    const targets = [...this.subAgents];
    const parent = this.parentAgent;
    if (parent instanceof LlmAgent) {
      if (!this.options.disallowTransferToParent) targets.push(parent);
      if (!this.options.disallowTransferToPeers) {
        targets.push(...parent.subAgents.filter((peer) => peer !== this));
      }
    }
    return targets;
  }

  /** The same agent (name, instruction, tools, settings) on another model. */
  withModel(model: Model): LlmAgent {
    return new LlmAgent({
      ...this.options,
      model,
      subAgents: this.subAgents.map((agent) => agent.withModel?.(model) ?? agent),
    });
  }

  /** Own tools, then the Runner's built-in ones whose names are not taken. */
  private toolsFor(context: InvocationContext): readonly Tool[] {
    const builtin = [...(this.recall ? (context.builtinTools ?? []) : [])];
    const targets = this.transferTargets();
    if (targets.length > 0) {
      builtin.push(createTransferTool({ targets: targets.map((agent) => agent.name) }));
    }
    const extra = builtin.filter((tool) => !this.tools.some((own) => own.name === tool.name));
    return extra.length > 0 ? [...this.tools, ...extra] : this.tools;
  }

  async *runAsync(context: InvocationContext): AsyncGenerator<AgentEvent, void, undefined> {
    for (let step = 0; step < this.maxSteps; step++) {
      // Per step: the built-in tools appear once a compaction has left something to recall.
      const tools = this.toolsFor(context);
      const declarations = tools.map((tool) => tool.declaration());
      context.signal?.throwIfAborted();
      const options: GenerateOptions = {
        agentName: this.name,
        model: this.model,
        systemInstruction: this.instruction,
        tools: declarations.length > 0 ? declarations : undefined,
        temperature: this.temperature,
        maxOutputTokens: this.maxOutputTokens,
        retry: this.modelRetry,
      };
      const response =
        context.streaming && context.generateStream
          ? yield* partialEventsOf(context, this.name, context.generateStream(options))
          : await context.generate(options);
      const content = withCallIds(response.content);
      const modelEvent = createEvent({
        author: this.name,
        invocationId: context.invocationId,
        branch: context.branch,
        // Providers reject empty turns: an empty answer is stored without content (usage kept).
        content: content.parts.length > 0 ? content : undefined,
        usageMetadata: response.usageMetadata,
        finishReason: response.finishReason,
      });
      const calls = getFunctionCalls(modelEvent);
      const longRunning = calls
        .filter((call) => tools.find((tool) => tool.name === call.name)?.isLongRunning)
        .map((call) => call.id);
      if (longRunning.length > 0) modelEvent.longRunningToolIds = longRunning;
      yield await context.appendEvent(modelEvent);
      if (calls.length === 0) return;
      const responseEvent = await context.runTools({
        agentName: this.name,
        calls,
        tools,
      });
      const actions = controlActions(calls, tools);
      Object.assign(responseEvent.actions, actions);
      yield await context.appendEvent(responseEvent);
      if (actions.transferToAgent !== undefined) {
        const target = this.transferTargets().find(
          (agent) => agent.name === actions.transferToAgent,
        );
        // The target answers within this invocation (ADK's transfer).
        if (target) yield* target.runAsync(context);
        return;
      }
      if (actions.escalate === true) return;
    }
    throw new MaxStepsExceededError({ agentName: this.name, maxSteps: this.maxSteps });
  }
}

/** The actions the control tools among `calls` record (the first transfer wins). */
function controlActions(calls: FunctionCall[], tools: readonly Tool[]): EventActions {
  const actions: EventActions = {};
  for (const call of calls) {
    const tool = tools.find((candidate) => candidate.name === call.name);
    if (!isControlTool(tool)) continue;
    const recorded = tool.actionsFor(call.args ?? {});
    if (recorded.transferToAgent !== undefined && actions.transferToAgent !== undefined) {
      delete recorded.transferToAgent;
    }
    Object.assign(actions, recorded);
  }
  return actions;
}

/**
 * The model's deltas as partial events (ADK's convention: `partial: true`, the delta text, a
 * fresh id each), and the final response as the generator's return value.
 */
async function* partialEventsOf(
  context: InvocationContext,
  author: string,
  parts: AsyncGenerator<ModelStreamPart, ModelResponse, undefined>,
): AsyncGenerator<PartialEvent, ModelResponse, undefined> {
  let finished = false;
  try {
    while (true) {
      const next = await parts.next();
      if (next.done) {
        finished = true;
        return next.value;
      }
      const part = next.value;
      // Tool calls arrive whole in the final event: only text and thoughts stream.
      if (part.type !== 'text-delta' && part.type !== 'reasoning-delta') continue;
      const event = createEvent({
        author,
        invocationId: context.invocationId,
        branch: context.branch,
        content: {
          role: 'model',
          parts: [
            part.type === 'reasoning-delta'
              ? { text: part.text, thought: true }
              : { text: part.text },
          ],
        },
      });
      yield { ...event, partial: true };
    }
  } finally {
    // The caller stopped early: end the model call (and its provider stream) too.
    if (!finished) await closeGenerator(parts);
  }
}

function closeGenerator(generator: AsyncGenerator<unknown, unknown, undefined>): Promise<unknown> {
  return generator.return(undefined);
}

/** Gives every function call an id (some providers omit them) so responses pair by id. */
function withCallIds(content: Content): Content {
  const parts: Part[] = content.parts.map((part) =>
    part.functionCall && !part.functionCall.id
      ? { ...part, functionCall: { ...part.functionCall, id: `call-${newId()}` } }
      : part,
  );
  return { role: 'model', parts };
}
