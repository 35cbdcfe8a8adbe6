/**
 * `POST /inspector/api/replay`: a transcript replayed with the settings given, answered with the
 * JSON `orrery replay --json` prints. Nothing is stored. Its body limit is its own (a transcript
 * is larger than any other request): create-server exempts this path from the global one.
 * Replays running at once are bounded per server and per caller (docs/server-limits.md); a
 * body replay (`createWorkerReplay`'s worker) gets the raw body, so parsing it is off the event
 * loop too.
 */
import type { Context, Hono } from 'hono';
import { HttpProblem } from '../errors.js';
import { limitBody } from '../request-body.js';
import type { ServerEnv } from '../server-env.js';
import {
  DEFAULT_MAX_REPLAY_BYTES,
  INSPECTOR_API_PREFIX,
  type ReplayResponse,
} from './api-types.js';
import {
  DEFAULT_MAX_CONCURRENT_REPLAYS,
  DEFAULT_MAX_CONCURRENT_REPLAYS_PER_USER,
  type InspectorBodyReplay,
  type InspectorDeps,
  type InspectorReplay,
  REPLAY_RETRY_AFTER_SECONDS,
} from './inspector-deps.js';
import { isRefusal, ReplayLimiter, type ReplayRefusal } from './replay-limiter.js';
import { parseReplayBody, replayProblem } from './replay-request.js';
import { createWorkerReplay } from './worker-replay.js';

export const REPLAY_PATH = `${INSPECTOR_API_PREFIX}/replay`;

function isBodyReplay(
  replay: InspectorReplay | InspectorBodyReplay,
): replay is InspectorBodyReplay {
  return typeof replay !== 'function';
}

/** The caller a per-user bound counts: the token (its digest prefix), or everyone without tokens. */
function callerOf(context: Context<ServerEnv>): string {
  return context.var.principal?.tokenId ?? 'anonymous';
}

function tooManyReplays(refusal: ReplayRefusal): HttpProblem {
  const who = refusal.scope === 'user' ? 'for this token' : 'on this server';
  return new HttpProblem({
    status: 429,
    slug: 'too-many-replays',
    title: 'Too Many Requests',
    detail: `${refusal.limit} replay(s) already run ${who}: retry after ${REPLAY_RETRY_AFTER_SECONDS} s, once one has finished`,
    headers: { 'retry-after': String(REPLAY_RETRY_AFTER_SECONDS) },
    ownText: true,
  });
}

export function registerReplayRoute(app: Hono<ServerEnv>, deps: InspectorDeps): void {
  const { options } = deps;
  const maxBytes = options.maxReplayBytes ?? DEFAULT_MAX_REPLAY_BYTES;
  const limiter = new ReplayLimiter({
    maxConcurrent: options.maxConcurrentReplays ?? DEFAULT_MAX_CONCURRENT_REPLAYS,
    maxConcurrentPerUser:
      options.maxConcurrentReplaysPerUser ?? DEFAULT_MAX_CONCURRENT_REPLAYS_PER_USER,
  });
  // The server's own replay, made on first use: a server that never replays starts no worker.
  let own: InspectorBodyReplay | undefined;
  const ownReplay = (): InspectorBodyReplay => {
    own ??= createWorkerReplay();
    return own;
  };
  app.post(
    REPLAY_PATH,
    limitBody({
      maxBytes,
      detail: `the transcript is over this server's replay limit of ${maxBytes} bytes`,
      field: 'transcript',
    }),
    async (context) => {
      const replay = options.replay === false ? undefined : (options.replay ?? ownReplay());
      if (!replay) {
        throw new HttpProblem({
          status: 501,
          slug: 'not-implemented',
          title: 'Not Implemented',
          detail: 'replay is off on this server: createServer({ inspector: { replay: false } })',
        });
      }
      // Refused before the body is read: a refused replay costs nothing.
      const slot = limiter.acquire(callerOf(context));
      if (isRefusal(slot)) throw tooManyReplays(slot);
      try {
        return context.json(await runReplay(context, replay));
      } catch (error) {
        throw replayProblem(error) ?? error;
      } finally {
        slot.release();
      }
    },
  );
}

async function runReplay(
  context: Context<ServerEnv>,
  replay: InspectorReplay | InspectorBodyReplay,
): Promise<ReplayResponse> {
  const signal = context.req.raw.signal;
  if (isBodyReplay(replay)) {
    const body = new Uint8Array(await context.req.arrayBuffer());
    return replay.fromBody({ body, signal });
  }
  const request = parseReplayBody(await context.req.text());
  return replay({ request, signal });
}
