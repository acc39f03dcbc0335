import { compareToBaseline, metricsOf, reportOf, scoreRanking, type Baseline, type QueryOutcome } from './relevance';

const outcome = (query: string, cls: string, ndcg: number, total = 1, judged = true): QueryOutcome => ({
  query,
  class: cls,
  found: [],
  total,
  ndcg,
  rr: ndcg > 0 ? 1 : 0,
  recall: ndcg,
  judged,
  latenciesMs: [1, 2, 3],
});

describe('relevance metrics', () => {
  it('scores a perfect ranking 1 and puts the best product first in the ideal order', () => {
    expect(scoreRanking(['A', 'B'], { A: 3, B: 2 })).toEqual({ ndcg: 1, rr: 1, recall: 1 });
    const swapped = scoreRanking(['B', 'A'], { A: 3, B: 2 });
    expect(swapped.ndcg).toBeLessThan(1);
    expect(swapped.ndcg).toBeCloseTo((3 + 7 / Math.log2(3)) / (7 + 3 / Math.log2(3)), 10);
  });

  it('gives the reciprocal rank of the first graded product and recall over at most ten graded', () => {
    expect(scoreRanking(['X', 'Y', 'A'], { A: 1 })).toMatchObject({ rr: 1 / 3, recall: 1 });
    const twelve = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`P${i}`, 3]));
    expect(scoreRanking(['P0', 'P1', 'P2', 'P3', 'P4'], twelve).recall).toBe(0.5);
    expect(scoreRanking([], { A: 3 })).toEqual({ ndcg: 0, rr: 0, recall: 0 });
  });

  it('counts judged queries that found nothing, and queries that should find nothing but did, apart', () => {
    const m = metricsOf([
      outcome('a', 'x', 1),
      outcome('b', 'x', 0, 0),
      outcome('c', 'none', 0, 2, false),
      outcome('d', 'none', 0, 0, false),
    ]);
    expect(m).toMatchObject({ queries: 4, judged: 2, ndcg: 0.5, zeroResultRate: 0.5, noneWithResults: 0.5, p50Ms: 2, p99Ms: 3 });
  });

  it('flags a metric below the baseline by more than the tolerance, and lists the queries that got worse', () => {
    const then = reportOf([outcome('a', 'x', 1), outcome('b', 'y', 1)]);
    const baseline: Baseline = { tolerance: { overall: 0.01, perClass: 0.05 }, engines: { embedded: then } };
    expect(compareToBaseline({ embedded: then }, baseline)).toEqual({ regressions: [], worse: [], better: [] });
    const now = reportOf([outcome('a', 'x', 1), outcome('b', 'y', 0.96)]);
    const c = compareToBaseline({ embedded: now }, baseline);
    expect(c.worse).toEqual([{ engine: 'embedded', query: 'b', baseline: 1, current: 0.96 }]);
    // Overall nDCG 1 -> 0.98 is beyond 0.01; class y's 1 -> 0.96 is within 0.05.
    expect(c.regressions.map((r) => `${r.scope} ${r.metric}`)).toEqual(['overall ndcg', 'overall recall']);
    // An engine the baseline does not hold is reported, not compared.
    expect(compareToBaseline({ meilisearch: now }, baseline).regressions).toEqual([]);
  });
});
