/**
 * The view's reads stay index probes whatever the session's size: checked on SQLite's own query
 * plan, not on timing. A plan that scans or sorts the events table costs O(events) a turn.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrateSqlite } from './migrations.js';
import { prepareStatements } from './statements.js';

function planOf(database: Database.Database, sql: string, parameters: unknown[]): string {
  const rows = database.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as {
    detail: string;
  }[];
  return rows.map((row) => row.detail).join('\n');
}

describe('SQLite query plans', () => {
  it('reads the checkpoint through events_checkpoints, without a sort', () => {
    const database = new Database(':memory:');
    try {
      migrateSqlite(database);
      const statements = prepareStatements(database);
      const plan = planOf(database, statements.checkpoints.source, ['app', 'user', 'session', 10]);
      expect(plan).toContain('events_checkpoints');
      expect(plan).not.toContain('TEMP B-TREE');
    } finally {
      database.close();
    }
  });

  it('reads the tail as a primary-key range', () => {
    const database = new Database(':memory:');
    try {
      migrateSqlite(database);
      const statements = prepareStatements(database);
      const plan = planOf(database, statements.tail.source, ['app', 'user', 'session', 10]);
      expect(plan).toMatch(/SEARCH events USING (PRIMARY KEY|INDEX sqlite_autoindex_events)/);
      expect(plan).not.toContain('TEMP B-TREE');
    } finally {
      database.close();
    }
  });
});
