/**
 * The inspector over PostgreSQL: the same answers as over the in-memory store (listing across
 * users with a token's scope, every compaction span, the chart).
 */
import { expect, it } from 'vitest';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { PostgresSessionService } from '../../sessions/postgres/postgres-session-service.js';
import {
  describePostgres,
  useSchemaFixture,
} from '../../sessions/postgres/test-helpers/pg-test-env.js';
import type { SessionService } from '../../sessions/session-service.js';
import type { ChartResponse, SessionsResponse, TimelineResponse } from './api-types.js';
import {
  APP,
  buildSession,
  inspectorFixture,
  TOKEN_ALICE,
  TOKEN_BOB,
  TWO_COMPACTIONS,
} from './test-helpers/inspector-fixture.js';

async function answers(service: SessionService) {
  await buildSession(service, { appName: APP, userId: 'bob', sessionId: 'b1' }, [
    { user: 'bob asks' },
    { model: 'bob is answered' },
  ]);
  await buildSession(service, { appName: APP, userId: 'alice', sessionId: 'a2' }, TWO_COMPACTIONS);
  const fixture = inspectorFixture({ service, tokens: true });
  const get = async <T>(path: string, token: string) => {
    const response = await fixture.request(`/inspector/api${path}`, { token });
    expect(response.status, path).toBe(200);
    return (await response.json()) as T;
  };
  const base = `/apps/${APP}/users/alice/sessions/a2`;
  const alice = await get<SessionsResponse>('/sessions', TOKEN_ALICE);
  const bob = await get<SessionsResponse>('/sessions', TOKEN_BOB);
  const timeline = await get<TimelineResponse>(`${base}/timeline?limit=5`, TOKEN_ALICE);
  const chart = await get<ChartResponse>(`${base}/chart`, TOKEN_ALICE);
  const hidden = await fixture.request(`/inspector/api${base}/timeline`, { token: TOKEN_BOB });
  return {
    alice: alice.sessions.map(({ lastUpdateTime: _time, ...row }) => row),
    bob: bob.sessions.map((row) => row.sessionId),
    timeline: {
      ...timeline,
      events: timeline.events.map(({ timestamp: _time, ...event }) => event),
    },
    chart,
    hidden: hidden.status,
  };
}

describePostgres('the inspector over PostgreSQL', (url) => {
  const fixture = useSchemaFixture(url);

  it('answers as over the in-memory store', async () => {
    const postgres = new PostgresSessionService({ pool: fixture.pool, schema: fixture.schema });
    const expected = await answers(new InMemorySessionService());
    const actual = await answers(postgres);
    expect(actual).toEqual(expected);
    expect(actual.alice).toHaveLength(1);
    expect(actual.alice[0]).toMatchObject({ eventCount: 19, compactionCount: 2 });
    expect(actual.bob).toEqual(['b1']);
    expect(actual.timeline.compactions).toHaveLength(2);
    expect(actual.hidden).toBe(404);
  });
});
