/**
 * The store a command works on: SQLite by default (`--db PATH`, `ORRERY_DB`, default
 * `./.orrery/orrery.db`), PostgreSQL for a `postgres://` or `postgresql://` URL. The store is
 * opened (and reached) before anything is written, so an unreachable database writes nothing.
 */
import { existsSync } from 'node:fs';
import { SessionStoreError } from '../sessions/errors.js';
import type { SessionService } from '../sessions/session-service.js';
import { errorMessage } from '../util/error-message.js';
import { CliUsageError } from './errors.js';
import type { CliIo } from './io.js';

export const DEFAULT_DB_PATH = './.orrery/orrery.db';

export interface StoreOptions {
  db?: string;
  app: string;
  user: string;
}

/**
 * `--db`, else `ORRERY_DB`, else the default. An empty value and a URL of any scheme other than
 * PostgreSQL's are usage errors: they would otherwise open a SQLite file named after them.
 */
export function resolveDb(options: { db?: string; io: CliIo }): string {
  const [source, db] =
    options.db !== undefined
      ? ['--db', options.db]
      : options.io.env.ORRERY_DB !== undefined
        ? ['ORRERY_DB', options.io.env.ORRERY_DB]
        : ['default', DEFAULT_DB_PATH];
  if (db.trim() === '') {
    throw new CliUsageError({
      field: source,
      message: `${source} is empty: pass a SQLite file path or a postgres:// URL${source === 'ORRERY_DB' ? ', or unset ORRERY_DB for the default ./.orrery/orrery.db' : ''}`,
    });
  }
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(db)?.[1];
  if (scheme !== undefined && !isPostgresUrl(db) && scheme.toLowerCase() !== 'file') {
    throw new CliUsageError({
      field: source,
      message: `${source} ${JSON.stringify(redact(db))} is a ${scheme}:// URL: orrery stores sessions in SQLite (a file path) or PostgreSQL (postgres:// or postgresql://)`,
    });
  }
  return db;
}

export function isPostgresUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//i.test(db);
}

/**
 * A PostgreSQL URL's `schema` query parameter is orrery's, not the driver's: the schema that
 * holds orrery's tables (default `public`), so several stores can share one database.
 */
export function postgresStoreOptions(db: string): { connectionString: string; schema?: string } {
  let url: URL;
  try {
    url = new URL(db);
  } catch {
    // Not `Invalid URL` alone, and not the URL itself: it may hold a password.
    throw new SessionStoreError({
      message: `cannot open the session store ${redact(db)}: not a valid PostgreSQL URL`,
    });
  }
  const schema = url.searchParams.get('schema');
  if (schema === null) return { connectionString: db };
  url.searchParams.delete('schema');
  return { connectionString: url.toString(), schema };
}

/**
 * Opens the store and checks it answers (a cheap scoped read). `mustExist`: commands that only
 * read or change existing sessions never create a SQLite file, so a mistyped `--db` is an error
 * naming the path, not an empty new store that answers "no sessions".
 */
export async function openStore(options: {
  db: string;
  appName: string;
  userId: string;
  mustExist?: boolean;
  /** SQLite only: this process alone opens the file (`SqliteSessionServiceOptions.exclusive`). */
  exclusive?: boolean;
}): Promise<SessionService> {
  if (
    options.mustExist &&
    !isPostgresUrl(options.db) &&
    options.db !== ':memory:' &&
    !options.db.startsWith('file:') &&
    !existsSync(options.db)
  ) {
    throw new SessionStoreError({
      message: `no session store at ${options.db}: nothing was imported or run there yet (check --db or ORRERY_DB)`,
    });
  }
  if (options.exclusive && (isPostgresUrl(options.db) || options.db === ':memory:')) {
    throw new SessionStoreError({
      message: `--exclusive holds a SQLite file's lock; ${redact(options.db)} is not a SQLite file`,
    });
  }
  let service: SessionService;
  if (isPostgresUrl(options.db)) {
    const { PostgresSessionService } = await import('../sessions/postgres/index.js');
    service = new PostgresSessionService(postgresStoreOptions(options.db));
  } else {
    const { SqliteSessionService } = await import('../sessions/sqlite/index.js');
    service = new SqliteSessionService({
      path: options.db,
      ...(options.exclusive ? { exclusive: true } : {}),
    });
  }
  try {
    await service.listSessions({ appName: options.appName, userId: options.userId });
  } catch (error) {
    await service.close?.().catch(() => undefined);
    if (SessionStoreError.isInstance(error)) throw error;
    throw new SessionStoreError({
      message: `cannot open the session store ${redact(options.db)}: ${errorMessage(error)}`,
      cause: error,
    });
  }
  return service;
}

/** A database URL without its password, for messages. */
export function redact(db: string): string {
  // Up to the authority's last `@`: a password may hold an `@` of its own.
  return db.replace(/(\/\/[^:/@]*:)[^/?#]*@/, '$1***@').replace(/([?&]password=)[^&]*/gi, '$1***');
}
