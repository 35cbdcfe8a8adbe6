import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import { RunnerConfigError } from '../errors.js';
import { InvocationState } from '../turn/state.js';
import { FunctionTool } from './function-tool.js';
import type { ToolContext } from './tool.js';
import type { StandardSchemaV1 } from './tool-parameters.js';

const context: ToolContext = {
  appName: 'app',
  userId: 'u',
  sessionId: 's',
  invocationId: 'i',
  agentName: 'a',
  functionCallId: 'c',
  state: new InvocationState({}),
};
const citySchema = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
} as const;

describe('FunctionTool parameters', () => {
  it('zod 4: declared from the schema, arguments parsed', async () => {
    const tool = new FunctionTool({
      name: 'weather',
      description: 'd',
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => city.toUpperCase(),
    });
    expect(tool.declaration().parameters).toMatchObject({ type: 'object', required: ['city'] });
    expect(await tool.run({ args: { city: 'oslo' }, context })).toBe('OSLO');
  });

  it('zod 3 (a Standard Schema without JSON Schema): validated, declared from jsonSchema', async () => {
    const tool = new FunctionTool({
      name: 'weather',
      description: 'd',
      parameters: z3.object({ city: z3.string() }),
      jsonSchema: { ...citySchema },
      execute: async (args) => (args as { city: string }).city,
    });
    expect(tool.declaration().parameters).toEqual(citySchema);
    expect(await tool.run({ args: { city: 'Oslo' }, context })).toBe('Oslo');
    await expect(tool.run({ args: { city: 7 }, context })).rejects.toThrow(
      "Invalid arguments for tool 'weather': 'city': Expected string, received number",
    );
  });

  it('zod 3 without jsonSchema is a RunnerConfigError naming the field', () => {
    const error = (() => {
      try {
        new FunctionTool({
          name: 'weather',
          description: 'd',
          parameters: z3.object({ city: z3.string() }),
          execute: async () => null,
        });
      } catch (caught) {
        return caught;
      }
    })();
    expect(RunnerConfigError.isInstance(error)).toBe(true);
    expect((error as RunnerConfigError).field).toBe('FunctionTool.parameters');
    expect((error as Error).message).toContain("pass 'jsonSchema'");
  });

  it('any Standard Schema with Standard JSON Schema (e.g. Valibot, ArkType)', async () => {
    const schema: StandardSchemaV1<{ n: number }> = {
      '~standard': {
        version: 1,
        vendor: 'custom',
        validate: (value) =>
          typeof (value as { n?: unknown }).n === 'number'
            ? { value: value as { n: number } }
            : { issues: [{ message: 'not a number', path: [{ key: 'n' }] }] },
        jsonSchema: {
          input: () => ({ $schema: 'x', type: 'object', properties: { n: { type: 'number' } } }),
        },
      },
    };
    const tool = new FunctionTool({
      name: 'double',
      description: 'd',
      parameters: schema,
      execute: async ({ n }) => n * 2,
    });
    expect(tool.declaration().parameters).toEqual({
      type: 'object',
      properties: { n: { type: 'number' } },
    });
    expect(await tool.run({ args: { n: 4 }, context })).toBe(8);
    await expect(tool.run({ args: { n: 'x' }, context })).rejects.toThrow("'n': not a number");
  });

  it('a JSON Schema object: declared as is, object shape and required keys checked', async () => {
    const tool = new FunctionTool({
      name: 'weather',
      description: 'd',
      parameters: { ...citySchema },
      execute: async (args) => args.city,
    });
    expect(tool.declaration().parameters).toEqual(citySchema);
    expect(await tool.run({ args: { city: 'Oslo' }, context })).toBe('Oslo');
    await expect(tool.run({ args: {}, context })).rejects.toThrow("'city': required");
  });

  it('anything else is a RunnerConfigError', () => {
    expect(
      () =>
        new FunctionTool({
          name: 'weather',
          description: 'd',
          parameters: { type: 'string' } as never,
          execute: async () => null,
        }),
    ).toThrow(RunnerConfigError);
  });
});
