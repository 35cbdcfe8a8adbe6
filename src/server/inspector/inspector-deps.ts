/**
 * What the inspector's routes share: the server's route dependencies, the inspector's own
 * options, and the checks every session route makes (the token may act as the user; any app of
 * the store may be read). See `docs/architecture.md#inspector`.
 */
import type { Context } from 'hono';
import type { SessionKey } from '../../events/types.js';
import type { RouteDeps, ServerEnv } from '../server-env.js';
import { checkUser } from '../session-access.js';
import type { ReplayRequest, ReplayResponse } from './api-types.js';
import type { CompactionIndex } from './session-history.js';

/**
 * Replays a transcript for `POST /inspector/api/replay` as `orrery replay --json` does
 * (`inspectorReplay`, `inspector-replay.ts`, or the caller's own). Throws an `HttpProblem` (400)
 * naming the field for a bad transcript or setting. It runs in the server's thread: a long
 * replay blocks every other request (`createWorkerReplay` runs each in a worker).
 */
export type InspectorReplay = (options: {
  request: ReplayRequest;
  signal: AbortSignal;
}) => Promise<ReplayResponse>;

/**
 * A replay that takes the raw request body and parses, checks and replays it where it runs
 * (`createWorkerReplay` in `worker-replay.ts`: a worker thread, so the server's event loop stays
 * free). It stops when `signal` aborts (the client went away) and throws an `HttpProblem` for a
 * bad body (`parseReplayBody`'s).
 */
export interface InspectorBodyReplay {
  fromBody(options: { body: Uint8Array; signal: AbortSignal }): Promise<ReplayResponse>;
}

/** Default bound on replays running at once on one server. */
export const DEFAULT_MAX_CONCURRENT_REPLAYS = 2;
/** Default bound on replays running at once for one caller (token). */
export const DEFAULT_MAX_CONCURRENT_REPLAYS_PER_USER = 1;
/** `Retry-After` (seconds) of a replay refused for the concurrency bound. */
export const REPLAY_RETRY_AFTER_SECONDS = 5;

export interface InspectorOptions {
  /**
   * What `POST /inspector/api/replay` runs. Default: the server's own worker replay
   * (`createWorkerReplay()`, a worker thread per replay, started on the first request);
   * `false` turns the route off (it answers 501).
   */
  replay?: InspectorReplay | InspectorBodyReplay | false;
  /** `POST /inspector/api/replay` body limit. Default `DEFAULT_MAX_REPLAY_BYTES` (32 MiB). */
  maxReplayBytes?: number;
  /** Replays running at once on this server; more get a 429. Default 2. */
  maxConcurrentReplays?: number;
  /** Replays running at once for one token (or for everyone without tokens). Default 1. */
  maxConcurrentReplaysPerUser?: number;
  /**
   * Set when the server only reads (`orrery inspect`): the reason the page shows instead of its
   * chat box. Without it, the page offers a chat box on the served app's sessions.
   */
  readOnlyReason?: string;
  /** The page's folder. Default: the package's `assets/inspector/`. */
  assetsRoot?: string;
  /** How often a stream reads the store for new events. Default 500 ms. */
  streamPollMs?: number;
  /** A stream with nothing to send writes a comment this often. Default 15 s. */
  streamKeepAliveMs?: number;
}

export interface InspectorDeps extends RouteDeps {
  options: InspectorOptions;
  /** Aborts when the server starts shutting down: streams end then. */
  shutdownSignal: AbortSignal;
  compactions: CompactionIndex;
}

/** The key of `.../apps/:app/users/:user/sessions/:session/...`; another user's is a 404. */
export function inspectorKeyOf(context: Context<ServerEnv>): SessionKey {
  const appName = context.req.param('app') ?? '';
  const userId = context.req.param('user') ?? '';
  const sessionId = context.req.param('session') ?? '';
  checkUser(context, userId, sessionId);
  return { appName, userId, sessionId };
}

/**
 * A 404 naming the session unless it exists: one event read (a missing session is a
 * `SessionNotFoundError` in every store), not the view `getSession` would load.
 */
export async function requireSession(
  deps: InspectorDeps,
  key: SessionKey,
  signal: AbortSignal,
): Promise<void> {
  await deps.sessionService.listEvents({ ...key, limit: 1, signal });
}
