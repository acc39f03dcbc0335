import { monitorEventLoopDelay } from 'node:perf_hooks';
import type Koa from 'koa';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { currentRequestId, droppedLogLines } from '@commerce/shared-logging';
import { contentionRetries, observeDb } from '@commerce/shared-db';
import { observeRedis } from '@commerce/shared-sessions';
import { observeKafka } from '@commerce/shared-bus';
import { WAIT_BUCKETS, registerCollectedHistogram } from './collected-histogram';

/**
 * How often the event-loop delay is sampled (ms): a timer this far apart, 50 wake-ups a second in every process, idle
 * ones too (10 ms was 100, ~3.3 ms of CPU a second a process, ~23 ms a second for the seven services at rest: decision
 * 197). Every stall longer than the period is still seen (a timer comes due during it), so every one past the 25 ms
 * that operations.md warns of; shorter ones are seen in proportion to their length, as before below 10 ms.
 */
export const EVENT_LOOP_SAMPLE_MS = 20;

/**
 * `nodejs_eventloop_delay_seconds` (issue 28): perf_hooks' event-loop delay as a Prometheus histogram, so replicas
 * and rows can be summed. Node samples with a timer every `EVENT_LOOP_SAMPLE_MS` and records the time between two
 * runs of it, the period included: an idle loop read ~10.6 ms at a 10 ms period. The period is taken off each step,
 * so a sample is how late the timer ran (0 on an idle loop; a 120 ms block: ~100–120 ms). prom-client's
 * `nodejs_eventloop_lag_*` gauges sample at the same period (their own timer, started in the same tick, so both run
 * in one wake-up); they keep the period in (an idle loop's read ~20 ms). At each scrape the samples since the last
 * are added to the buckets from Node's percentile steps (each step's samples at that step's value: exact to the
 * HDR's precision, and as cheap after an hour unscraped as after a second), then Node's histogram starts again.
 */
function eventLoopDelayHistogram(registry: Registry): void {
  const name = 'nodejs_eventloop_delay_seconds';
  const delay = monitorEventLoopDelay({ resolution: EVENT_LOOP_SAMPLE_MS });
  delay.enable();
  const cumulative = WAIT_BUCKETS.map((le) => ({ le, n: 0 }));
  let count = 0;
  let sum = 0;
  const collect = () => {
    let below = 0;
    for (const [percentile, ns] of delay.percentiles) {
      const upTo = Math.round((delay.count * percentile) / 100);
      if (upTo <= below) continue;
      // The period is not a delay; libuv's millisecond clock may run the timer a fraction of a millisecond early.
      const seconds = Math.max(0, ns / 1e9 - EVENT_LOOP_SAMPLE_MS / 1e3);
      for (const b of cumulative) if (seconds <= b.le) b.n += upTo - below;
      sum += seconds * (upTo - below);
      below = upTo;
    }
    count += below;
    delay.reset();
  };
  // Node's histogram is reset at each scrape; the cumulative counts are never (as a Prometheus counter's).
  registerCollectedHistogram(registry, {
    name,
    help: `Event-loop delay: how late a timer due every ${EVENT_LOOP_SAMPLE_MS} ms ran, its period taken off (perf_hooks.monitorEventLoopDelay; 0 on an idle loop)`,
    buckets: WAIT_BUCKETS,
    collect: () => {
      collect();
      return [{ labels: {}, atOrBelow: cumulative.map((b) => b.n), sum, count }];
    },
  });
}

/**
 * `db_statements_total{context}` and `db_pool_acquire_seconds` (issue 28): what the process's SQL engines did and
 * waited. `context="request"`: a statement of a request's or an event's handling (it runs with a request id), the
 * work someone asked for; `none`: the process's own timers (relays' polls, pruners), whatever the load.
 */
function dbMetrics(registry: Registry): void {
  const statements = new Counter({
    name: 'db_statements_total',
    help: 'SQL statements sent to the database (a transaction counts its BEGIN and COMMIT), by context: request (a request or an event handled) or none (timers, polls)',
    labelNames: ['context'] as const,
    registers: [registry],
  });
  const asked = statements.labels({ context: 'request' });
  const unasked = statements.labels({ context: 'none' });
  const acquire = new Histogram({
    name: 'db_pool_acquire_seconds',
    help: 'Wait for a pooled Postgres connection, per statement or transaction (0 when one was at hand)',
    buckets: [0, ...WAIT_BUCKETS],
    registers: [registry],
  });
  observeDb({
    statement: () => (currentRequestId() === undefined ? unasked : asked).inc(),
    acquired: (seconds) => acquire.observe(seconds),
  });
}

