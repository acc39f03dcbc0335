import type { Knex } from 'knex';

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

/** Rows a plan's scans of one table produced or filtered away, over all their loops. */
function rowsFrom(node: PlanNode, table: string): number {
  const own =
    node['Relation Name'] === table ? ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0)) * (node['Actual Loops'] ?? 1) : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsFrom(child, table), 0);
}

/**
 * The rows the database reads from `table` (a service's, e.g. a `Db`) to answer what `run` asks, from the plans
 * it executes (EXPLAIN ANALYZE of the very queries knex sends): what a read costs, without timing anything.
 * Runs on Postgres and PGlite.
 */
export async function rowsRead(db: { knex: Knex }, table: string, run: () => Promise<unknown>): Promise<number> {
  const sent: Array<{ sql: string; bindings: readonly unknown[] }> = [];
  const listen = (q: { sql: string; bindings?: readonly unknown[] }) => sent.push({ sql: q.sql, bindings: q.bindings ?? [] });
  db.knex.on('query', listen);
  try {
    await run();
  } finally {
    db.knex.off('query', listen);
  }
  const from = new RegExp(`from "[^"]+"\\."${table}"`);
  let rows = 0;
  for (const q of sent.filter((q) => from.test(q.sql))) {
    // knex sends $1, $2, … in order; raw takes ? placeholders.
    const result = await db.knex.raw(`explain (analyze, format json) ${q.sql.replace(/\$\d+/g, '?')}`, q.bindings as never[]);
    const plan = (result as { rows: Array<{ 'QUERY PLAN': unknown }> }).rows[0]?.['QUERY PLAN'];
    const parsed = (typeof plan === 'string' ? JSON.parse(plan) : plan) as Array<{ Plan: PlanNode }>;
    rows += rowsFrom(parsed[0]!.Plan, table);
  }
  return rows;
}
