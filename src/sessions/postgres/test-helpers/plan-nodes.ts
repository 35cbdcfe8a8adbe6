/** A node of PostgreSQL's `EXPLAIN (FORMAT JSON)` plan, and the walk over a plan's nodes. */
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