// Process metrics (heap, event loop, GC, the log's stdout) describe the process, not an app; the
// all-in-one runs several apps in one process, so they live in one registry, made once, and every
// app serves it.
let processRegistry: Registry | undefined;
function defaultMetricsRegistry(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    // prom-client's lag gauges keep a timer of their own (10 ms by default): at our period, and made in the same
    // tick as ours, both are due together and the process wakes once for them.
    collectDefaultMetrics({ register: processRegistry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    eventLoopDelayHistogram(processRegistry);
    dbMetrics(processRegistry);
    redisMetrics(processRegistry);
    kafkaMetrics(processRegistry);
    let counted = 0;
    new Counter({
      name: 'log_lines_dropped_total',
      help: 'Log lines dropped because stdout was broken or did not keep up',
      registers: [processRegistry],
      collect() {
        const dropped = droppedLogLines();
        this.inc(dropped - counted);
        counted = dropped;
      },
    });
    const countedRetries = new Map<string, number>();
    new Counter({
      name: 'db_contention_retries_total',
      help: 'SQL transactions run again after a deadlock (40P01) or a serialization failure (40001), by SQLSTATE',
      labelNames: ['sqlstate'] as const,
      registers: [processRegistry],
      collect() {
        for (const [sqlstate, n] of contentionRetries()) {
          this.inc({ sqlstate }, n - (countedRetries.get(sqlstate) ?? 0));
          countedRetries.set(sqlstate, n);
        }
      },
    });
  }
  return processRegistry;
}

/** `redis_command_seconds{command}` (issue 28): each Redis command's time from sending to its answer. */
function redisMetrics(registry: Registry): void {
  const latency = new Histogram({
    name: 'redis_command_seconds',
    help: 'Redis commands of the sessions and rate limits, from sending to the answer, by command',
    labelNames: ['command'] as const,
    buckets: WAIT_BUCKETS,
    registers: [registry],
  });
  observeRedis((command, seconds) => latency.observe({ command }, seconds));
}

/**
 * `kafka_requests_total{api}` (issue 28): the requests the process's Kafka clients sent (kafkajs), by API: produce,
 * fetch, offset commits, heartbeats; what each costs the broker as well.
 */
function kafkaMetrics(registry: Registry): void {
  const requests = new Counter({
    name: 'kafka_requests_total',
    help: 'Requests the Kafka clients sent (kafkajs), by API: Produce, Fetch, OffsetCommit, Heartbeat, Metadata ...',
    labelNames: ['api'] as const,
    registers: [registry],
  });
  observeKafka({ request: (api) => requests.inc({ api }) });
}

export interface AppMetrics {
  registry: Registry;
  middleware: Koa.Middleware;
  /** Records a request answered outside the middleware (a lean route, decision 63). */
  observe(method: string, route: string, status: number, seconds: number): void;
}

/** The request-duration metric of each app made by `createHttpApp`, for what answers outside its middleware. */
const observers = new WeakMap<Koa, AppMetrics['observe']>();
export const requestObserverOf = (app: Koa): AppMetrics['observe'] | undefined => observers.get(app);
export const setRequestObserver = (app: Koa, observe: AppMetrics['observe']): void => void observers.set(app, observe);

const UNMATCHED = '<unmatched>';
const ownPaths = new Set(['/metrics', '/healthz', '/readyz']);

/**
 * A per-app registry with the request-duration histogram, served at GET /metrics together with
 * `extra` registries (e.g. the outbox backlog and retention metrics of the app's schemas).
 */
export function createAppMetrics(service: string, extra: Registry[] = []): AppMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Duration of HTTP requests, by method, matched route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const processMetrics = defaultMetricsRegistry();

  const middleware: Koa.Middleware = async (ctx, next) => {
    if (ctx.method === 'GET' && ctx.path === '/metrics') {
      const texts = await Promise.all([registry, ...extra, processMetrics].map((r) => r.metrics()));
      ctx.set('Content-Type', registry.contentType);
      ctx.body = texts.join('\n');
      return;
    }
    const stop = duration.startTimer();
    try {
      await next();
    } finally {
      // The matched route pattern, never the raw path: ids in paths would explode the series count.
      const matched = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
      const route = matched !== undefined ? String(matched) : ownPaths.has(ctx.path) ? ctx.path : UNMATCHED;
      stop({ method: ctx.method, route, status: String(ctx.status) });
    }
  };
  const observe: AppMetrics['observe'] = (method, route, status, seconds) =>
    duration.observe({ method, route, status: String(status) }, seconds);
  return { registry, middleware, observe };
}
