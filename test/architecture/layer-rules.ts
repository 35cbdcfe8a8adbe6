/**
 * The layer rule (docs/architecture.md): dependencies point inward. Each top-level folder of
 * `src/` has a rank; a module may import only from its own folder or from folders of a lower
 * rank, and the pure core imports no I/O module. Read from the import statements themselves,
 * so the check needs no build and no extra tool.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, normalize, relative, sep } from 'node:path';

/** Lower ranks are further in. Folders of one rank may not import each other. */
export const LAYER_RANKS: Readonly<Record<string, number>> = {
  // Plumbing every layer uses (abort helpers, optional imports, error messages): no orrery imports.
  util: 0,
  events: 1,
  compaction: 2,
  costs: 2,
  redaction: 2,
  sessions: 3,
  models: 3,
  observability: 3,
  summarizers: 4,
  // Transcripts in: only events and sessions, so the runtime (replay) and the server may use them.
  importers: 4,
  runtime: 5,
  testing: 6,
  server: 6,
  adapters: 7,
  // The gateway logs conversations as the adapters do and serves them as the server does.
  gateway: 8,
  cli: 9,
  '(root)': 10,
  // The subpath entry points (orrery/store-kit, ...): public surface, like src/index.ts.
  entries: 10,
};

/** The pure core: no I/O, so none of these may be imported there. */
export const PURE_FOLDERS = ['util', 'events', 'compaction', 'costs', 'redaction'];
const IO_MODULES = /^(node:|fs$|net$|http|pg$|better-sqlite3$|pino$|prom-client$|ai$|@ai-sdk\/)/;

export interface SourceFile {
  /** Path relative to `src/`, with `/` separators, e.g. `runtime/runner.ts`. */
  path: string;
  text: string;
}

export interface LayerViolation {
  file: string;
  specifier: string;
  rule: string;
}

const IMPORT_PATTERN =
  /(?:^|\n)\s*(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g;

export function importSpecifiers(text: string): string[] {
  const specifiers: string[] = [];
  for (const match of text.matchAll(IMPORT_PATTERN)) {
    const specifier = match[1] ?? match[2] ?? match[3];
    if (specifier) specifiers.push(specifier);
  }
  return specifiers;
}

/** The top-level folder of a path under `src/` (`(root)` for `src/index.ts`). */
export function folderOf(path: string): string {
  const parts = path.split('/');
  return parts.length > 1 ? (parts[0] as string) : '(root)';
}

/** Tests and their helpers may reach anywhere: only shipped code is held to the rule. */
export function isTestCode(path: string): boolean {
  return /\.test\.ts$/.test(path) || path.includes('/test-helpers/');
}

/** An import of one module by another, both under `src/`, as `src/`-relative paths. */
export interface ResolvedImport {
  file: string;
  specifier: string;
  /** The imported path relative to `src/` (`../x` when it points outside). */
  target: string;
}

/** The relative imports of `file` resolved against its folder (package imports left out). */
export function relativeImports(file: SourceFile): ResolvedImport[] {
  return importSpecifiers(file.text)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => ({
      file: file.path,
      specifier,
      target: normalize(join(file.path, '..', specifier))
        .split(sep)
        .join('/'),
    }));
}

export function findLayerViolations(files: SourceFile[]): LayerViolation[] {
  const violations: LayerViolation[] = [];
  for (const file of files) {
    if (isTestCode(file.path)) continue;
    const from = folderOf(file.path);
    const fromRank = LAYER_RANKS[from];
    if (fromRank === undefined) {
      violations.push({ file: file.path, specifier: '', rule: `folder '${from}' has no rank` });
      continue;
    }
    if (PURE_FOLDERS.includes(from)) {
      for (const specifier of importSpecifiers(file.text)) {
        if (!specifier.startsWith('.') && IO_MODULES.test(specifier)) {
          violations.push({
            file: file.path,
            specifier,
            rule: `the pure core '${from}' does no I/O`,
          });
        }
      }
    }
    for (const { specifier, target } of relativeImports(file)) {
      if (target.startsWith('..')) {
        violations.push({ file: file.path, specifier, rule: 'imports from outside src/' });
        continue;
      }
      const to = folderOf(target);
      if (to === from) continue;
      const toRank = LAYER_RANKS[to];
      if (toRank === undefined || toRank >= fromRank) {
        violations.push({
          file: file.path,
          specifier,
          rule: `'${from}' (rank ${fromRank}) may not import '${to}' (rank ${toRank ?? 'none'})`,
        });
      }
    }
  }
  return violations;
}

export function readSourceFiles(root: string): SourceFile[] {
  const files: SourceFile[] = [];
  const walk = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|tsx|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
        files.push({
          path: relative(root, path).split(sep).join('/'),
          text: readFileSync(path, 'utf8'),
        });
      }
    }
  };
  walk(root);
  return files;
}
