/**
 * The PostgreSQL search probes' statement capture: every ranked search statement the store sends
 * (on any `pg` client of this process) is pushed to the returned list, text and values, so a
 * probe can run it again under `EXPLAIN`.
 */
import pg from 'pg';

export interface CapturedStatement {
  text: string;
  values: unknown[];
}

export function captureSearchStatements(): CapturedStatement[] {
  const captured: CapturedStatement[] = [];
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [first, second] = args as [unknown, unknown];
    const config = typeof first === 'string' ? { text: first, values: second } : first;
    const { text, values } = (config ?? {}) as { text?: unknown; values?: unknown };
    if (typeof text === 'string' && text.includes('WITH total') && !text.startsWith('EXPLAIN')) {
      captured.push({ text, values: values as unknown[] });
    }
    return (original as (...rest: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  return captured;
}
