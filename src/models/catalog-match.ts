/**
 * The model-name rules of the `@pydantic/genai-prices` catalog (its `MatchLogic`), applied to the
 * generated window table without loading the catalog itself (a 2 MB module, ~200 ms to import).
 */

export type CatalogMatch =
  | { and: CatalogMatch[] }
  | { or: CatalogMatch[] }
  | { equals: string }
  | { starts_with: string }
  | { ends_with: string }
  | { contains: string }
  | { regex: string };

export interface CatalogWindow {
  provider: string;
  /** The catalog's model id. */
  id: string;
  match: CatalogMatch | Record<string, unknown>;
  /** Total context window in tokens, as the catalog lists it. */
  contextWindow: number;
  /** Which catalog gave the figure. */
  source: string;
}

/** Whether `name` satisfies a catalog match rule (case-insensitive, as the catalog does). */
export function matchesCatalog(match: CatalogWindow['match'], name: string): boolean {
  const rule = match as Record<string, unknown>;
  const lower = name.toLowerCase();
  const text = (key: string): string | undefined =>
    typeof rule[key] === 'string' ? (rule[key] as string).toLowerCase() : undefined;
  if (Array.isArray(rule.or)) {
    return rule.or.some((part) => matchesCatalog(part as CatalogMatch, name));
  }
  if (Array.isArray(rule.and)) {
    return rule.and.every((part) => matchesCatalog(part as CatalogMatch, name));
  }
  const equals = text('equals');
  if (equals !== undefined) return lower === equals;
  const prefix = text('starts_with');
  if (prefix !== undefined) return lower.startsWith(prefix);
  const suffix = text('ends_with');
  if (suffix !== undefined) return lower.endsWith(suffix);
  const part = text('contains');
  if (part !== undefined) return lower.includes(part);
  if (typeof rule.regex === 'string') return new RegExp(rule.regex).test(name);
  return false;
}

const DATED_SUFFIX = /(-)(20\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?=-|:|$)/g;

/** `claude-x-20250929` -> `claude-x-2025-09-29`, the catalog's second try for dated names. */
export function dashedDate(name: string): string {
  return name.replace(
    DATED_SUFFIX,
    (_all, dash, year, month, day) => `${dash}${year}-${month}-${day}`,
  );
}
