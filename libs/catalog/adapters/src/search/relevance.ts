import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { SearchIndex } from '@commerce/catalog-core';
import type { Db } from '@commerce/shared-db';
import { z } from 'zod';

/**
 * Judged queries and the relevance report of `npm run search:eval` and `search:apply` (docs/search.md):
 * each query of `infra/search/judgements.json` goes through the search port, the variants it finds are
 * read as their ERP products (first rank wins), and the products are scored against the grades.
 */
export const JUDGEMENTS_PATH = resolve('infra/search/judgements.json');
export const BASELINE_PATH = resolve('infra/search/baseline.json');

const Grade = z.number().int().min(0).max(3);
const JudgementsSchema = z.object({
  description: z.string().optional(),
  catalog: z.string(),
  store: z.string(),
  queries: z
    .array(
      z.object({
        query: z.string().min(1),
        class: z.string().min(1),
        /** ERP product id → 0–3; unlisted products are 0; none listed: the query should find nothing. */
        grades: z.record(z.string(), Grade),
        note: z.string().optional(),
      }),
    )
    .min(1),
});
export type Judgements = z.infer<typeof JudgementsSchema>;
export type Judgement = Judgements['queries'][number];

export function loadJudgements(path = JUDGEMENTS_PATH): Judgements {
  return JudgementsSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
}

/** How deep the report looks: nDCG@10, recall@10, MRR@10. */
export const DEPTH = 10;

export interface QueryOutcome {
  query: string;
  class: string;
  /** ERP products found, best first (up to DEPTH). */
  found: string[];
  /** Variants found in all (the search's total). */
  total: number;
  ndcg: number;
  rr: number;
  recall: number;
  /** Whether the query has graded products (else it should find nothing). */
  judged: boolean;
  latenciesMs: number[];
}

export interface Metrics {
  queries: number;
  /** Of them, queries with graded products (nDCG, MRR, recall and zero-result are over these). */
  judged: number;
  ndcg: number;
  mrr: number;
  recall: number;
  /** Share of judged queries that found nothing. */
  zeroResultRate: number;
  /** Share of queries judged to find nothing that found something. */
  noneWithResults: number;
  p50Ms: number;
  p99Ms: number;
}

export interface EngineReport {
  overall: Metrics;
  classes: Record<string, Metrics>;
  /** nDCG@10 of each judged query, by query text (what "got worse" compares). */
  queries: Record<string, number>;
}

/** The variant ids of a search → ERP product ids, from the catalog's tables. */
export async function productsOfVariants(db: Db): Promise<Map<string, string>> {
  const products = (await db.table('products').select('id', 'external_id')) as Array<{ id: number; external_id: string }>;
  const variants = (await db.table('variants').select('id', 'product_id')) as Array<{ id: number; product_id: number }>;
  const external = new Map(products.map((p) => [p.id, p.external_id]));
  return new Map(variants.map((v) => [String(v.id), external.get(v.product_id) ?? `product ${v.product_id}`]));
}

const gain = (grade: number) => 2 ** grade - 1;
const discount = (rank: number) => Math.log2(rank + 2);

/** nDCG@k, reciprocal rank of the first graded product (within k), and recall@k over min(graded, k) products. */
export function scoreRanking(found: string[], grades: Record<string, number>, k = DEPTH): { ndcg: number; rr: number; recall: number } {
  const top = found.slice(0, k);
  const dcg = top.reduce((sum, id, i) => sum + gain(grades[id] ?? 0) / discount(i), 0);
  const ideal = Object.values(grades)
    .filter((g) => g > 0)
    .sort((a, b) => b - a)
    .slice(0, k);
  const idcg = ideal.reduce((sum, g, i) => sum + gain(g) / discount(i), 0);
  const first = top.findIndex((id) => (grades[id] ?? 0) > 0);
  const hits = top.filter((id) => (grades[id] ?? 0) > 0).length;
  return {
    ndcg: idcg > 0 ? dcg / idcg : 0,
    rr: first >= 0 ? 1 / (first + 1) : 0,
    recall: ideal.length > 0 ? hits / ideal.length : 0,
  };
}

