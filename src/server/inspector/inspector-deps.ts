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
 * Replays a transcript for `POST /inspector/api/replay` as `orrery replay --json` does. Given by
 * the caller (the CLI gives its own): the server cannot import the importers (same layer).
 * Throws an `HttpProblem` (400) naming the field for a bad transcript or setting.
 */
export type InspectorReplay = (options: {
  request: ReplayRequest;
  signal: AbortSignal;
}) => Promise<ReplayResponse>;

export interface InspectorOptions {
  /** `POST /inspector/api/replay` answers 501 without one. */
  replay?: InspectorReplay;
  /** `POST /inspector/api/replay` body limit. Default `DEFAULT_MAX_REPLAY_BYTES` (32 MiB). */
  maxReplayBytes?: number;
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
