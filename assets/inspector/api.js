// @ts-check
/**
 * The inspector API client (`/inspector/api/*`, typed in `src/server/inspector/api-types.ts`).
 * A 401 becomes `AuthRequiredError`, so the page can ask for a bearer token; other failures
 * carry the problem JSON's `detail`.
 */

/**
 * @typedef {import('../../src/server/inspector/api-types.js').SessionsResponse} SessionsResponse
 * @typedef {import('../../src/server/inspector/api-types.js').TimelineResponse} TimelineResponse
 * @typedef {import('../../src/server/inspector/api-types.js').StoredEventResponse} StoredEventResponse
 * @typedef {import('../../src/server/inspector/api-types.js').ViewResponse} ViewResponse
 * @typedef {import('../../src/server/inspector/api-types.js').ChartResponse} ChartResponse
 * @typedef {import('../../src/server/inspector/api-types.js').ReplayRequest} ReplayRequest
 * @typedef {import('../../src/server/inspector/api-types.js').ReplayResponse} ReplayResponse
 * @typedef {import('../../src/server/inspector/api-types.js').StreamMessage} StreamMessage
 * @typedef {import('../../src/server/inspector/api-types.js').InspectorInfo} InspectorInfo
 * @typedef {import('../../src/server/inspector/api-types.js').CallTraceResponse} CallTraceResponse
 * @typedef {import('../../src/server/inspector/api-types.js').CallRequestResponse} CallRequestResponse
 * @typedef {import('../../src/server/inspector/api-types.js').StateResponse} StateResponse
 * @typedef {{ appName: string, userId: string, sessionId: string }} SessionKey
 * @typedef {{ signal?: AbortSignal }} Signalled
 * @typedef {{ status: number, detail: string, title?: string }} ProblemFields
 */
/**
 * An event of a run's stream (`POST /run_sse`), as ADK JSON: the parts the page reads.
 * @typedef {{
 *   author?: string,
 *   partial?: boolean,
 *   content?: { role?: string, parts?: Array<{ text?: string, thought?: boolean,
 *     functionCall?: { name: string }, functionResponse?: { name: string } }> },
 *   errorMessage?: string,
 * }} RunEvent
 */
/**
 * A `data:` message of a run's stream: an event, or the problem that ended the run (ADK's
 * clients read its `error`).
 * @typedef {RunEvent & { error?: string, status?: number, title?: string }} RunMessage
 */

const TOKEN_KEY = 'orrery.inspector.token';
const BASE = '/inspector/api';

export class ApiError extends Error {
  /** @param {ProblemFields} fields */
  constructor({ status, detail, title }) {
    super(detail);
    this.name = 'ApiError';
    this.status = status;
    this.title = title;
    this.detail = detail;
  }
}

export class AuthRequiredError extends ApiError {
  /** @param {ProblemFields} options */
  constructor(options) {
    super(options);
    this.name = 'AuthRequiredError';
  }
}

export function getToken() {
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

/** @param {string} token */
export function setToken(token) {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

/** @returns {Record<string, string>} */
function authHeaders() {
  const token = getToken();
  return token ? { authorization: `Bearer ${token}` } : {};
}

/** @param {Response} response */
async function problemOf(response) {
  /** @type {{ detail?: unknown, title?: string }} */
  let problem = {};
  try {
    problem = await response.json();
  } catch {
    // Not problem JSON (a proxy's page): the status line says enough.
  }
  const detail =
    typeof problem?.detail === 'string' && problem.detail
      ? problem.detail
      : `${response.status} ${response.statusText || 'error'}`;
  const options = { status: response.status, detail, title: problem?.title };
  return response.status === 401 ? new AuthRequiredError(options) : new ApiError(options);
}

/**
 * The answer's JSON, of the type the caller names (an `api-types.ts` shape; not checked here:
 * the server and the page share those types).
 * @template Answer
 * @param {string} path
 * @param {{ method?: string, body?: unknown, signal?: AbortSignal }} [options]
 * @returns {Promise<Answer>}
 */
export async function requestJson(path, { method = 'GET', body, signal } = {}) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json', ...authHeaders() };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${BASE}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  });
  if (!response.ok) throw await problemOf(response);
  return response.json();
}

/** @param {Record<string, string | number | null | undefined>} parameters */
function query(parameters) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) {
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** @param {SessionKey} key */
export function sessionPath(key) {
  const part = encodeURIComponent;
  return `/apps/${part(key.appName)}/users/${part(key.userId)}/sessions/${part(key.sessionId)}`;
}

/**
 * Splits an SSE body into its `data:` payloads, parsed as JSON (of the type the caller names).
 * @template Message
 * @param {ReadableStream<BufferSource>} body
 * @param {(message: Message) => void} onMessage
 */
async function readEventStream(body, onMessage) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replace(/\r\n?/g, '\n');
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data) onMessage(JSON.parse(data));
      end = buffer.indexOf('\n\n');
    }
  }
}

/** The server's `/info` answer, asked once. @type {Promise<InspectorInfo> | undefined} */
let infoAnswer;

