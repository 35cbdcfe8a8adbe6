import { expect, it } from 'vitest';
import { InvalidEventError } from '../../events/errors.js';
import { userTextEvent } from '../../testing/event-builders.js';
import { describeImportSessionCases } from '../test-helpers/import-session-cases.js';
import { PostgresSessionService } from './postgres-session-service.js';
import { describePostgres, useSchemaFixture } from './test-helpers/pg-test-env.js';

describePostgres('PostgreSQL importSession', (url) => {
  const fixture = useSchemaFixture(url);
  describeImportSessionCases({
    name: 'PostgresSessionService',
    // A schema per service: each case starts with no sessions.
    createService: async () =>
      new PostgresSessionService({ pool: fixture.pool, schema: fixture.newSchema() }),
  });
});

describePostgres('PostgreSQL importSession, jsonb state', (url) => {
  const fixture = useSchemaFixture(url);
  it('refuses a NUL character in an event state delta as appendEvent does, naming its position', async () => {
    const service = new PostgresSessionService({ pool: fixture.pool, schema: fixture.schema });
    const events = [
      userTextEvent({ text: 'a' }),
      { ...userTextEvent({ text: 'b' }), actions: { stateDelta: { note: 'x\u0000y' } } },
    ];
    const key = { appName: 'app', userId: 'alice', sessionId: 'nul' };
    const error = await service
      .importSession({ ...key, events })
      .catch((caught: unknown) => caught);
    expect(InvalidEventError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^events\[1\]\.actions\.stateDelta\["note"\]: holds a NUL/,
    );
    expect(await service.getSession(key)).toBeUndefined();
    await service.close();
  });
});
