/**
 * `POST /inspector/api/replay`: a transcript replayed with the settings given, answered with the
 * JSON `orrery replay --json` prints. Nothing is stored. Its body limit is its own (a transcript
 * is larger than any other request): create-server exempts this path from the global one.
 */
import type { Hono } from 'hono';
import { z } from 'zod';
import { InvalidConfigError } from '../../compaction/errors.js';
import { HttpProblem } from '../errors.js';
import { badRequest } from '../problem.js';
import { limitBody, parseBody, readJsonBody } from '../request-body.js';
import type { ServerEnv } from '../server-env.js';
import { DEFAULT_MAX_REPLAY_BYTES, INSPECTOR_API_PREFIX, type ReplayRequest } from './api-types.js';
import type { InspectorDeps } from './inspector-deps.js';

export const REPLAY_PATH = `${INSPECTOR_API_PREFIX}/replay`;

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
});

/** A compaction setting's name in the request, from the config field an error names. */
const REQUEST_FIELDS: Readonly<Record<string, string>> = {
  tokenThreshold: 'threshold',
  eventRetentionSize: 'retention',
  compactionInterval: 'interval',
  overlapSize: 'overlap',
  maxRequestBytes: 'maxRequestBytes',
};

export function registerReplayRoute(app: Hono<ServerEnv>, deps: InspectorDeps): void {
  const maxBytes = deps.options.maxReplayBytes ?? DEFAULT_MAX_REPLAY_BYTES;
  app.post(
    REPLAY_PATH,
    limitBody({
      maxBytes,
      detail: `the transcript is over this server's replay limit of ${maxBytes} bytes`,
      field: 'transcript',
    }),
    async (context) => {
      const replay = deps.options.replay;
      if (!replay) {
        throw new HttpProblem({
          status: 501,
          slug: 'not-implemented',
          title: 'Not Implemented',
          detail:
            'this server has no replay: createServer({ inspector: { replay } }) (orrery serve and orrery inspect give one)',
        });
      }
      const request = parseBody(ReplayRequestSchema, await readJsonBody(context));
      try {
        return context.json(await replay({ request, signal: context.req.raw.signal }));
      } catch (error) {
        if (InvalidConfigError.isInstance(error)) {
          const field = REQUEST_FIELDS[error.field] ?? error.field;
          throw badRequest(`${field}: ${error.message}`, field, error);
        }
        throw error;
      }
    },
  );
}
