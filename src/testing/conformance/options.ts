import type { SessionService } from '../../sessions/session-service.js';

export interface SessionServiceConformanceOptions {
  /** Shown in the describe block. */
  name: string;
  /** A fresh (or at least isolated) service for each test. */
  createService: () => Promise<SessionService>;
  /** Runs after each test, after `service.close()`: drop files, databases, pools. */
  cleanup?: (service: SessionService) => Promise<void>;
  /**
   * Whether the store implements the optional `acquireLease` (default `true`): `false` skips the
   * session-lease tests, for a store that leaves cross-process serialization out.
   */
  leases?: boolean;
  /**
   * Whether the store implements the optional `searchEvents` (default `true`): `false` skips
   * the history-search tests.
   */
  search?: boolean;
  /**
   * Whether the store implements the optional `listAllSessions` (default `true`): `false` skips
   * the listing-across-users tests.
   */
  listAllSessions?: boolean;
}
