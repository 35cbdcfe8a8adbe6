import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { SessionStoreError } from '../errors.js';
import { latestSchemaVersion, type Migration, migrate, migrations } from './migrations.js';
import { PostgresSessionService } from './postgres-session-service.js';
import { describePostgres, useSchemaFixture } from './test-helpers/pg-test-env.js';

describePostgres('PostgreSQL migrations', (url) => {
  const fixture = useSchemaFixture(url);

  async function versions(schema: string) {
    const result = await fixture.pool.query<{ version: number; name: string }>(
      `SELECT version, name FROM "${schema}".orrery_schema_migrations ORDER BY version`,
    );
    return result.rows;
  }

  it('creates the schema and records every migration', async () => {
    const schema = fixture.newSchema();
    const service = new PostgresSessionService({ pool: fixture.pool, schema });
    await service.migrate();
    expect(await versions(schema)).toEqual(
      migrations.map((migration) => ({ version: migration.version, name: migration.name })),
    );
    await service.migrate(); // idempotent
    expect(await versions(schema)).toHaveLength(migrations.length);
  });

  it('applies each migration once when many processes start at the same time', async () => {
    const schema = fixture.newSchema();
    // Separate pools: separate connections racing for the advisory lock.
    const pools = Array.from({ length: 6 }, () => new pg.Pool({ connectionString: url, max: 1 }));
    try {
      const services = pools.map((pool) => new PostgresSessionService({ pool, schema }));
      await Promise.all(services.map((service) => service.migrate()));
      expect(await versions(schema)).toHaveLength(migrations.length);
      await services[0]?.createSession({ appName: 'a', userId: 'u', sessionId: 's' });
      expect(
        await services[5]?.getSession({ appName: 'a', userId: 'u', sessionId: 's' }),
      ).toMatchObject({ sessionId: 's' });
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('refuses a database newer than the code, naming both versions', async () => {
    const schema = fixture.newSchema();
    await new PostgresSessionService({ pool: fixture.pool, schema }).migrate();
    await fixture.pool.query(
      `INSERT INTO "${schema}".orrery_schema_migrations (version, name) VALUES (99, 'from the future')`,
    );
    const service = new PostgresSessionService({ pool: fixture.pool, schema });
    const error = await service
      .getSession({ appName: 'a', userId: 'u', sessionId: 's' })
      .catch((caught: unknown) => caught);
    expect(SessionStoreError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('version 99');
    expect((error as Error).message).toContain(`version ${latestSchemaVersion}`);
  });

  it('rolls a failing migration back entirely and records nothing for it', async () => {
    const schema = fixture.newSchema();
    const broken: Migration = {
      version: latestSchemaVersion + 1,
      name: 'broken',
      statements: ['CREATE TABLE {schema}.half_done (id int)', 'SELECT no_such_function()'],
    };
    const error = await migrate({
      pool: fixture.pool,
      schema,
      migrations: [...migrations, broken],
    }).catch((caught: unknown) => caught);
    expect(SessionStoreError.isInstance(error)).toBe(true);
    expect(await versions(schema)).toHaveLength(migrations.length);
    const table = await fixture.pool.query('SELECT to_regclass($1) AS name', [
      `"${schema}".half_done`,
    ]);
    expect(table.rows[0].name).toBe(null);
  });
});

describe('PostgreSQL store module', () => {
  it('reports an unreachable server as a SessionStoreError', async () => {
    const service = new PostgresSessionService({
      connectionString: 'postgres://postgres@127.0.0.1:1/none',
    });
    const error = await service
      .loadView({ appName: 'a', userId: 'u', sessionId: 's' })
      .catch((caught: unknown) => caught);
    await service.close();
    expect(SessionStoreError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('Cannot connect to PostgreSQL');
  });

  it('loads pg only lazily (no runtime import of pg in the library files)', async () => {
    const folder = dirname(fileURLToPath(import.meta.url));
    const files = (await readdir(folder)).filter(
      (file) => file.endsWith('.ts') && !file.endsWith('.test.ts'),
    );
    expect(files).toContain('postgres-session-service.ts');
    for (const file of files) {
      const source = await readFile(join(folder, file), 'utf8');
      const staticImports = source.match(/^import (?!type )[^;]*from 'pg';/gm) ?? [];
      expect({ file, staticImports }).toEqual({ file, staticImports: [] });
    }
  });
});
