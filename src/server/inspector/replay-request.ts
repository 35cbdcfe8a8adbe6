/**
 * `POST /inspector/api/replay`'s body, read and checked, and the replay's errors as problems.
 * Shared by the route (a replay run in the server's thread) and the replay worker
 * (`replay-worker.ts`, which parses the body off the event loop), so both refuse the same
 * requests with the same 400s.
 */
import { z } from 'zod';
import { InvalidConfigError } from '../../compaction/errors.js';
import { ContextOverflowError, MessageTooLargeError } from '../../runtime/errors.js';
import { HttpProblem } from '../errors.js';
import { badRequest } from '../problem.js';
import { parseBody, parseJsonText } from '../request-body.js';
import type { ReplayRequest } from './api-types.js';

/**
 * The sliding window re-reads `overlap` invocations every `interval` invocations, so a replay
 * costs about `1 + overlap / interval` summaries of each event: bounded by this ratio, the
 * replay stays linear in the transcript's events whatever its settings
 * (docs/server-limits.md#replay-settings).
 */
export const MAX_REPLAY_OVERLAP_PER_INTERVAL = 4;

const count = (minimum: number) =>
  z.int('must be an integer').min(minimum, `must be >= ${minimum}`).optional();

const ReplayRequestSchema: z.ZodType<ReplayRequest> = z.strictObject({
  transcript: z.string('must be the transcript text').min(1, 'must not be empty'),
  fileName: z.string('must be a string').min(1, 'must not be empty').optional(),
  threshold: count(0),
  retention: count(0),
  interval: count(0),
  overlap: count(0),
  maxRequestBytes: count(1),
  summarizer: z
    .enum(['digest', 'none'], 'must be "digest" or "none" (model summarizers need a key)')
    .optional(),
  price: z
    .string('must be a string')
    .regex(/^[a-z][a-z0-9-]*:\S+$/i, "must be 'provider:model', e.g. anthropic:claude-sonnet-4-5")
    .optional(),
});

/** A compaction setting's name in the request, from the config field an error names. */
const REQUEST_FIELDS: Readonly<Record<string, string>> = {
  tokenThreshold: 'threshold',
  eventRetentionSize: 'retention',
  compactionInterval: 'interval',
  overlapSize: 'overlap',
  maxRequestBytes: 'maxRequestBytes',
};

/** Settings no replay can run in time linear in its events: a 400 naming the field. */
export function checkReplaySettings(request: ReplayRequest): void {
  const { interval, overlap } = request;
  if (request.summarizer === 'none' || interval === undefined || interval < 1) return;
  if (overlap !== undefined && overlap > interval * MAX_REPLAY_OVERLAP_PER_INTERVAL) {
    throw badRequest(
      `overlap: ${overlap} is over ${MAX_REPLAY_OVERLAP_PER_INTERVAL} x interval (${interval}): each window would re-summarize ${overlap} invocations, so the replay's time would grow with the square of the transcript; use an overlap of at most ${interval * MAX_REPLAY_OVERLAP_PER_INTERVAL} or a larger interval`,
      'overlap',
    );
  }
}

/** The request body's text as a checked `ReplayRequest` (400s name the field). */
export function parseReplayBody(text: string): ReplayRequest {
  const request = parseBody(ReplayRequestSchema, parseJsonText(text));
  checkReplaySettings(request);
  return request;
}

/**
 * A replay error that is the request's fault as the problem to answer (400 naming the field):
 * an invalid setting, or a byte ceiling no request of the transcript fits under.
 */
export function replayProblem(error: unknown): HttpProblem | undefined {
  if (HttpProblem.isInstance(error)) return error;
  if (InvalidConfigError.isInstance(error)) {
    const field = REQUEST_FIELDS[error.field] ?? error.field;
    return badRequest(`${field}: ${error.message}`, field, error);
  }
  if (MessageTooLargeError.isInstance(error) || ContextOverflowError.isInstance(error)) {
    return badRequest(
      `maxRequestBytes: the transcript has a request that cannot be brought under it: ${error.message}`,
      'maxRequestBytes',
      error,
    );
  }
  return undefined;
}
