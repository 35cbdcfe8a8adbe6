/**
 * A strict scripted model: it answers from a script, records every request, and fails the
 * test on a call the script did not expect. It streams too: a plain response streams as one
 * delta per part, a `StreamedStep` as its own parts (an `Error` among them fails mid-stream).
 */
import type { Content, Part, UsageMetadata } from '../events/types.js';
import type {
  Model,
  ModelRequest,
  ModelResponse,
  ModelStreamOptions,
  ModelStreamPart,
} from '../models/types.js';

/** A streamed answer, part by part; the `finish` part is what `generate` returns for it. */
export interface StreamedStep {
  streamParts: Array<ModelStreamPart | Error>;
}

export type ScriptStep =
  | ModelResponse
  | Error
  | StreamedStep
  | ((request: ModelRequest, callIndex: number) => ModelResponse | Promise<ModelResponse>);

export interface ScriptedModelOptions {
  modelId?: string;
  contextWindowTokens?: number;
  script: ScriptStep[];
  /** `false`: no `stream` method, like a model that cannot stream. Default true. */
  streaming?: boolean;
}

export class ScriptedModel implements Model {
  readonly modelId: string;
  readonly contextWindowTokens?: number;
  /** Every request received, in order (a structured copy). */
  readonly calls: ModelRequest[] = [];
  /** How each call in `calls` was made. */
  readonly callModes: Array<'generate' | 'stream'> = [];
  readonly stream?: (
    request: ModelRequest,
    options?: ModelStreamOptions,
  ) => AsyncGenerator<ModelStreamPart, void, undefined>;
  private readonly script: ScriptStep[];

  constructor(options: ScriptedModelOptions) {
    this.modelId = options.modelId ?? 'scripted';
    this.contextWindowTokens = options.contextWindowTokens;
    this.script = [...options.script];
    if (options.streaming !== false) this.stream = this.streamSteps;
  }

  /** Steps not consumed yet. */
  get remaining(): number {
    return this.script.length;
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    const step = this.nextStep(request, 'generate', request.signal);
    if (step instanceof Error) throw step;
    if (typeof step === 'function') return step(request, this.calls.length - 1);
    if (!isStreamedStep(step)) return structuredClone(step);
    for (const part of step.streamParts) {
      if (part instanceof Error) throw part;
      if (part.type === 'finish') return structuredClone(part.response);
    }
    throw new Error(`ScriptedModel '${this.modelId}': streamed step without a finish part`);
  }

  private async *streamSteps(
    request: ModelRequest,
    options: ModelStreamOptions = {},
  ): AsyncGenerator<ModelStreamPart, void, undefined> {
    const signal = options.signal ?? request.signal;
    const step = this.nextStep(request, 'stream', signal);
    if (step instanceof Error) throw step;
    const parts = isStreamedStep(step)
      ? step.streamParts
      : streamPartsOf(
          typeof step === 'function' ? await step(request, this.calls.length - 1) : step,
        );
    for (const part of parts) {
      // Between parts, as a provider's connection would end on an abort.
      await Promise.resolve();
      signal?.throwIfAborted();
      if (part instanceof Error) throw part;
      yield structuredClone(part);
    }
  }

  private nextStep(
    request: ModelRequest,
    mode: 'generate' | 'stream',
    signal: AbortSignal | undefined,
  ): ScriptStep {
    signal?.throwIfAborted();
    const { signal: _signal, ...rest } = request;
    this.calls.push(structuredClone(rest));
    this.callModes.push(mode);
    const step = this.script.shift();
    if (step === undefined) {
      throw new Error(
        `ScriptedModel '${this.modelId}': unexpected call #${this.calls.length} (script exhausted)`,
      );
    }
    return step;
  }
}

function isStreamedStep(step: ScriptStep): step is StreamedStep {
  return typeof step === 'object' && step !== null && 'streamParts' in step;
}

/** A response as a provider would stream it: one delta per text part, calls whole, then finish. */
function streamPartsOf(response: ModelResponse): ModelStreamPart[] {
  const parts: ModelStreamPart[] = [];
  for (const part of response.content.parts) {
    if (part.functionCall) parts.push({ type: 'tool-call', functionCall: part.functionCall });
    else if (part.text !== undefined && part.text !== '') {
      parts.push({ type: part.thought ? 'reasoning-delta' : 'text-delta', text: part.text });
    }
  }
  parts.push({ type: 'finish', response });
  return parts;
}

/**
 * A text answer streamed in the given pieces: one `text-delta` each, then the finish part
 * holding the joined text (what `generate` returns for this step).
 */
export function streamedTextResponse(
  pieces: string[],
  usageMetadata?: UsageMetadata,
): StreamedStep {
  return {
    streamParts: [
      ...pieces.map((text): ModelStreamPart => ({ type: 'text-delta', text })),
      { type: 'finish', response: textResponse(pieces.join(''), usageMetadata) },
    ],
  };
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
