/**
 * A node of PostgreSQL's `EXPLAIN (FORMAT JSON)` plan, the walk over a plan's nodes, and the
 * generic plan a connection keeps for a prepared statement.
 */
import type pg from 'pg';

export interface PlanNode {
  'Node Type': string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** The plan's nodes, the root first, depth first. */
export function planNodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(planNodes)];
}

/**
 * The generic plan of `text` on `schema`, as a connection keeps it after its fifth execution
 * (`plan_cache_mode = force_generic_plan`): planned on the tables as they are now, whatever
 * they hold later. Every parameter is NULL (a generic plan does not look at them).
 */
export async function genericPlan(pool: pg.Pool, schema: string, text: string): Promise<PlanNode> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL plan_cache_mode = force_generic_plan');
    await client.query(`SET LOCAL search_path = "${schema}"`);
    await client.query(`PREPARE generic_plan AS ${text}`);
    const parameters = Math.max(
      0,
      ...[...text.matchAll(/\$(\d+)/g)].map((match) => Number(match[1])),
    );
    const nulls = Array.from({ length: parameters }, () => 'NULL').join(', ');
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      `EXPLAIN (FORMAT JSON) EXECUTE generic_plan${parameters > 0 ? `(${nulls})` : ''}`,
    );
    const plan = rows[0]?.['QUERY PLAN'][0].Plan;
    if (!plan) throw new Error(`no plan for: ${text}`);
    return plan;
  } finally {
    await client.query('ROLLBACK').catch(() => {});
    await client.query('DEALLOCATE ALL').catch(() => {});
    client.release();
  }
}
