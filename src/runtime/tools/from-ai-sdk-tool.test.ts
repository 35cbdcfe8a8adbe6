import { jsonSchema, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RunnerConfigError } from '../errors.js';
import { InvocationState } from '../turn/state.js';
import { fromAiSdkTool } from './from-ai-sdk-tool.js';
import type { ToolContext } from './tool.js';

const context: ToolContext = {
  appName: 'app',
  userId: 'u',
  sessionId: 's',
  invocationId: 'i',
  agentName: 'a',
  functionCallId: 'call-3',
  state: new InvocationState({}),
};

describe('fromAiSdkTool', () => {
  it('an AI SDK tool with a zod inputSchema: declared, validated, run with its call id', async () => {
    const weather = tool({
      description: 'Weather of a city',
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }, { toolCallId }) => ({ city, toolCallId }),
    });
    const wrapped = await fromAiSdkTool({ name: 'weather', tool: weather });
    expect(wrapped.declaration()).toMatchObject({
      name: 'weather',
      description: 'Weather of a city',
      parameters: { type: 'object', required: ['city'] },
    });
    expect(await wrapped.run({ args: { city: 'Oslo' }, context })).toEqual({
      city: 'Oslo',
      toolCallId: 'call-3',
    });
    await expect(wrapped.run({ args: {}, context })).rejects.toThrow("'city'");
  });

  it('an AI SDK jsonSchema() inputSchema', async () => {
    const add = tool({
      description: 'Adds',
      inputSchema: jsonSchema<{ a: number; b: number }>({
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      }),
      execute: async ({ a, b }) => a + b,
    });
    const wrapped = await fromAiSdkTool({ name: 'add', tool: add });
    expect(wrapped.declaration().parameters).toEqual({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    expect(await wrapped.run({ args: { a: 2, b: 3 }, context })).toBe(5);
  });

  it('a tool without execute is a RunnerConfigError', async () => {
    const clientSide = tool({ description: 'ask the user', inputSchema: z.object({}) });
    const error = await fromAiSdkTool({ name: 'ask', tool: clientSide }).catch((e) => e);
    expect(RunnerConfigError.isInstance(error)).toBe(true);
  });
});
