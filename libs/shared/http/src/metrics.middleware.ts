import type Koa from 'koa';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { droppedLogLines } from '@commerce/shared-logging';
import { contentionRetries } from '@commerce/shared-db';

// Process metrics (heap, event loop, GC, the log's stdout) describe the process, not an app; the
// all-in-one runs several apps in one process, so they live in one registry, made once, and every
// app serves it.
let processRegistry: Registry | undefined;
function defaultMetricsRegistry(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
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
