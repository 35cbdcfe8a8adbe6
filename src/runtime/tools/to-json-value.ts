/**
 * Tool results, state writes and plugin-returned values as JSON before they are stored. Stores
 * keep events as JSON, and a value JSON cannot hold (a `Date`, a `Map`, a bigint, a cycle)
 * would otherwise fail the whole turn at the store. The rules are `JSON.stringify`'s where it
 * has one, and keep the data where it would silently drop it.
 */

/** Put where a value refers back to one of its own ancestors. */
export const CIRCULAR_MARKER = '[Circular]';
/** Put where the value nests deeper than `MAX_NORMALIZED_DEPTH`. */
export const TOO_DEEP_MARKER = '[Too deep]';
/** Well under the event model's own limit (`MAX_JSON_DEPTH`), which counts the event's levels. */
export const MAX_NORMALIZED_DEPTH = 256;

/**
 * `value` as plain JSON: a `Date` (anything with `toJSON`) -> what `toJSON` returns (an ISO
 * string); `Map` -> object (keys as strings); `Set` and typed arrays -> arrays; bigint -> its
 * decimal string; NaN and Infinity -> null; `undefined`, functions and symbols -> dropped from
 * objects, null in arrays (`undefined` at the top); an `Error` -> `{ name, message }` and its own
 * fields; other class instances -> their enumerable own fields; a cycle -> `"[Circular]"`. The
 * input is never changed. Throws only what a getter or `toJSON` throws.
 */
export function toJsonValue(value: unknown): unknown {
  return normalize(value, new Set(), 0);
}

function normalize(value: unknown, ancestors: Set<object>, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'bigint':
      return value.toString();
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (value === null) return null;
  const object = value as object;
  if (ancestors.has(object)) return CIRCULAR_MARKER;
  if (depth >= MAX_NORMALIZED_DEPTH) return TOO_DEEP_MARKER;
  ancestors.add(object);
  try {
    return normalizeObject(object, ancestors, depth + 1);
  } finally {
    ancestors.delete(object);
  }
}

function normalizeObject(object: object, ancestors: Set<object>, depth: number): unknown {
  const child = (item: unknown) => normalize(item, ancestors, depth);
  const inArray = (item: unknown) => child(item) ?? null;
  if (Array.isArray(object)) return object.map(inArray);
  const toJson = (object as { toJSON?: unknown }).toJSON;
  if (typeof toJson === 'function') return child(toJson.call(object));
  if (object instanceof Map) {
    const result: Record<string, unknown> = {};
    for (const [key, item] of object) setDefined(result, mapKey(key), child(item));
    return result;
  }
  if (object instanceof Set) return [...object].map(inArray);
  if (ArrayBuffer.isView(object)) {
    return object instanceof DataView
      ? []
      : Array.from(object as unknown as ArrayLike<unknown>, inArray);
  }
  if (object instanceof RegExp) return String(object);
  const result: Record<string, unknown> = {};
  if (object instanceof Error) {
    result.name = object.name;
    result.message = object.message;
  }
  for (const [key, item] of Object.entries(object)) setDefined(result, key, child(item));
  return result;
}

function mapKey(key: unknown): string {
  if (typeof key === 'string') return key;
  if (typeof key === 'object' && key !== null) {
    const json = toJsonValue(key);
    return typeof json === 'string' ? json : JSON.stringify(json);
  }
  return String(key);
}

function setDefined(target: Record<string, unknown>, key: string, value: unknown): void {
  // A `__proto__` key is data here, never the prototype.
  if (value !== undefined)
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
}

/** A record of values (a state delta) with every value as `toJsonValue` makes it. */
export function toJsonRecord(record: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    // `undefined` is dropped, as the store drops it.
    setDefined(result, key, toJsonValue(value));
  }
  return result;
}
