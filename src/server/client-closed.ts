/**
 * Requests the client gave up on, told apart from the server's failures: a client that
 * disconnects while its body is being read, or while its answer is being computed, is logged as
 * `client_closed` and counted under status 499 (nginx's "client closed request"), not as a 500.
 * And a failure's log fields: name, message, stack and causes (the logger masks them).
 */

/** The status logged and counted for a request whose client went away (never sent: no one reads it). */
export const CLIENT_CLOSED_STATUS = 499;

/** Node's errors for a request body cut off by the client. */
const CLOSED_CODES = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE']);

/** The request's signal aborted (the client went away), or reading its body failed for that. */
export function isClientClosed(error: unknown, signal: Pick<AbortSignal, 'aborted'>): boolean {
  if (signal.aborted) return true;
  for (let cause = error, depth = 0; cause && depth < 4; depth++) {
    if (typeof cause !== 'object') break;
    // An IncomingMessage cut off mid-body fails with `Error: aborted`, code ECONNRESET.
    const { code } = cause as { code?: unknown };
    if (typeof code === 'string' && CLOSED_CODES.has(code)) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

export interface ErrorLogFields {
  name: string;
  message: string;
  stack?: string;
  code?: string;
  cause?: ErrorLogFields | string;
}

/**
 * A thrown value as plain log fields. An `Error`'s message and stack are not enumerable, so a
 * log line given the error itself holds only `{"name":...}`: this keeps the reason.
 */
export function errorLogFields(error: unknown, depth = 0): ErrorLogFields {
  if (!(error instanceof Error)) return { name: typeof error, message: String(error) };
  const fields: ErrorLogFields = { name: error.name, message: error.message };
  if (error.stack !== undefined) fields.stack = error.stack;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') fields.code = code;
  if (error.cause !== undefined && depth < 3) {
    fields.cause =
      error.cause instanceof Error ? errorLogFields(error.cause, depth + 1) : String(error.cause);
  }
  return fields;
}
