import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RunnerConfigError } from '../errors.js';
import { InvocationState } from '../turn/state.js';
import { FunctionTool } from './function-tool.js';
import type { ToolContext } from './tool.js';

const context: ToolContext = {
  appName: 'app',
  userId: 'u',
  sessionId: 's',
  invocationId: 'i',
  agentName: 'agent',
  functionCallId: 'c1',
  state: new InvocationState({}),
};

const readFile = new FunctionTool({
  name: 'read_file',
  description: 'Read a file',
  parameters: z.object({
    path: z.string().describe('file path'),
    maxLines: z.number().int().optional(),
  }),
  execute: async (args) => ({ path: args.path, lines: args.maxLines ?? 10 }),
});

describe('FunctionTool', () => {
  it('declares its arguments as JSON Schema without $schema', () => {
    const declaration = readFile.declaration();
    expect(declaration.name).toBe('read_file');
    expect(declaration.parameters).not.toHaveProperty('$schema');
    expect(declaration.parameters).toMatchObject({
      type: 'object',
      properties: { path: { type: 'string', description: 'file path' } },
      required: ['path'],
    });
  });

  it('validates and parses arguments before executing', async () => {
    await expect(readFile.run({ args: { path: 'a.ts' }, context })).resolves.toEqual({
      path: 'a.ts',
      lines: 10,
    });
    await expect(readFile.run({ args: { path: 3 }, context })).rejects.toThrow(
      /Invalid arguments for tool 'read_file': 'path'/,
    );
    await expect(readFile.run({ args: { path: 'a', maxLines: 1.5 }, context })).rejects.toThrow(
      /'maxLines'/,
    );
  });

  it('rejects a name providers would refuse', () => {
    expect(
      () =>
        new FunctionTool({
          name: 'read file',
          description: '',
          parameters: z.object({}),
          execute: async () => null,
        }),
    ).toThrow(RunnerConfigError);
  });
});
