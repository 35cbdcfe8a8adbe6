/**
 * PostgreSQL test setup: the server comes from `ORRERY_TEST_PG_URL`. Without it the tests are
 * skipped with a note, except in CI (`CI=true`) where they fail: a silent skip would hide them.
 * Every suite works in its own random schema, dropped afterwards.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { quoteIdentifier } from '../migrations.js';

export const testPostgresUrl = process.env.ORRERY_TEST_PG_URL;

const howToRun =
  'set ORRERY_TEST_PG_URL to run them, e.g. ORRERY_TEST_PG_URL=postgres://postgres@127.0.0.1:5432/test npm test';

/** `describe` for tests that need PostgreSQL. */
export function describePostgres(name: string, body: (url: string) => void): void {
  if (testPostgresUrl) {
    describe(name, () => body(testPostgresUrl));
    return;
  }
  if (process.env.CI === 'true') {
    describe(name, () => {
      it('needs ORRERY_TEST_PG_URL in CI', () => {
        throw new Error(
          `ORRERY_TEST_PG_URL is not set but CI=true: PostgreSQL tests must run in CI; ${howToRun}`,
        );
      });
    });
    return;
  }
  console.warn(`[orrery] skipping PostgreSQL tests '${name}': ${howToRun}`);
  // The body is not run: suites may parse the URL while they are declared.
  describe.skip(name, () => {
    it('needs ORRERY_TEST_PG_URL', () => {});
  });
}

export function randomSchemaName(): string {
  return `orrery_test_${randomBytes(6).toString('hex')}`;
}

export async function dropSchema(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`);
}

export interface SchemaFixture {
  /** An admin pool for direct SQL (corrupting rows, reading versions). */
  readonly pool: pg.Pool;
  /** A fresh schema name for this suite; dropped in `afterAll` along with `extraSchemas`. */
  readonly schema: string;
  /** Another fresh schema, dropped in `afterAll`. */
  newSchema(): string;
}

/** Registers `beforeAll`/`afterAll` hooks that create a pool and drop every schema used. */
export function useSchemaFixture(url: string): SchemaFixture {
  const schemas: string[] = [randomSchemaName()];
  let pool: pg.Pool | undefined;
  beforeAll(() => {
    pool = new pg.Pool({ connectionString: url, max: 4 });
  });
  afterAll(async () => {
    if (!pool) return;
    for (const schema of schemas) await dropSchema(pool, schema);
    await pool.end();
  });
  return {
    get pool() {
      if (!pool) throw new Error('the schema fixture is used before beforeAll');
      return pool;
    },
    schema: schemas[0] as string,
    newSchema() {
      const schema = randomSchemaName();
      schemas.push(schema);
      return schema;
    },
  };
}
