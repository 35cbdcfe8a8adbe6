/**
 * better-sqlite3 is an optional dependency: it is imported on first use, so importing orrery
 * (or orrery/sqlite) never loads a native module.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { SessionStoreError } from '../errors.js';

export type SqliteDriver = typeof BetterSqlite3;

/** Loads better-sqlite3; `importDriver` is for tests. */
export async function loadSqliteDriver(
  importDriver: () => Promise<unknown> = () => import('better-sqlite3'),
): Promise<SqliteDriver> {
  let loaded: unknown;
  try {
    loaded = await importDriver();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const missing = code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
    throw new SessionStoreError({
      message: missing
        ? "SqliteSessionService needs the optional dependency 'better-sqlite3': npm install better-sqlite3"
        : `SqliteSessionService could not load 'better-sqlite3': ${(error as Error).message}`,
      cause: error,
    });
  }
  const driver = (loaded as { default?: unknown }).default ?? loaded;
  if (typeof driver !== 'function') {
    throw new SessionStoreError({
      message: "'better-sqlite3' did not export a Database constructor",
    });
  }
  return driver as SqliteDriver;
}
