import type { FunctionDeclaration } from '../../models/types.js';
import { RunnerConfigError } from '../errors.js';
import type { Tool, ToolContext, ToolRunOptions } from './tool.js';
import {
  type CompiledParameters,
  compileParameters,
  type ToolArguments,
  type ToolParameters,
} from './tool-parameters.js';

export interface FunctionToolOptions<Schema extends ToolParameters> {
  name: string;
  description: string;
  /**
   * The arguments: a zod 4 object schema, a Standard Schema (Valibot, ArkType, zod 3.24+) or a
   * JSON Schema object (`{ type: 'object', ... }`). Its JSON Schema is the tool's declaration.
   */
  parameters: Schema;
  /** The declaration's JSON Schema, for a Standard Schema that cannot produce one (zod 3). */
  jsonSchema?: Record<string, unknown>;
  execute: (args: ToolArguments<Schema>, context: ToolContext) => Promise<unknown>;
  isLongRunning?: boolean;
}

const toolNamePattern = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/** A tool from a schema: arguments are validated before `execute` runs. */
export class FunctionTool<Schema extends ToolParameters = ToolParameters> implements Tool {
  readonly name: string;
  readonly description: string;
  readonly isLongRunning: boolean;
  private readonly parameters: CompiledParameters;
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
    this.parameters = compileParameters({
      toolName: options.name,
      parameters: options.parameters,
      jsonSchema: options.jsonSchema,
    });
    this.execute = options.execute;
    this.isLongRunning = options.isLongRunning ?? false;
  }

  declaration(): FunctionDeclaration {
    if (!this.cachedDeclaration) {
      const parameters = this.parameters.jsonSchema;
      this.cachedDeclaration = { name: this.name, description: this.description, parameters };
    }
    return this.cachedDeclaration;
  }

  async run(options: ToolRunOptions): Promise<unknown> {
    const parsed = await this.parameters.validate(options.args);
    if ('issues' in parsed) {
      throw new Error(`Invalid arguments for tool '${this.name}': ${parsed.issues.join('; ')}`);
    }
    return this.execute(parsed.value as ToolArguments<Schema>, options.context);
  }
}
