export { latestSchemaVersion, type Migration, migrate, migrations } from './migrations.js';
export {
  PostgresSessionService,
  type PostgresSessionServiceOptions,
} from './postgres-session-service.js';
