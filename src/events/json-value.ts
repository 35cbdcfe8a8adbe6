/**
 * What the event model can hold: JSON. Every store writes events as JSON text, so a value JSON
 * cannot hold would be changed silently on the way (NaN and Infinity become `null`, a `Date`
 * a string, a `Map` `{}`, `undefined` in an array `null`) or crash the driver (a bigint, a
 * cycle, a too-deep nesting). `assertJsonValue` finds such a value first and names its path.
 */
import { InvalidEventError } from './errors.js';

/**
 * Deepest nesting of objects and arrays an event may hold. ADK for Python's `json` module reads
 * up to about 1000 levels; this leaves room for the event's own levels around tool arguments.
 */
export const MAX_JSON_DEPTH = 512;

function describe(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'bigint') return `bigint ${value}n`;
  if (typeof value === 'object' && value !== null) {
    return `a ${value.constructor?.name ?? 'non-plain'} object`;
  }
  return typeof value;
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Throws `InvalidEventError` naming the path (e.g. `event.content.parts[0].functionCall.args.x`)
 * of the first value that JSON cannot hold as it is. An object property whose value is
 * `undefined` is allowed: it is the same as an absent property (it is not stored).
 */
export function assertJsonValue(value: unknown, path: string): void {
  // Iterative, so a deeply nested value is an error, not a stack overflow.
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path, depth: 0 }];
  const open = new Set<object>();
  const exits: { object: object; size: number }[] = [];
  while (stack.length > 0) {
    // Leave the objects whose children are all checked (cycle detection is by ancestry).
    while (exits.length > 0 && stack.length <= exits[exits.length - 1]!.size) {
      open.delete(exits.pop()!.object);
    }
    const item = stack.pop()!;
    const current = item.value;
    if (current === null || typeof current === 'string' || typeof current === 'boolean') continue;
    if (typeof current === 'number') {
      if (Number.isFinite(current)) continue;
      fail(item.path, `must be a finite number (JSON has no ${current})`, current);
    }
    if (typeof current !== 'object') {
      fail(item.path, `must be a JSON value, got ${describe(current)}`, current);
    }
    if (item.depth >= MAX_JSON_DEPTH) {
      fail(item.path, `nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays`, current);
    }
    if (open.has(current)) fail(item.path, 'is a circular reference', current);
    const isArray = Array.isArray(current);
    if (!isArray && !isPlainObject(current)) {
      fail(
        item.path,
        `must be a plain object, array or JSON value, got ${describe(current)}`,
        current,
      );
    }
    exits.push({ object: current, size: stack.length });
    open.add(current);
    if (isArray) {
      for (let index = current.length - 1; index >= 0; index--) {
        const child = current[index];
        const childPath = `${item.path}[${index}]`;
        if (child === undefined)
          fail(childPath, 'is undefined (JSON arrays cannot hold it)', child);
        stack.push({ value: child, path: childPath, depth: item.depth + 1 });
      }
      continue;
    }
    const entries = Object.entries(current);
    for (let index = entries.length - 1; index >= 0; index--) {
      const [key, child] = entries[index]!;
      if (child === undefined) continue;
      stack.push({ value: child, path: joinKey(item.path, key), depth: item.depth + 1 });
    }
  }
}

function joinKey(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function fail(path: string, message: string, value: unknown): never {
  throw new InvalidEventError({ path, message, value });
}
