import pg from 'pg';
import { expect, it } from 'vitest';
import { InvalidArgumentError } from '../../events/errors.js';
import { userTextEvent } from '../../testing/event-builders.js';
import { SessionBusyError, SessionStoreError } from '../errors.js';
import { quoteIdentifier } from './migrations.js';
import { PostgresSessionService } from './postgres-session-service.js';
import { describePostgres, useSchemaFixture } from './test-helpers/pg-test-env.js';
import { recordStatements, type SentStatement } from './test-helpers/record-statements.js';
import { useRecordedReplica } from './test-helpers/recorded-replica.js';

describePostgres('PostgreSQL group commit: the turn statements of one loop turn', (url) => {
  const fixture = useSchemaFixture(url);
  const stores = useRecordedReplica({ url, schema: fixture.schema });
  const keyOf = (sessionId: string) => ({ appName: 'app', userId: 'u', sessionId });
  const words = () => stores.sent.map((statement) => statement.words);

  it("several sessions' takes, then their answers, each share one Query", async () => {
    const ids = ['g3', 'g1', 'g2', 'g4'];
    for (const id of ids) {
      await stores.replica.createSession(keyOf(id));
      await stores.replica.loadView(keyOf(id)); // cached: a take's rows are the whole read
    }
    stores.sent.length = 0;
    const taken = await Promise.all(
      ids.map((id) =>
        stores.replica.acquireLeaseAndAppend({
          ...keyOf(id),
          event: userTextEvent({ text: `question ${id}` }),
        }),
      ),
    );
    // The first batch on a connection prepares the statement there; then one Query.
    expect(words().filter((word) => !word.startsWith('PREPARE'))).toEqual([
      expect.stringMatching(/^EXECUTE orrery_/),
    ]);
    for (const [index, leased] of taken.entries()) {
      expect(leased.event?.seq).toBe(1);
      expect(leased.session?.events.map((event) => event.content?.parts?.[0]?.text)).toEqual([
        `question ${ids[index]}`,
      ]);
      // Held: nobody else takes it.
      await expect(
        stores.other.acquireLease({ ...keyOf(ids[index] ?? ''), waitMs: 0 }),
      ).rejects.toThrow(SessionBusyError);
    }
    stores.sent.length = 0;
    const answers = await Promise.all(
      taken.map((leased, index) =>
        stores.replica.appendEventAndReleaseLease({
          ...keyOf(ids[index] ?? ''),
          event: userTextEvent({ text: `answer ${ids[index]}` }),
          lease: leased.lease,
        }),
      ),
    );
    expect(words().filter((word) => !word.startsWith('PREPARE'))).toEqual([
      expect.stringMatching(/^EXECUTE orrery_/),
    ]);
    expect(answers.map((event) => event.seq)).toEqual([2, 2, 2, 2]);
    for (const id of ids) {
      expect(await stores.storedTexts(keyOf(id))).toEqual([`question ${id}`, `answer ${id}`]);
      // Released in the same commit.
      const free = await stores.other.acquireLease({ ...keyOf(id), waitMs: 0 });
      await free.release();
    }
    // The answers are in the view cache: the next take reads no event row.
    stores.sent.length = 0;
    const next = await stores.replica.acquireLeaseAndGetSession(keyOf('g1'));
    expect(next.session?.events.map((event) => event.seq)).toEqual([1, 2]);
    await next.lease.release();
  });

  it('text with quotes, backslashes and any script is stored as sent', async () => {
    const texts = [
      "it's a \\path\\ with 'quotes' and \"double\" ones",
      "E'\\x00' $$ dollar $$ ; EXECUTE x(1); --",
      'Ünïcödé, 漢字, emoji 🪐, right-to-left עברית',
    ];
    const ids = texts.map((_text, index) => `text-${index}`);
    for (const id of ids) await stores.replica.createSession(keyOf(id));
    stores.sent.length = 0;
    await Promise.all(
      ids.map((id, index) =>
        stores.replica.appendEvent({
          ...keyOf(id),
          event: userTextEvent({ text: texts[index] ?? '' }),
        }),
      ),
    );
    expect(words()).toContainEqual(expect.stringMatching(/^EXECUTE orrery_/));
    for (const [index, id] of ids.entries()) {
      expect(await stores.storedTexts(keyOf(id))).toEqual([texts[index]]);
    }
    // Found by search, so the search text went through as well.
    const found = await stores.other.searchEvents({ appName: 'app', userId: 'u', query: 'dollar' });
    expect(found.map((hit) => hit.sessionId)).toEqual(['text-1']);
  });

  it('one statement refused: the others commit, it alone fails with its own error', async () => {
    const ids = ['ok-1', 'refused', 'ok-2'];
    for (const id of ids) await stores.replica.createSession(keyOf(id));
    const schema = quoteIdentifier(fixture.schema);
    await fixture.pool.query(`CREATE FUNCTION ${schema}.refuse_one() RETURNS trigger
      LANGUAGE plpgsql AS $$ BEGIN
        IF NEW.session_id = 'refused' THEN RAISE EXCEPTION 'refused by the test'; END IF;
        RETURN NEW;
      END $$`);
    await fixture.pool.query(`CREATE TRIGGER refuse_one BEFORE INSERT ON ${schema}.orrery_events
      FOR EACH ROW EXECUTE FUNCTION ${schema}.refuse_one()`);
    try {
      stores.sent.length = 0;
      const results = await Promise.allSettled(
        ids.map((id) =>
          stores.replica.acquireLeaseAndAppend({
            ...keyOf(id),
            event: userTextEvent({ text: id }),
          }),
        ),
      );
      // The batch, rolled back whole, then each statement alone.
      const takes = words().filter((word) => /^(EXECUTE|WITH taken)/.test(word));
      expect(takes).toEqual([
        expect.stringMatching(/^EXECUTE orrery_/),
        'WITH taken',
        'WITH taken',
        'WITH taken',
      ]);
      expect(results.map((result) => result.status)).toEqual([
        'fulfilled',
        'rejected',
        'fulfilled',
      ]);
      const error = (results[1] as PromiseRejectedResult).reason;
      expect(SessionStoreError.isInstance(error)).toBe(true);
      expect(String(error)).toMatch(/refused by the test/);
      for (const result of results) {
        if (result.status === 'fulfilled') await result.value.lease.release();
      }
    } finally {
      await fixture.pool.query(`DROP TRIGGER refuse_one ON ${schema}.orrery_events`);
    }
    expect(await stores.storedTexts(keyOf('ok-1'))).toEqual(['ok-1']);
    expect(await stores.storedTexts(keyOf('ok-2'))).toEqual(['ok-2']);
    expect(await stores.storedTexts(keyOf('refused'))).toEqual([]);
    // The refused take took no lease: free.
    const free = await stores.other.acquireLease({ ...keyOf('refused'), waitMs: 0 });
    await free.release();
  });

  it('two replicas batching the same sessions in opposite orders: no deadlock, all stored', async () => {
    const ids = Array.from({ length: 6 }, (_unused, index) => `both-${index}`);
    for (const id of ids) await stores.replica.createSession(keyOf(id));
    const secondPool = new pg.Pool({ connectionString: url, max: 4 });
    const secondSent = recordStatements(secondPool);
    const second = new PostgresSessionService({ pool: secondPool, schema: fixture.schema });
    const rounds = 8;
    const appendAll = (store: PostgresSessionService, order: string[], round: number) =>
      Promise.all(
        order.map((id) =>
          store.appendEvent({ ...keyOf(id), event: userTextEvent({ text: `${round}` }) }),
        ),
      );
    try {
      stores.sent.length = 0;
      for (let round = 0; round < rounds; round++) {
        await Promise.all([
          appendAll(stores.replica, ids, round),
          appendAll(second, [...ids].reverse(), round),
        ]);
      }
    } finally {
      await second.close();
      await secondPool.end();
    }
    // A deadlock would have rolled a batch back and sent its statements alone.
    const batches = Array.from({ length: rounds }, () => expect.stringMatching(/^EXECUTE orrery_/));
    const sentOf = (sent: SentStatement[]) =>
      sent.map((statement) => statement.words).filter((word) => /^(EXECUTE|WITH)/.test(word));
    expect(sentOf(stores.sent)).toEqual(batches);
    expect(sentOf(secondSent)).toEqual(batches);
    for (const id of ids) {
      const session = await stores.other.getSession({ ...keyOf(id), events: 'full' });
      expect(session?.events.map((event) => event.seq)).toEqual(
        Array.from({ length: rounds * 2 }, (_unused, index) => index + 1),
      );
    }
  });

  it('groupCommit: false sends each statement alone; a value not boolean is refused', async () => {
    const alone = new PostgresSessionService({
      pool: stores.pool,
      schema: fixture.schema,
      groupCommit: false,
    });
    const ids = ['alone-1', 'alone-2'];
    for (const id of ids) await alone.createSession(keyOf(id));
    stores.sent.length = 0;
    await Promise.all(
      ids.map((id) => alone.appendEvent({ ...keyOf(id), event: userTextEvent({ text: id }) })),
    );
    expect(words()).toEqual(['WITH s', 'WITH s']);
    expect(
      () =>
        new PostgresSessionService({
          pool: stores.pool,
          schema: fixture.schema,
          groupCommit: 'yes' as unknown as boolean,
        }),
    ).toThrow(InvalidArgumentError);
  });
});
