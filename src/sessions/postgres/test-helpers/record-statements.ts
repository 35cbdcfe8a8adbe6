/**
 * Test helpers that watch what a pg pool's clients send: every statement (its first two words,
 * whether it ran as a named prepared statement, its values and the rows it returned), and a
 * wait for a statement of one application to block on a row lock.
 */
import type pg from 'pg';

export interface SentStatement {
  /** The statement's first two words (`WITH taken`, `SELECT 0`, `BEGIN`). */
  words: string;
  /** It ran as a named prepared statement. */
  named: boolean;
  values: unknown[];
  /** The rows it returned (empty until it answered, and for pg-pool's callback queries). */
  rows: { part?: number }[];
}

/** Records every statement the pool's clients send from now on, in order. */
export function recordStatements(pool: pg.Pool): SentStatement[] {
  const sent: SentStatement[] = [];
  const patched = new WeakSet<pg.PoolClient>();
  pool.on('acquire', (client) => {
    if (patched.has(client)) return;
    patched.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => Promise<pg.QueryResult>;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args) => {
      const first = args[0] as string | { text: string; name?: string; values?: unknown[] };
      const text = typeof first === 'string' ? first : first.text;
      const entry: SentStatement = {
        words: text.trim().split(/\s+/).slice(0, 2).join(' '),
        named: typeof first !== 'string' && first.name !== undefined,
        values:
          (args[1] as unknown[] | undefined) ??
          (typeof first === 'string' ? undefined : first.values) ??
          [],
        rows: [],
      };
      sent.push(entry);
      // pg-pool's own `pool.query` passes a callback (and gets no promise back).
      if (typeof args.at(-1) === 'function') return query(...args);
      return query(...args).then((result) => {
        entry.rows = result.rows;
        return result;
      });
    };
  });
  return sent;
}

/** Resolves once a statement of the pool's application waits for a row lock. */
export async function waitForLockWait(admin: pg.Pool, applicationName: string): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const { rows } = await admin.query(
      `SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
      [applicationName],
    );
    if (rows.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the take never waited for the lock');
}
