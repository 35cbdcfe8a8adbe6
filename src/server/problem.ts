/**
 * Errors as RFC 9457 problem details (`application/problem+json`): `type`, `title`, `status`,
 * `detail`, the bad `field` when there is one, the `requestId`, and ADK's own `error` member
 * (its clients read that one). Details are masked: a store URL or a key never leaves.
 */
import { InvalidArgumentError, InvalidEventError } from '../events/errors.js';
import { ModelError } from '../models/errors.js';
import { maskCredentials } from '../redaction/index.js';
import {
  SessionAlreadyExistsError,
  SessionBusyError,
  SessionLeaseLostError,
  SessionNotFoundError,
  SessionStoreError,
} from '../sessions/errors.js';
import { HttpProblem } from './errors.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  field?: string;
  requestId?: string;
  /** ADK's API server answers `{ error }`: kept so its clients show the reason. */
  error: string;
}

export function notFound(detail: string, field?: string): HttpProblem {
  return new HttpProblem({ status: 404, slug: 'not-found', title: 'Not Found', detail, field });
}

export function badRequest(detail: string, field?: string, cause?: unknown): HttpProblem {
  return new HttpProblem({
    status: 400,
    slug: 'invalid-request',
    title: 'Bad Request',
    detail,
    field,
    cause,
  });
}

/** The problem a thrown error becomes. Unknown errors are a 500 that says only that. */
export function toProblem(error: unknown): HttpProblem {
  if (HttpProblem.isInstance(error)) return error;
  if (SessionNotFoundError.isInstance(error)) {
    return notFound(`session '${error.sessionId}' not found`, 'sessionId');
  }
  if (SessionAlreadyExistsError.isInstance(error)) {
    return new HttpProblem({
      status: 409,
      slug: 'session-exists',
      title: 'Conflict',
      detail: `session '${error.sessionId}' already exists`,
      field: 'sessionId',
    });
  }
  if (SessionBusyError.isInstance(error)) {
    return new HttpProblem({
      status: 409,
      slug: 'session-busy',
      title: 'Conflict',
      detail: `session '${error.sessionId}' is busy: another run held it for the ${error.waitedMs} ms this one waited; retry later`,
      field: 'sessionId',
    });
  }
  if (SessionLeaseLostError.isInstance(error)) {
    return new HttpProblem({
      status: 409,
      slug: 'session-lease-lost',
      title: 'Conflict',
      detail: `the run on session '${error.sessionId}' lost its lease and stopped; what it stored is kept`,
      field: 'sessionId',
    });
  }
  if (InvalidEventError.isInstance(error)) return badRequest(error.message, error.path, error);
  if (InvalidArgumentError.isInstance(error)) {
    return badRequest(error.message, error.argument, error);
  }
  if (ModelError.isInstance(error)) {
    // The provider's message can name the internal upstream (its URL, a proxy's host): it goes
    // to the server's log with the request id, never to the API client.
    const status = error.statusCode === undefined ? '' : `, HTTP ${error.statusCode}`;
    return new HttpProblem({
      status: error.kind === 'retryable' ? 503 : 502,
      slug: 'model-error',
      title: error.kind === 'retryable' ? 'Service Unavailable' : 'Bad Gateway',
      detail: `the model failed (${error.kind}${status}); the server's log has the reason (see the request id)`,
      cause: error,
    });
  }
  if (SessionStoreError.isInstance(error)) {
    return new HttpProblem({
      status: error.retryable ? 503 : 500,
      slug: 'store-error',
      title: error.retryable ? 'Service Unavailable' : 'Internal Server Error',
      detail: `the session store failed: ${error.message}`,
      cause: error,
    });
  }
  return new HttpProblem({
    status: 500,
    slug: 'internal',
    title: 'Internal Server Error',
    detail: 'the server failed on this request; its log has the reason (see the request id)',
    cause: error,
  });
}

export function problemBody(problem: HttpProblem, requestId?: string): ProblemBody {
  const detail = problem.ownText ? problem.message : maskCredentials(problem.message);
  const body: ProblemBody = {
    type: `urn:orrery:problem:${problem.slug}`,
    title: problem.title,
    status: problem.status,
    detail,
    error: detail,
  };
  if (problem.field !== undefined) body.field = problem.field;
  if (requestId !== undefined) body.requestId = requestId;
  return body;
}

/**
 * An answer as plain data: what the Hono routes turn into a web `Response` and the `node:http`
 * fast path of `POST /run` writes as it is, so both answer the same bytes.
 */
export interface PlainReply {
  status: number;
  headers: Record<string, string>;
  /** `null`: no body. */
  body: string | null;
}

export function problemReply(
  problem: HttpProblem,
  requestId?: string,
  headers: Record<string, string> = {},
): PlainReply {
  return {
    status: problem.status,
    headers: { 'content-type': PROBLEM_CONTENT_TYPE, ...problem.headers, ...headers },
    body: JSON.stringify(problemBody(problem, requestId)),
  };
}

export function webResponse(reply: PlainReply): Response {
  return new Response(reply.body, { status: reply.status, headers: reply.headers });
}

export function problemResponse(
  problem: HttpProblem,
  requestId?: string,
  headers: Record<string, string> = {},
): Response {
  return webResponse(problemReply(problem, requestId, headers));
}
