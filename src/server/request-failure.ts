/**
 * The answer to a request that threw outside a run (a bad body, a missing session, a store
 * failure): a problem, logged when it is the server's (5xx); or, when the client went away,
 * status 499 and an info line (nobody reads that answer). Hono's `onError` and the `node:http`
 * fast path of `POST /run` answer with this one function.
 */
import type { Logger } from 'pino';
import { errorMessage } from '../util/error-message.js';
import { CLIENT_CLOSED_STATUS, errorLogFields, isClientClosed } from './client-closed.js';
import { type PlainReply, problemReply, toProblem } from './problem.js';

export function requestFailureReply(options: {
  error: unknown;
  /** Aborted when the client disconnected. */
  clientSignal: Pick<AbortSignal, 'aborted'>;
  logger: Logger;
  requestId: string | undefined;
}): PlainReply {
  const { error, logger } = options;
  if (isClientClosed(error, options.clientSignal)) {
    // Logged and counted apart from the server's own failures.
    logger.info(
      { msgType: 'client_closed', reason: errorMessage(error) },
      'the client closed the connection before the answer',
    );
    return { status: CLIENT_CLOSED_STATUS, headers: {}, body: null };
  }
  const problem = toProblem(error);
  if (problem.status >= 500) {
    logger.error(
      { msgType: 'request_failed', status: problem.status, error: errorLogFields(error) },
      problem.message,
    );
  }
  return problemReply(problem, options.requestId);
}
