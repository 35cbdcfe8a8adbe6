/**
 * Key casing shared by ADK JSON import and export. Only the keys of ADK's own structures are
 * converted: user data (state, function args, responses, custom metadata) is copied as is.
 */

export type AdkCasing = 'camel' | 'snake';

/** `invocation_id` -> `invocationId`. */
export function toCamelKey(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/** `invocationId` -> `invocation_id`. */
export function toSnakeKey(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

export function casedKey(key: string, casing: AdkCasing): string {
  return casing === 'snake' ? toSnakeKey(key) : key;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * A field by its camelCase name, or its snake_case one. `null` counts as absent: ADK output
 * dumped without `exclude_none` is full of them.
 */
export function readField(source: Record<string, unknown>, camelKey: string): unknown {
  const camel = source[camelKey];
  if (camel !== undefined && camel !== null) return camel;
  const snake = source[toSnakeKey(camelKey)];
  return snake === null ? undefined : snake;
}

/** The keys of `source` (camelized) that are not in `known`, with non-null values. */
export function extraFields(
  source: Record<string, unknown>,
  known: ReadonlySet<string>,
): Record<string, unknown> {
  const extras: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    const camel = toCamelKey(key);
    if (known.has(camel) || value === null || value === undefined) continue;
    if (extras[camel] === undefined) extras[camel] = value;
  }
  return extras;
}

/** Set `key` only when `value` is defined, so optional fields stay absent. */
export function setDefined(target: Record<string, unknown>, key: string, value: unknown): void {
  if (value !== undefined) target[key] = value;
}
