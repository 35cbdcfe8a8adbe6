/**
 * An AI SDK `tool({ description, inputSchema, execute })` as an orrery tool, without importing
 * `ai`: its schema (zod, Standard Schema, or `jsonSchema(...)`) becomes the parameters.
 */
import { RunnerConfigError } from '../errors.js';
import { FunctionTool } from './function-tool.js';
import type { StandardSchemaV1, ToolParameters } from './tool-parameters.js';

/** The parts of an AI SDK v5/v6 `Tool` orrery uses. */
export interface AiSdkToolLike {
  description?: string;
  inputSchema: unknown;
  /** Called as `execute(input, { toolCallId, messages: [], abortSignal })`. */
  execute?: (input: never, options: never) => unknown;
}

/** An AI SDK `Schema` (from `jsonSchema()` or `zodSchema()`). */
interface AiSdkSchema {
  readonly jsonSchema: Record<string, unknown> | PromiseLike<Record<string, unknown>>;
  readonly validate?: (
    value: unknown,
  ) =>
    | { success: true; value: unknown }
    | { success: false; error: Error }
    | PromiseLike<{ success: true; value: unknown } | { success: false; error: Error }>;
}

function isAiSdkSchema(value: unknown): value is AiSdkSchema {
  return (
    typeof value === 'object' && value !== null && 'jsonSchema' in value && !('~standard' in value)
  );
}

/** Resolves the tool's schema (an AI SDK schema's JSON Schema may be a promise) and wraps it. */
export async function fromAiSdkTool(options: {
  name: string;
  tool: AiSdkToolLike;
}): Promise<FunctionTool> {
  const { name, tool } = options;
  const execute = tool.execute;
  if (!execute) {
    throw new RunnerConfigError({
      field: 'tool.execute',
      value: name,
      message: `AI SDK tool '${name}' has no execute function (a client-side tool cannot run in orrery)`,
    });
  }
  const schema = tool.inputSchema;
  let parameters: ToolParameters;
  if (isAiSdkSchema(schema)) {
    const described = await schema.jsonSchema;
    const validate = schema.validate;
    const standard: StandardSchemaV1 = {
      '~standard': {
        version: 1,
        vendor: 'ai-sdk',
        validate: async (value) => {
          if (!validate) return { value };
          const result = await validate(value);
          return result.success
            ? { value: result.value }
            : { issues: [{ message: result.error.message }] };
        },
        jsonSchema: { input: () => described },
      },
    };
    parameters = standard;
  } else {
    parameters = schema as ToolParameters;
  }
  return new FunctionTool({
    name,
    description: tool.description ?? '',
    parameters,
    execute: async (args, context) =>
      execute(
        args as never,
        {
          toolCallId: context.functionCallId,
          messages: [],
          abortSignal: context.signal,
        } as never,
      ),
  });
}