export interface EvaluateOptions {
  /** Searches per query, for the latency percentiles (default 3; the first one warms the engine up and is not timed). */
  repeat?: number;
}

/** Runs every judged query through the search port and scores it. */
export async function evaluate(
  index: SearchIndex,
  judgements: Judgements,
  productOf: ReadonlyMap<string, string>,
  options: EvaluateOptions = {},
): Promise<QueryOutcome[]> {
  const repeat = options.repeat ?? 3;
  const outcomes: QueryOutcome[] = [];
  for (const j of judgements.queries) {
    const query = { text: j.query, offset: 0, limit: 100 };
    const result = await index.search(query);
    const latenciesMs: number[] = [];
    for (let i = 0; i < repeat; i++) {
      const started = performance.now();
      await index.search(query);
      latenciesMs.push(performance.now() - started);
    }
    const found: string[] = [];
    for (const id of result.ids) {
      const product = productOf.get(id) ?? `variant ${id}`;
      if (!found.includes(product)) found.push(product);
    }
    const judged = Object.values(j.grades).some((g) => g > 0);
    outcomes.push({
      query: j.query,
      class: j.class,
      found: found.slice(0, DEPTH),
      total: result.total,
      judged,
      latenciesMs,
      ...scoreRanking(found, j.grades),
    });
  }
  return outcomes;
}

const mean = (values: number[]) => (values.length > 0 ? values.reduce((a, b) => a + b, 0) / values.length : 0);
function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
const round = (n: number, digits = 4) => Math.round(n * 10 ** digits) / 10 ** digits;

export function metricsOf(outcomes: QueryOutcome[]): Metrics {
  const judged = outcomes.filter((o) => o.judged);
  const none = outcomes.filter((o) => !o.judged);
  const latencies = outcomes.flatMap((o) => o.latenciesMs);
  return {
    queries: outcomes.length,
    judged: judged.length,
    ndcg: round(mean(judged.map((o) => o.ndcg))),
    mrr: round(mean(judged.map((o) => o.rr))),
    recall: round(mean(judged.map((o) => o.recall))),
    zeroResultRate: round(judged.length > 0 ? judged.filter((o) => o.total === 0).length / judged.length : 0),
    noneWithResults: round(none.length > 0 ? none.filter((o) => o.total > 0).length / none.length : 0),
    p50Ms: round(percentile(latencies, 50), 2),
    p99Ms: round(percentile(latencies, 99), 2),
  };
}

export function reportOf(outcomes: QueryOutcome[]): EngineReport {
  const classes = [...new Set(outcomes.map((o) => o.class))];
  return {
    overall: metricsOf(outcomes),
    classes: Object.fromEntries(classes.map((c) => [c, metricsOf(outcomes.filter((o) => o.class === c))])),
    queries: Object.fromEntries(outcomes.filter((o) => o.judged).map((o) => [o.query, round(o.ndcg)])),
  };
}

/** How far a metric may fall below the baseline before `search:eval` fails (stated in baseline.json). */
export interface Tolerance {
  overall: number;
  perClass: number;
}
export const DEFAULT_TOLERANCE: Tolerance = { overall: 0.01, perClass: 0.05 };

export interface Baseline {
  description?: string;
  tolerance: Tolerance;
  engines: Record<string, EngineReport>;
}

const BaselineSchema = z.object({
  description: z.string().optional(),
  tolerance: z.object({ overall: z.number().min(0), perClass: z.number().min(0) }),
  engines: z.record(z.string(), z.unknown()),
});

export function loadBaseline(path = BASELINE_PATH): Baseline {
  return BaselineSchema.parse(JSON.parse(readFileSync(path, 'utf8'))) as Baseline;
}

/** Higher is better for these; lower for the rates. Latency is reported, never gated (it is the machine's as much as the settings'). */
const HIGHER: Array<keyof Metrics> = ['ndcg', 'mrr', 'recall'];
const LOWER: Array<keyof Metrics> = ['zeroResultRate', 'noneWithResults'];

export interface Regression {
  engine: string;
  scope: string;
  metric: keyof Metrics;
  baseline: number;
  current: number;
}

