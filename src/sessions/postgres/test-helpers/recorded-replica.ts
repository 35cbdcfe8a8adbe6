/**
 * Two stores on one test schema, as two replicas of a server would be: `replica` on a pool whose
 * statements are recorded (`sent`), `other` on a pool of its own. The lease-and-statement tests
 * check what `replica` sends and what `other` reads back.
 */
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import type { SessionKey } from '../../../events/types.js';
import { PostgresSessionService } from '../postgres-session-service.js';
import { recordStatements, type SentStatement } from './record-statements.js';

export interface RecordedReplica {
  readonly pool: pg.Pool;
  readonly replica: PostgresSessionService;
  readonly other: PostgresSessionService;
  readonly sent: SentStatement[];
  /** The first text of each stored event of the session, as `other` reads it. */
  storedTexts(key: SessionKey): Promise<(string | undefined)[] | undefined>;
}

export function useRecordedReplica(options: {
  url: string;
  schema: string;
  /** The recorded pool's `application_name` (so a test can find its backends). */
  applicationName?: string;
}): RecordedReplica {
  let stores: Omit<RecordedReplica, 'storedTexts'> | undefined;
  beforeAll(() => {
    const pool = new pg.Pool({
      connectionString: options.url,
      max: 4,
      application_name: options.applicationName,
    });
    stores = {
      pool,
      sent: recordStatements(pool),
      replica: new PostgresSessionService({ pool, schema: options.schema }),
      other: new PostgresSessionService({ connectionString: options.url, schema: options.schema }),
    };
  });
  afterAll(async () => {
    if (!stores) return;
    await stores.replica.close();
    await stores.other.close();
    await stores.pool.end();
  });
  const current = () => {
    if (!stores) throw new Error('the recorded replica is used before beforeAll');
    return stores;
  };
  return {
    get pool() {
      return current().pool;
    },
    get replica() {
      return current().replica;
    },
    get other() {
      return current().other;
    },
    get sent() {
      return current().sent;
    },
    async storedTexts(key) {
      const session = await current().other.getSession({ ...key, events: 'full' });
      return session?.events.map((event) => event.content?.parts?.[0]?.text);
    },
  };
}
