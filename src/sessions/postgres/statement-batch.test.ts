import type { PoolClient } from 'pg';
import { describe, expect, it } from 'vitest';
import type { SessionKey } from '../../events/types.js';
import { type BatchedStatement, StatementBatch, sqlLiterals } from './statement-batch.js';

const statement = { name: 'orrery_take', text: 'SELECT $1::text AS value' };

function request(sessionId: string, values: unknown[] = [sessionId]): BatchedStatement {
  const key: SessionKey = { appName: 'app', userId: 'u', sessionId };
  return { key, signal: undefined, statement, values, operation: 'appendEvent' };
}

/** A batch whose connection records every text and answers each EXECUTE with its values. */
function fakeBatch(options: { fail?: unknown } = {}) {
  const texts: string[] = [];
  const alone: string[] = [];
  const client = {
    async query(text: string) {
      texts.push(text);
      if (text.startsWith('PREPARE')) return { rows: [] };
      if (options.fail) throw options.fail;
      return text.split(';\n').map((line) => ({ rows: [{ line }] }));
    },
  } as unknown as PoolClient;
  const batch = new StatementBatch({
    runAlone: async (one) => {
      alone.push(one.key.sessionId);
      return [{ alone: one.key.sessionId }];
    },
    withClient: (work) => work(client),
    toError: (error, one) => new Error(`${one.key.sessionId}: ${String(error)}`),
  });
  return { batch, texts, alone };
}

describe('StatementBatch', () => {
  it('runs a lone statement alone, without a PREPARE', async () => {
    const { batch, texts, alone } = fakeBatch();
    await expect(batch.run(request('a'))).resolves.toEqual([{ alone: 'a' }]);
    expect(alone).toEqual(['a']);
    expect(texts).toEqual([]);
  });

  it('runs the statements of one loop turn as one Query, in session-key order', async () => {
    const { batch, texts, alone } = fakeBatch();
    const answers = await Promise.all(['c', 'a', 'b'].map((id) => batch.run(request(id))));
    expect(alone).toEqual([]);
    expect(texts).toEqual([
      `PREPARE orrery_take_batch AS ${statement.text}`,
      "EXECUTE orrery_take_batch('a');\nEXECUTE orrery_take_batch('b');\nEXECUTE orrery_take_batch('c')",
    ]);
    // Each caller gets its own statement's rows, whatever the order they ran in.
    expect(answers.map((rows) => (rows[0] as { line: string }).line)).toEqual([
      "EXECUTE orrery_take_batch('c')",
      "EXECUTE orrery_take_batch('a')",
      "EXECUTE orrery_take_batch('b')",
    ]);
    // Prepared once on this connection.
    await Promise.all(['d', 'e'].map((id) => batch.run(request(id))));
    expect(texts.filter((text) => text.startsWith('PREPARE'))).toHaveLength(1);
  });

  it('a statement the server refused: each runs again alone', async () => {
    const refused = Object.assign(new Error('refused by the test'), { severity: 'ERROR' });
    const { batch, alone } = fakeBatch({ fail: refused });
    const answers = await Promise.all(['b', 'a'].map((id) => batch.run(request(id))));
    expect(answers).toEqual([[{ alone: 'b' }], [{ alone: 'a' }]]);
    expect(alone.sort()).toEqual(['a', 'b']);
  });

  it('a lost connection: every statement fails, none is sent again', async () => {
    const lost = Object.assign(new Error('Connection terminated unexpectedly'), {
      severity: 'ERROR',
    });
    const { batch, alone } = fakeBatch({ fail: lost });
    const answers = await Promise.allSettled(['a', 'b'].map((id) => batch.run(request(id))));
    expect(answers.map((answer) => answer.status)).toEqual(['rejected', 'rejected']);
    expect(String((answers[0] as PromiseRejectedResult).reason)).toContain('a: Error: Connection');
    expect(alone).toEqual([]);
  });

  it('a statement aborted before its batch is sent is left out; its caller hears at once', async () => {
    const { batch, texts } = fakeBatch();
    const controller = new AbortController();
    const aborted = batch.run({ ...request('x'), signal: controller.signal });
    const others = Promise.all(['a', 'b'].map((id) => batch.run(request(id))));
    controller.abort(new Error('stop'));
    await expect(aborted).rejects.toThrow('x: Error: stop');
    await others;
    expect(texts.at(-1)).not.toContain("'x'");
    const already = new AbortController();
    already.abort(new Error('before'));
    await expect(batch.run({ ...request('y'), signal: already.signal })).rejects.toThrow('before');
  });

  it('a statement with long values runs alone, bound as parameters', async () => {
    const { batch, alone, texts } = fakeBatch();
    await Promise.all([
      batch.run(request('long', ['x'.repeat(300 * 1024)])),
      batch.run(request('a')),
      batch.run(request('b')),
    ]);
    expect(alone).toEqual(['long']);
    expect(texts.at(-1)).toBe("EXECUTE orrery_take_batch('a');\nEXECUTE orrery_take_batch('b')");
  });

  it('prepares again on a connection whose prepared statements were lost', async () => {
    let lose = false;
    const texts: string[] = [];
    const client = {
      async query(text: string) {
        texts.push(text);
        if (text.startsWith('PREPARE')) return { rows: [] };
        if (lose) {
          lose = false;
          throw Object.assign(new Error('prepared statement does not exist'), {
            severity: 'ERROR',
            code: '26000',
          });
        }
        return text.split(';\n').map((line) => ({ rows: [{ line }] }));
      },
    } as unknown as PoolClient;
    const alone: string[] = [];
    const batch = new StatementBatch({
      runAlone: async (one) => {
        alone.push(one.key.sessionId);
        return [];
      },
      withClient: (work) => work(client),
      toError: (error) => error,
    });
    await Promise.all(['a', 'b'].map((id) => batch.run(request(id))));
    lose = true;
    await Promise.all(['c', 'd'].map((id) => batch.run(request(id))));
    // Refused (nothing committed): each ran alone; the next batch prepares first.
    expect(alone).toEqual(['c', 'd']);
    await Promise.all(['e', 'f'].map((id) => batch.run(request(id))));
    expect(texts.filter((text) => text.startsWith('PREPARE'))).toHaveLength(2);
  });

  it('a statement without a name, or with a value it does not write, runs alone', async () => {
    const { batch, alone, texts } = fakeBatch();
    await Promise.all([
      batch.run({ ...request('a'), statement: { text: 'SELECT 1' } }),
      batch.run(request('b', [{ object: true }])),
    ]);
    expect(alone.sort()).toEqual(['a', 'b']);
    expect(texts).toEqual([]);
  });
});

describe('sqlLiterals', () => {
  it('writes each value as the text pg would send, quoted', () => {
    expect(sqlLiterals(['plain', "it's", null, undefined, 12, 1.5, -3, true, false])).toEqual([
      "'plain'",
      "'it''s'",
      'NULL',
      'NULL',
      "'12'",
      "'1.5'",
      "'-3'",
      "'true'",
      "'false'",
    ]);
  });

  it('a backslash: the escape-string form, whatever standard_conforming_strings says', () => {
    expect(sqlLiterals(['a\\b', "\\'"])).toEqual(["E'a\\\\b'", "E'\\\\'''"]);
  });

  it('values it does not write: undefined, and the statement runs alone', () => {
    expect(sqlLiterals([{ a: 1 }])).toBeUndefined();
    expect(sqlLiterals([['a']])).toBeUndefined();
    expect(sqlLiterals(['nul \0 inside'])).toBeUndefined();
    expect(sqlLiterals([10n])).toBeUndefined();
  });
});
