/** orrery/postgres: the PostgreSQL session store (needs the optional `pg`, loaded lazily). */
export { latestSchemaVersion, type Migration, migrate, migrations } from './migrations.js';
export {
  type PostgresSessionLogger,
  PostgresSessionService,
  type PostgresSessionServiceOptions,
} from './postgres-session-service.js';
export type { SynchronousCommit } from './synchronous-commit.js';
