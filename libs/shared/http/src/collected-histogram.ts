import type { Histogram, Registry } from 'prom-client';

/** Buckets (seconds) of the waits a request may meet: a connection of the pool, the event loop, a Redis command, a stage of the edge. */
export const WAIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

/** One series of a histogram counted outside prom-client: its labels, the samples at or below each bound, their sum and count. */
export interface CollectedSeries {
  labels: Record<string, string>;
  /** Cumulative, one a bound of the histogram's `buckets`, as Prometheus's `le` buckets. */
  atOrBelow: readonly number[];
  sum: number;
  count: number;
}

/**
 * Registers a histogram whose samples are counted by its owner and read at each scrape (`collect`), served as
 * Prometheus's `<name>_bucket{le}`, `_sum` and `_count` of each series. For what prom-client's own Histogram cannot
 * take or costs too much on a hot path: many samples at once (Node's event-loop delay), an observation that should
 * be a clock read and an increment (the edge's stage waits, decision 190). Counts run from the start, never reset.
 */
export function registerCollectedHistogram(
  registry: Registry,
  histogram: { name: string; help: string; buckets: readonly number[]; collect: () => CollectedSeries[] },
): void {
  const { name, help, buckets, collect } = histogram;
  const metric = {
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    get() {
      const values = collect().flatMap(({ labels, atOrBelow, sum, count }) => [
        ...buckets.map((le, i) => ({ labels: { ...labels, le }, value: atOrBelow[i] ?? 0, metricName: `${name}_bucket` })),
        { labels: { ...labels, le: '+Inf' }, value: count, metricName: `${name}_bucket` },
        { labels, value: sum, metricName: `${name}_sum` },
        { labels, value: count, metricName: `${name}_count` },
      ]);
      return { name, help, type: metric.type, aggregator: metric.aggregator, values };
    },
    reset: () => undefined,
  };
  // prom-client serves any metric with get().
  registry.registerMetric(metric as unknown as Histogram);
}
