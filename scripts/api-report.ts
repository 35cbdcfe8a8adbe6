/**
 * The public API report: every name each entry point exports, with its kind and signature,
 * written to `api/orrery.api.md`. CI compares it with a fresh report (`npm run api:check`), so
 * a change to the public surface is a visible diff in review. `npm run api:update` rewrites it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Every subpath of package.json "exports" (a test checks the two lists agree). */
export const ENTRY_POINTS: Readonly<Record<string, string>> = {
  orrery: 'src/index.ts',
  'orrery/sqlite': 'src/sessions/sqlite/index.ts',
  'orrery/postgres': 'src/sessions/postgres/index.ts',
  'orrery/server': 'src/server/index.ts',
  'orrery/gateway': 'src/gateway/index.ts',
  'orrery/testing': 'src/testing/index.ts',
  'orrery/testing/conformance': 'src/testing/conformance/index.ts',
  'orrery/ai-sdk': 'src/adapters/ai-sdk/index.ts',
  'orrery/adk': 'src/adapters/adk/index.ts',
  'orrery/openai-agents': 'src/adapters/openai-agents/index.ts',
  'orrery/langchain': 'src/adapters/langchain/index.ts',
  'orrery/compaction': 'src/entries/compaction.ts',
  'orrery/store-kit': 'src/entries/store-kit.ts',
  'orrery/model-kit': 'src/entries/model-kit.ts',
  'orrery/importers': 'src/entries/importers.ts',
  'orrery/adk-json': 'src/entries/adk-json.ts',
  'orrery/replay': 'src/entries/replay.ts',
  'orrery/costs': 'src/entries/costs.ts',
};

const root = fileURLToPath(new URL('..', import.meta.url));
export const REPORT_PATH = `${root}api/orrery.api.md`;

const FORMAT =
  ts.TypeFormatFlags.NoTruncation |
  ts.TypeFormatFlags.UseFullyQualifiedType |
  ts.TypeFormatFlags.WriteArrowStyleSignature;

function kindOf(symbol: ts.Symbol): string {
  const flags = symbol.flags;
  if (flags & ts.SymbolFlags.Class) return 'class';
  if (flags & ts.SymbolFlags.Function) return 'function';
  if (flags & ts.SymbolFlags.Interface) return 'interface';
  if (flags & ts.SymbolFlags.TypeAlias) return 'type';
  if (flags & ts.SymbolFlags.Enum) return 'enum';
  if (flags & ts.SymbolFlags.Variable) return 'const';
  return 'other';
}

/** One line per member for interfaces and classes, so a changed field shows as one diff line. */
function describe(checker: ts.TypeChecker, symbol: ts.Symbol, kind: string): string[] {
  const declaration = symbol.declarations?.[0];
  if (!declaration) return [];
  if (kind === 'function' || kind === 'const') {
    const type = checker.getTypeOfSymbolAtLocation(symbol, declaration);
    return [checker.typeToString(type, declaration, FORMAT)];
  }
  if (kind === 'type') {
    const type = checker.getDeclaredTypeOfSymbol(symbol);
    return [checker.typeToString(type, declaration, FORMAT | ts.TypeFormatFlags.InTypeAlias)];
  }
  if (kind === 'interface' || kind === 'class') {
    const type =
      kind === 'class'
        ? checker.getTypeOfSymbolAtLocation(symbol, declaration)
        : checker.getDeclaredTypeOfSymbol(symbol);
    const lines: string[] = [];
    if (kind === 'class') {
      for (const signature of type.getConstructSignatures()) {
        const parameters = signature.parameters
          .map((parameter) => {
            const parameterType = checker.getTypeOfSymbolAtLocation(parameter, declaration);
            return `${parameter.name}: ${checker.typeToString(parameterType, declaration, FORMAT)}`;
          })
          .join(', ');
        lines.push(`new (${parameters})`);
      }
      const instance = checker.getDeclaredTypeOfSymbol(symbol);
      for (const member of checker.getPropertiesOfType(instance)) {
        if (isHidden(member)) continue;
        lines.push(memberLine(checker, member, declaration));
      }
      for (const member of checker.getPropertiesOfType(type)) {
        if (member.name === 'prototype' || isHidden(member)) continue;
        lines.push(`static ${memberLine(checker, member, declaration)}`);
      }
      return lines;
    }
    for (const member of checker.getPropertiesOfType(type)) {
      lines.push(memberLine(checker, member, declaration));
    }
    return lines;
  }
  return [];
}

function isHidden(member: ts.Symbol): boolean {
  if (member.name.startsWith('__')) return true;
  const modifiers = member.valueDeclaration
    ? ts.getCombinedModifierFlags(member.valueDeclaration)
    : 0;
  return (modifiers & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !== 0;
}

function memberLine(checker: ts.TypeChecker, member: ts.Symbol, at: ts.Node): string {
  const optional = member.flags & ts.SymbolFlags.Optional ? '?' : '';
  const type = checker.getTypeOfSymbolAtLocation(member, member.valueDeclaration ?? at);
  return `${member.name}${optional}: ${checker.typeToString(type, at, FORMAT)}`;
}

/** The program the report reads: every entry point, with this project's strict options. */
export function createApiProgram(): ts.Program {
  return ts.createProgram({
    rootNames: Object.values(ENTRY_POINTS).map((path) => `${root}${path}`),
    options: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: ['node'],
    },
  });
}

/**
 * The report's text. `program` lets a caller that reads the same entry points again (the API
 * test also counts the root's names) build the program once: it takes most of the time.
 */
export function buildApiReport(options: { program?: ts.Program } = {}): string {
  const program = options.program ?? createApiProgram();
  const checker = program.getTypeChecker();
  const out: string[] = [
    '# orrery public API',
    '',
    'Generated by `npm run api:update` (scripts/api-report.ts). Do not edit by hand: CI fails',
    'when the exports differ from this file, so every change to the public surface shows here.',
  ];
  for (const [name, path] of Object.entries(ENTRY_POINTS)) {
    const source = program.getSourceFile(`${root}${path}`);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!moduleSymbol) throw new Error(`cannot read the exports of ${path}`);
    const exports = checker
      .getExportsOfModule(moduleSymbol)
      .sort((a, b) => a.name.localeCompare(b.name));
    out.push('', `## ${name} (${exports.length} exports)`, '', '```ts');
    for (const exported of exports) {
      const symbol =
        exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const kind = kindOf(symbol);
      const lines = describe(checker, symbol, kind);
      if (lines.length === 1 && kind !== 'interface' && kind !== 'class') {
        out.push(`${kind} ${exported.name}: ${lines[0]}`);
      } else {
        out.push(`${kind} ${exported.name}`);
        for (const line of lines) out.push(`  ${line}`);
      }
    }
    out.push('```');
  }
  // Types printed with their module path name it from the checkout's root, not the machine's.
  return `${out.join('\n')}\n`.split(`import("${root}`).join('import("');
}

function main(): void {
  const report = buildApiReport();
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(REPORT_PATH, 'utf8');
    } catch {
      // A missing report is a difference like any other.
    }
    if (current !== report) {
      console.error(
        'The public API differs from api/orrery.api.md. Review the change, then run `npm run api:update` and commit the report.',
      );
      process.exitCode = 1;
      return;
    }
    console.log('api/orrery.api.md matches the exports.');
    return;
  }
  writeFileSync(REPORT_PATH, report);
  console.log(`wrote ${REPORT_PATH}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
