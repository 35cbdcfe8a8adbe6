/**
 * A tool's parameters as given: a zod 4 schema, any Standard Schema (zod 3.24+, Valibot,
 * ArkType...) or a plain JSON Schema object. Each becomes a JSON Schema for the declaration
 * and a validator for the model's arguments.
 */
import { z } from 'zod';
import { RunnerConfigError } from '../errors.js';

/** The Standard Schema v1 interface (standardschema.dev), structurally. */
export interface StandardSchemaV1<Output = unknown> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    validate(value: unknown): StandardResult<Output> | Promise<StandardResult<Output>>;
    /** Standard JSON Schema (zod 4, Valibot, ArkType): the schema as JSON Schema. */
    readonly jsonSchema?: { input(options: { target: string }): Record<string, unknown> };
    readonly types?: { readonly output: Output };
  };
}

type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | {
      readonly issues: ReadonlyArray<{
        readonly message: string;
        readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>;
      }>;
    };

/** A JSON Schema object describing the arguments (`{ type: 'object', properties, required }`). */
export type JsonSchemaParameters = Record<string, unknown> & { type: 'object' };

export type ToolParameters = z.ZodType | StandardSchemaV1 | JsonSchemaParameters;

/** The arguments `execute` receives for parameters `Schema`. */
export type ToolArguments<Schema> = Schema extends z.ZodType
  ? z.output<Schema>
  : Schema extends StandardSchemaV1<infer Output>
    ? Output
    : Record<string, unknown>;

export interface CompiledParameters {
  jsonSchema: Record<string, unknown>;
  /** The parsed arguments, or the issues as `'path': message` strings. */
  validate(args: unknown): Promise<{ value: unknown } | { issues: string[] }>;
}

function isZod4(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

function isStandard(value: unknown): value is StandardSchemaV1 {
  return typeof value === 'object' && value !== null && '~standard' in value;
}

function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

function pathText(path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> = []): string {
  const keys = path.map((segment) =>
    typeof segment === 'object' ? String(segment.key) : String(segment),
  );
  return keys.join('.') || '(arguments)';
}

/**
 * Checks and compiles `parameters`; `jsonSchema` is the declaration for a Standard Schema that
 * cannot describe itself (zod 3). Throws `RunnerConfigError` naming `FunctionTool.parameters`.
 */
export function compileParameters(options: {
  toolName: string;
  parameters: ToolParameters;
  jsonSchema?: Record<string, unknown>;
}): CompiledParameters {
  const { parameters, toolName } = options;
  if (isZod4(parameters)) {
    return {
      jsonSchema:
        options.jsonSchema ??
        withoutDialect(
          z.toJSONSchema(parameters, { unrepresentable: 'any' }) as Record<string, unknown>,
        ),
      async validate(args) {
        const parsed = await parameters.safeParseAsync(args);
        if (parsed.success) return { value: parsed.data };
        return {
          issues: parsed.error.issues.map(
            (issue) => `'${pathText(issue.path as PropertyKey[])}': ${issue.message}`,
          ),
        };
      },
    };
  }
  if (isStandard(parameters)) {
    const standard = parameters['~standard'];
    const described = options.jsonSchema ?? standard.jsonSchema?.input({ target: 'draft-2020-12' });
    if (!described) {
      throw new RunnerConfigError({
        field: 'FunctionTool.parameters',
        value: standard.vendor,
        message: `tool '${toolName}': a ${standard.vendor} schema cannot describe itself as JSON Schema (zod 3 cannot): pass 'jsonSchema' as well, or use zod 4`,
      });
    }
    return {
      jsonSchema: withoutDialect(described),
      async validate(args) {
        const result = await standard.validate(args);
        if (!result.issues) return { value: result.value };
        return {
          issues: result.issues.map((issue) => `'${pathText(issue.path)}': ${issue.message}`),
        };
      },
    };
  }
  if (typeof parameters === 'object' && parameters !== null && parameters.type === 'object') {
    const required = Array.isArray(parameters.required) ? parameters.required.map(String) : [];
    return {
      jsonSchema: withoutDialect(parameters),
      // A JSON Schema is the user's contract: only its shape and required keys are checked here.
      async validate(args) {
        if (typeof args !== 'object' || args === null || Array.isArray(args)) {
          return { issues: ["'(arguments)': expected an object"] };
        }
        const missing = required.filter((key) => !(key in args));
        if (missing.length === 0) return { value: args };
        return { issues: missing.map((key) => `'${key}': required`) };
      },
    };
  }
  throw new RunnerConfigError({
    field: 'FunctionTool.parameters',
    value: typeof parameters,
    message: `tool '${toolName}': expected a zod schema, a Standard Schema or a JSON Schema object with type 'object'`,
  });
}
