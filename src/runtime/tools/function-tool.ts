import { z } from 'zod';
import type { FunctionDeclaration } from '../../models/types.js';
import { RunnerConfigError } from '../errors.js';
import type { Tool, ToolContext, ToolRunOptions } from './tool.js';

export interface FunctionToolOptions<Schema extends z.ZodType> {
  name: string;
  description: string;
  /** A zod object schema of the arguments; its JSON Schema is the tool's declaration. */
  parameters: Schema;
  execute: (args: z.output<Schema>, context: ToolContext) => Promise<unknown>;
  isLongRunning?: boolean;
}

const toolNamePattern = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/** A tool from a zod schema: arguments are validated before `execute` runs. */
export class FunctionTool<Schema extends z.ZodType = z.ZodType> implements Tool {
  readonly name: string;
  readonly description: string;
  readonly isLongRunning: boolean;
  private readonly parameters: Schema;
  private readonly execute: FunctionToolOptions<Schema>['execute'];
  private cachedDeclaration?: FunctionDeclaration;

  constructor(options: FunctionToolOptions<Schema>) {
    // Providers reject other names (Gemini: letters, digits, `_ . -`, at most 64).
    if (!toolNamePattern.test(options.name)) {
      throw new RunnerConfigError({
        field: 'FunctionTool.name',
        value: options.name,
        message: `'${options.name}' must start with a letter or '_' and hold only letters, digits, '_', '.', '-' (at most 64)`,
      });
    }
    this.name = options.name;
    this.description = options.description;
    this.parameters = options.parameters;
    this.execute = options.execute;
    this.isLongRunning = options.isLongRunning ?? false;
  }

  declaration(): FunctionDeclaration {
    if (!this.cachedDeclaration) {
      const { $schema: _schema, ...parameters } = z.toJSONSchema(this.parameters, {
        unrepresentable: 'any',
      }) as Record<string, unknown>;
      this.cachedDeclaration = { name: this.name, description: this.description, parameters };
    }
    return this.cachedDeclaration;
  }

  async run(options: ToolRunOptions): Promise<unknown> {
    const parsed = await this.parameters.safeParseAsync(options.args);
    if (!parsed.success) {
      const details = parsed.error.issues
        .map((issue) => `'${issue.path.map(String).join('.') || '(arguments)'}': ${issue.message}`)
        .join('; ');
      throw new Error(`Invalid arguments for tool '${this.name}': ${details}`);
    }
    return this.execute(parsed.data, options.context);
  }
}
