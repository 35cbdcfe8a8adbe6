/**
 * How many public names a module exports: the runtime names (`Object.keys` of the module as
 * `tsx` loads it) and every name TypeScript sees, split into values and type-only names. For
 * comparing the public surface of two trees (e.g. a git worktree of an older commit).
 *
 *   npx tsx scripts/count-exports.ts                       # src/index.ts of this checkout
 *   npx tsx scripts/count-exports.ts /other/src/index.ts   # another tree's entry point
 */
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

export interface ExportCounts {
  /** `Object.keys` of the loaded module. */
  runtime: number;
  /** Names TypeScript sees exported, values and types together. */
  declared: number;
  /** Of `declared`: names with no value (interfaces, type aliases, `export type`). */
  typeOnly: number;
}

/**
 * Every exported name of `entry` by the TypeScript checker: value names and type-only names.
 * `program`, when given, must include `entry` (the API test passes the report's program).
 */
export function declaredExports(
  entry: string,
  options: { program?: ts.Program } = {},
): { values: string[]; types: string[] } {
  const program =
    options.program ??
    ts.createProgram([entry], {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
    });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  const symbol = source && checker.getSymbolAtLocation(source);
  if (!symbol) throw new Error(`no module symbol for ${entry}`);
  const values: string[] = [];
  const types: string[] = [];
  for (const exported of checker.getExportsOfModule(symbol)) {
    const target =
      exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    // `export type { X }` of a class is a type-only name even though X has a value.
    const typeOnlyExport = exported.declarations?.some(
      (declaration) => ts.isExportSpecifier(declaration) && declaration.isTypeOnly,
    );
    const isValue = (target.flags & ts.SymbolFlags.Value) !== 0 && !typeOnlyExport;
    (isValue ? values : types).push(exported.name);
  }
  return { values, types };
}

export async function countExports(entry: string): Promise<ExportCounts> {
  const loaded = (await import(pathToFileURL(entry).href)) as Record<string, unknown>;
  const { values, types } = declaredExports(entry);
  return {
    runtime: Object.keys(loaded).length,
    declared: values.length + types.length,
    typeOnly: types.length,
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const entry = resolve(
    process.argv[2] ?? fileURLToPath(new URL('../src/index.ts', import.meta.url)),
  );
  const counts = await countExports(entry);
  process.stdout.write(`${entry}: ${JSON.stringify(counts)}\n`);
}
