/** orrery/sqlite: the embedded SQLite session store (needs the optional `better-sqlite3`). */
export { loadSqliteDriver } from './load-driver.js';
export {
  migrateSqlite,
  SQLITE_MIGRATIONS,
  SQLITE_SCHEMA_VERSION,
  type SqliteMigration,
} from './migrations.js';
export { rebuildSqliteSearch } from './search-index.js';
export {
  DEFAULT_SQLITE_PATH,
  type SqliteSessionLogger,
  SqliteSessionService,
  type SqliteSessionServiceOptions,
} from './sqlite-session-service.js';
