/** What every handler may read from the request context, and what the routes share. */
import type { Logger } from 'pino';
import type { EventsSummarizer } from '../compaction/types.js';
import type { Runner } from '../runtime/turn/runner.js';
import type { SessionService } from '../sessions/session-service.js';
import type { Principal } from './auth.js';
import type { InFlightRuns } from './in-flight.js';

export interface ServerEnv {
  Variables: {
    requestId: string;
    principal: Principal;
    /** The request's logger (carries the request id). */
    logger: Logger;
    /** Set by the routes that name a user, for the access log. */
    userId?: string;
  };
}

export interface RouteDeps {
  runner: Runner;
  sessionService: SessionService;
  inFlight: InFlightRuns;
  /** Writes the summaries of `POST .../compact`. */
  manualSummarizer: EventsSummarizer;
  /** `true` once a shutdown began: no new run starts, `/readyz` answers 503. */
  isDraining(): boolean;
  version: string;
}
