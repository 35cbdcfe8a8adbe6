/**
 * The common `/run` body checked without zod: three non-empty ids and a user message of text
 * parts (`{ "text": "..." }` each), nothing else but `streaming` and an empty `stateDelta`.
 * Such a body is exactly what `RunRequestSchema` accepts and returns unchanged, so it is used
 * as parsed; any other body (an error, a function response, extra fields) goes through zod,
 * which names the bad field.
 */
import type { RunRequest } from './request-body.js';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function isId(value: unknown): boolean {
  return typeof value === 'string' && value.length > 0;
}

const RUN_KEYS = new Set([
  'appName',
  'userId',
  'sessionId',
  'newMessage',
  'streaming',
  'stateDelta',
]);

function isTextPart(part: unknown): boolean {
  if (!isPlainObject(part)) return false;
  let keys = 0;
  for (const key in part) {
    if (key !== 'text') return false;
    keys++;
  }
  return keys === 1 && typeof part.text === 'string';
}

function isUserTextMessage(message: unknown): boolean {
  if (!isPlainObject(message)) return false;
  for (const key in message) if (key !== 'role' && key !== 'parts') return false;
  if (message.role !== undefined && message.role !== 'user') return false;
  const parts = message.parts;
  if (!Array.isArray(parts) || parts.length === 0) return false;
  for (const part of parts) if (!isTextPart(part)) return false;
  return true;
}

/** `input` as a `RunRequest` when it is the plain shape above; `undefined`: check it with zod. */
export function plainRunRequest(input: unknown): RunRequest | undefined {
  if (!isPlainObject(input)) return undefined;
  for (const key in input) if (!RUN_KEYS.has(key)) return undefined;
  if (!isId(input.appName) || !isId(input.userId) || !isId(input.sessionId)) return undefined;
  if (input.streaming !== undefined && typeof input.streaming !== 'boolean') return undefined;
  if (input.stateDelta !== undefined && input.stateDelta !== null) return undefined;
  if (!isUserTextMessage(input.newMessage)) return undefined;
  return input as RunRequest;
}
