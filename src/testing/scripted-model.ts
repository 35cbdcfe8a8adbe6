/**
 * A strict scripted model: it answers from a script, records every request, and fails the
 * test on a call the script did not expect.
 */
import type { Content, Part, UsageMetadata } from '../events/types.js';
import type { Model, ModelRequest, ModelResponse } from '../models/types.js';

export type ScriptStep =
  | ModelResponse
  | Error
  | ((request: ModelRequest, callIndex: number) => ModelResponse | Promise<ModelResponse>);

export interface ScriptedModelOptions {
  modelId?: string;
  contextWindowTokens?: number;
  script: ScriptStep[];
}

export class ScriptedModel implements Model {
  readonly modelId: string;
  readonly contextWindowTokens?: number;
  /** Every request received, in order (a structured copy). */
  readonly calls: ModelRequest[] = [];
  private readonly script: ScriptStep[];

  constructor(options: ScriptedModelOptions) {
    this.modelId = options.modelId ?? 'scripted';
    this.contextWindowTokens = options.contextWindowTokens;
    this.script = [...options.script];
  }

  /** Steps not consumed yet. */
  get remaining(): number {
    return this.script.length;
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    request.signal?.throwIfAborted();
    const { signal: _signal, ...rest } = request;
    this.calls.push(structuredClone(rest));
    const step = this.script.shift();
    if (step === undefined) {
      throw new Error(
        `ScriptedModel '${this.modelId}': unexpected call #${this.calls.length} (script exhausted)`,
      );
    }
    if (step instanceof Error) throw step;
    if (typeof step === 'function') return step(request, this.calls.length - 1);
    return structuredClone(step);
  }
}

/** A model answer holding the given text. */
export function textResponse(text: string, usageMetadata?: UsageMetadata): ModelResponse {
  return { content: { role: 'model', parts: [{ text }] }, usageMetadata, finishReason: 'stop' };
}

/** A model answer that calls tools. */
export function toolCallResponse(
  calls: Array<{ id?: string; name: string; args?: Record<string, unknown> }>,
  usageMetadata?: UsageMetadata,
): ModelResponse {
  const parts: Part[] = calls.map((call, index) => ({
    functionCall: { id: call.id ?? `call-${index}`, name: call.name, args: call.args ?? {} },
  }));
  const content: Content = { role: 'model', parts };
  return { content, usageMetadata, finishReason: 'tool-calls' };
}