export interface Comparison {
  regressions: Regression[];
  /** Judged queries whose nDCG@10 fell, worst first. */
  worse: Array<{ engine: string; query: string; baseline: number; current: number }>;
  better: Array<{ engine: string; query: string; baseline: number; current: number }>;
}

/** The current reports against the baseline's, engine by engine (an engine missing from either is not compared). */
export function compareToBaseline(current: Record<string, EngineReport>, baseline: Baseline): Comparison {
  const regressions: Regression[] = [];
  const worse: Comparison['worse'] = [];
  const better: Comparison['better'] = [];
  for (const [engine, report] of Object.entries(current)) {
    const base = baseline.engines[engine];
    if (!base) continue;
    const check = (scope: string, now: Metrics, then: Metrics | undefined, tolerance: number) => {
      if (!then) return;
      for (const metric of HIGHER)
        if (now[metric] < then[metric] - tolerance - 1e-9)
          regressions.push({ engine, scope, metric, baseline: then[metric], current: now[metric] });
      for (const metric of LOWER)
        if (now[metric] > then[metric] + tolerance + 1e-9)
          regressions.push({ engine, scope, metric, baseline: then[metric], current: now[metric] });
    };
    check('overall', report.overall, base.overall, baseline.tolerance.overall);
    for (const [cls, metrics] of Object.entries(report.classes)) check(cls, metrics, base.classes[cls], baseline.tolerance.perClass);
    for (const [query, ndcg] of Object.entries(report.queries)) {
      const then = base.queries[query];
      if (then === undefined) continue;
      if (ndcg < then - 1e-4) worse.push({ engine, query, baseline: then, current: ndcg });
      else if (ndcg > then + 1e-4) better.push({ engine, query, baseline: then, current: ndcg });
    }
  }
  worse.sort((a, b) => a.current - a.baseline - (b.current - b.baseline));
  better.sort((a, b) => b.current - b.baseline - (a.current - a.baseline));
  return { regressions, worse, better };
}

const fixed = (n: number, d = 3) => n.toFixed(d);

/** The report as the commands print it: one table per engine (overall, then each class), then the comparison. */
export function formatReport(reports: Record<string, EngineReport>, comparison?: Comparison): string {
  const lines: string[] = [];
  const header = ['', 'queries', 'nDCG@10', 'MRR', 'recall@10', 'zero-result', 'none-found', 'p50 ms', 'p99 ms'];
  for (const [engine, report] of Object.entries(reports)) {
    const rows: string[][] = [header];
    // A class of queries that should find nothing has no ranking to score: its only measure is none-found.
    const scored = (m: Metrics, value: string) => (m.judged === 0 ? '-' : value);
    const row = (name: string, m: Metrics) =>
      rows.push([
        name,
        String(m.queries),
        scored(m, fixed(m.ndcg)),
        scored(m, fixed(m.mrr)),
        scored(m, fixed(m.recall)),
        scored(m, fixed(m.zeroResultRate)),
        m.queries > m.judged ? fixed(m.noneWithResults) : '-',
        fixed(m.p50Ms, 2),
        fixed(m.p99Ms, 2),
      ]);
    row('overall', report.overall);
    for (const [cls, m] of Object.entries(report.classes)) row(`  ${cls}`, m);
    const widths = header.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
    lines.push(`${engine}`);
    for (const r of rows) lines.push(r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '));
    lines.push('');
  }
  if (comparison) {
    if (comparison.worse.length > 0) {
      lines.push('worse than the baseline (nDCG@10):');
      for (const w of comparison.worse)
        lines.push(`  ${w.engine}  ${JSON.stringify(w.query)}  ${fixed(w.baseline)} -> ${fixed(w.current)}`);
    } else lines.push('no judged query is worse than the baseline');
    if (comparison.better.length > 0) {
      lines.push('better than the baseline (nDCG@10):');
      for (const b of comparison.better)
        lines.push(`  ${b.engine}  ${JSON.stringify(b.query)}  ${fixed(b.baseline)} -> ${fixed(b.current)}`);
    }
    for (const r of comparison.regressions)
      lines.push(`REGRESSION ${r.engine} ${r.scope} ${r.metric}: ${fixed(r.baseline)} -> ${fixed(r.current)} (beyond the tolerance)`);
  }
  return lines.join('\n');
}
