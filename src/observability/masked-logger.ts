/**
 * A logger whose lines never carry credentials: every argument of a log call (the message,
 * the fields, an error and its cause) goes through `maskCredentials`, and the value of a
 * credential-named field (`authorization`, `x-api-key`, `cookie`, `password`, ...) is replaced.
 * Wraps any pino logger, the caller's own included; children are wrapped too.
 */
import type { Logger } from 'pino';
import { isSecretKey, maskCredentials } from '../redaction/index.js';

const MASKED = '[REDACTED]';
/** Deeper structures are cut: a log line is not the place for them. */
const MAX_DEPTH = 8;

function maskError(error: Error, depth: number): Error {
  const copy = new Error(maskCredentials(error.message));
  copy.name = error.name;
  copy.stack = error.stack === undefined ? undefined : maskCredentials(error.stack);
  const fields = maskValue({ ...error }, depth + 1) as Record<string, unknown>;
  Object.assign(copy, fields);
  if (error.cause !== undefined) copy.cause = maskValue(error.cause, depth + 1);
  return copy;
}

/** A copy of a log argument with credentials masked (strings, errors, plain objects, arrays). */
export function maskLogValue(value: unknown): unknown {
  return maskValue(value, 0);
}

function maskValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return maskCredentials(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[…]';
  if (value instanceof Error) return maskError(value, depth);
  if (Array.isArray(value)) return value.map((item) => maskValue(item, depth + 1));
  const prototype = Object.getPrototypeOf(value);
  // Dates, buffers, class instances: left to pino's own serialization.
  if (prototype !== Object.prototype && prototype !== null) return value;
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    result[key] =
      isSecretKey(key) && (typeof item === 'string' || typeof item === 'number')
        ? MASKED
        : maskValue(item, depth + 1);
  }
  return result;
}

/** Where a masking logger keeps the logger it wraps (read with `unmaskedLogger`). */
const WRAPPED = Symbol('orrery.maskedLogger.wrapped');

/**
 * The logger a `maskingLogger` wraps, for a caller that masks its own line's client-given
 * strings (the access log, a line a request): every other line goes through the mask.
 * A logger that is not a masking one is returned as it is.
 */
export function unmaskedLogger(logger: Logger): Logger {
  return (logger as Logger & { [WRAPPED]?: Logger })[WRAPPED] ?? logger;
}

const LEVEL_METHODS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);

/** `logger` with every log call's arguments masked (see the module comment). */
export function maskingLogger(logger: Logger): Logger {
  return new Proxy(logger, {
    get(target, property) {
      if (property === WRAPPED) return target;
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (
        typeof property === 'string' &&
        (LEVEL_METHODS.has(property) || property in target.levels.values)
      ) {
        return (...args: unknown[]) => value.apply(target, args.map(maskLogValue));
      }
      if (property === 'child') {
        return (...args: unknown[]) =>
          maskingLogger(value.apply(target, [maskLogValue(args[0]), ...args.slice(1)]));
      }
      return value.bind(target);
    },
  });
}
