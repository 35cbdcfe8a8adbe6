import { runSessionServiceConformance } from '../../testing/session-service-conformance.js';
import { PostgresSessionService } from './postgres-session-service.js';
import { describePostgres, useSchemaFixture } from './test-helpers/pg-test-env.js';

describePostgres('PostgresSessionService conformance', (url) => {
  // One schema for the suite (each conformance test works in its own random app name).
  const fixture = useSchemaFixture(url);
  runSessionServiceConformance({
    name: 'PostgresSessionService',
    createService: async () =>
      new PostgresSessionService({ pool: fixture.pool, schema: fixture.schema }),
  });
});

describePostgres('PostgresSessionService conformance, synchronousCommit off', (url) => {
  // Acknowledged before the WAL flush: every guarantee of the contract must still hold.
  const fixture = useSchemaFixture(url);
  runSessionServiceConformance({
    name: "PostgresSessionService (synchronousCommit: 'off')",
    createService: async () =>
      new PostgresSessionService({
        pool: fixture.pool,
        schema: fixture.schema,
        synchronousCommit: 'off',
      }),
  });
});
