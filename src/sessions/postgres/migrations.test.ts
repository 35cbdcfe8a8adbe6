import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../events/types.js';
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

  it('starts at once on several fresh schemas of one database', async () => {
    const schemas = [fixture.newSchema(), fixture.newSchema(), fixture.newSchema()];
    const pools = Array.from({ length: 6 }, () => new pg.Pool({ connectionString: url, max: 1 }));
    try {
      const services = pools.map(
        (pool, index) => new PostgresSessionService({ pool, schema: schemas[index % 3]! }),
      );
      await Promise.all(services.map((service) => service.migrate()));
      for (const schema of schemas) expect(await versions(schema)).toHaveLength(migrations.length);
      await Promise.all(
        services.map((service, index) =>
          service.createSession({ appName: 'a', userId: 'u', sessionId: `s${index}` }),
        ),
      );
      const listed = await services[0]!.listSessions({ appName: 'a', userId: 'u' });
      expect(listed.map((session) => session.sessionId).sort()).toEqual(['s0', 's3']);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('upgrades a version 1 schema (jsonb events) without losing events or key order', async () => {
    const schema = fixture.newSchema();
    await migrate({ pool: fixture.pool, schema, migrations: migrations.slice(0, 1) });
    const event: NewEvent = {
      id: 'e1',
      invocationId: 'i1',
      author: 'user',
      timestamp: 1_700_000_000.25,
      actions: {},
      content: { role: 'user', parts: [{ text: 'from version 1' }] },
    };
    await fixture.pool.query(
      `INSERT INTO "${schema}".orrery_sessions (app_name, user_id, id, last_seq, event_count, created_at, updated_at)
       VALUES ('a', 'u', 's', 1, 1, 0, 0)`,
    );
    await fixture.pool.query(
      `INSERT INTO "${schema}".orrery_events (app_name, user_id, session_id, seq, event_id,
         invocation_id, author, timestamp, is_compaction, event)
       VALUES ('a', 'u', 's', 1, 'e1', 'i1', 'user', 1700000000.25, false, $1::jsonb)`,
      [JSON.stringify(event)],
    );
    const service = new PostgresSessionService({ pool: fixture.pool, schema });
    const key = { appName: 'a', userId: 'u', sessionId: 's' };
    expect((await service.getSession({ ...key, events: 'full' }))?.events).toEqual([
      { ...event, seq: 1 },
    ]);
    expect(await versions(schema)).toHaveLength(migrations.length);
    // From version 2 on, the stored text is kept: NUL characters and key order survive.
    const stored = await service.appendEvent({
      ...key,
      event: { ...event, id: 'e2', customMetadata: { zeta: 1, alpha: 'a\u0000b' } },
    });
    const [read] = (await service.listEvents({ ...key, afterSeq: 1 })).events;
    expect(read).toStrictEqual(stored);
    expect(Object.keys(read?.customMetadata ?? {})).toEqual(['zeta', 'alpha']);
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
    expect((error as Error).message).toContain('PostgreSQL migration of schema');
    expect((error as Error).message).toContain('ECONNREFUSED');
    expect((error as SessionStoreError).retryable).toBe(true);
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