export const api = {
  /**
   * @param {{ app?: string, user?: string, limit?: number, signal?: AbortSignal }} [options]
   * @returns {Promise<SessionsResponse>}
   */
  sessions({ app, user, limit, signal } = {}) {
    return requestJson(`/sessions${query({ app, user, limit })}`, { signal });
  },
  /**
   * @param {SessionKey} key
   * @param {{ afterSeq?: number, limit?: number, signal?: AbortSignal }} [options]
   * @returns {Promise<TimelineResponse>}
   */
  timeline(key, { afterSeq, limit, signal } = {}) {
    return requestJson(`${sessionPath(key)}/timeline${query({ afterSeq, limit })}`, { signal });
  },
  /**
   * @param {SessionKey} key
   * @param {number} seq
   * @param {Signalled} [options]
   * @returns {Promise<StoredEventResponse>}
   */
  event(key, seq, { signal } = {}) {
    return requestJson(`${sessionPath(key)}/events/${seq}`, { signal });
  },
  /**
   * @param {SessionKey} key
   * @param {{ offset?: number, limit?: number, signal?: AbortSignal }} [options]
   * @returns {Promise<ViewResponse>}
   */
  view(key, { offset, limit, signal } = {}) {
    return requestJson(`${sessionPath(key)}/view${query({ offset, limit })}`, { signal });
  },
  /**
   * @param {SessionKey} key
   * @param {Signalled} [options]
   * @returns {Promise<ChartResponse>}
   */
  chart(key, { signal } = {}) {
    return requestJson(`${sessionPath(key)}/chart`, { signal });
  },
  /**
   * What this server offers the page: page size, whether it runs the agent (`InspectorInfo`).
   * Asked once per page load (a failure is asked again).
   * @returns {Promise<InspectorInfo>}
   */
  info() {
    infoAnswer ??= requestJson('/info').catch((error) => {
      infoAnswer = undefined;
      throw error;
    });
    return infoAnswer;
  },
  /**
   * @param {SessionKey} key
   * @param {{ offset?: number, limit?: number, order?: 'asc' | 'desc', signal?: AbortSignal }} [options]
   * @returns {Promise<CallTraceResponse>}
   */
  calls(key, { offset, limit, order, signal } = {}) {
    return requestJson(`${sessionPath(key)}/calls${query({ offset, limit, order })}`, { signal });
  },
  /**
   * @param {SessionKey} key
   * @param {number} call
   * @param {{ offset?: number, limit?: number, signal?: AbortSignal }} [options]
   * @returns {Promise<CallRequestResponse>}
   */
  callRequest(key, call, { offset, limit, signal } = {}) {
    return requestJson(`${sessionPath(key)}/calls/${call}/request${query({ offset, limit })}`, {
      signal,
    });
  },
  /**
   * @param {SessionKey} key
   * @param {Signalled} [options]
   * @returns {Promise<StateResponse>}
   */
  state(key, { signal } = {}) {
    return requestJson(`${sessionPath(key)}/state`, { signal });
  },
  /**
   * Sends a message to the session's agent through the server's `POST /run_sse` (streaming:
   * partial events carry the answer's text as it comes) and calls `onEvent` with each event
   * (ADK JSON). A problem inside the stream (`error` set) is thrown as an `ApiError`.
   * @param {SessionKey} key
   * @param {{ text: string, signal?: AbortSignal, onEvent: (event: RunEvent) => void }} options
   */
  async run(key, { text, signal, onEvent }) {
    const response = await fetch('/run_sse', {
      method: 'POST',
      headers: {
        accept: 'text/event-stream',
        'content-type': 'application/json',
        ...authHeaders(),
      },
      body: JSON.stringify({
        appName: key.appName,
        userId: key.userId,
        sessionId: key.sessionId,
        newMessage: { role: 'user', parts: [{ text }] },
        streaming: true,
      }),
      signal,
    });
    if (!response.ok) throw await problemOf(response);
    if (!response.body) return;
    /** @type {ApiError | undefined} */
    let failure;
    await readEventStream(response.body, (/** @type {RunMessage} */ message) => {
      if (typeof message?.error === 'string' && typeof message.status === 'number') {
        failure = new ApiError({
          status: message.status,
          detail: message.error,
          title: message.title,
        });
      } else {
        onEvent(message);
      }
    });
    if (failure) throw failure;
  },
  /**
   * @param {ReplayRequest} body
   * @param {Signalled} [options]
   * @returns {Promise<ReplayResponse>}
   */
  replay(body, { signal } = {}) {
    return requestJson('/replay', { method: 'POST', body, signal });
  },
  /**
   * Follows a session's SSE stream until it ends or `signal` aborts. `fetch` rather than
   * EventSource, because EventSource cannot send the Authorization header.
   * @param {SessionKey} key
   * @param {{ afterSeq?: number, signal?: AbortSignal, onMessage: (message: StreamMessage) => void }} options
   */
  async stream(key, { afterSeq, signal, onMessage }) {
    const response = await fetch(`${BASE}${sessionPath(key)}/stream${query({ afterSeq })}`, {
      headers: { accept: 'text/event-stream', ...authHeaders() },
      signal,
    });
    if (!response.ok) throw await problemOf(response);
    if (!response.body) return;
    await readEventStream(response.body, onMessage);
  },
};
