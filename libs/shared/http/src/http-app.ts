import Koa from 'koa';
import type { Registry } from 'prom-client';
import { bodyParser } from '@koa/bodyparser';
import type { Logger } from '@commerce/shared-logging';
import { requestContextMiddleware } from './request-context.middleware';
import { createAppMetrics, setRequestObserver } from './metrics.middleware';
import { errorMiddleware } from './error.middleware';
import { healthMiddleware, type ReadinessCheck } from './health.middleware';
import { deadlineMiddleware } from './deadline';
import type { CorsPolicy } from './cors';

export interface HttpAppOptions {
  service: string;
  logger: Logger;
  /** Largest accepted JSON body, in `bytes` notation. */
  bodyLimit?: string;
  readiness?: ReadinessCheck[];
  metrics?: boolean;
  /** Further registries served at /metrics, e.g. the retention pruner's. */
  metricsRegistries?: Registry[];
  /** Members merged into every error body, e.g. the checkout envelope's `token`. */
  errorBody?: (ctx: Koa.Context) => Record<string, unknown>;
  /**
   * Middleware that runs inside the error envelope but before the body is read, e.g. the checkout's
   * session opening, so that even a malformed body gets an error that carries the session token.
   */
  beforeBody?: Koa.Middleware[];
  /**
   * The time a request is given, in ms (the edge's REQUEST_BUDGET_MS, decision 132): past it the answer is 503
   * `{server: "temporarily unavailable"}` with `Retry-After`, and the calls made for it are told what is left
   * (`x-request-deadline`). Without it a service still honours the deadline its caller names.
   */
  requestBudgetMs?: number;
  /** The paths the budget applies to (default every path but the probes'): the all-in-one's checkout API, not its SOAP endpoint. */
  requestBudgetPaths?: (path: string) => boolean;
  /** Cross-origin requests allowed (decision 118); unset: no CORS headers. The lean routes take the same policy. */
  cors?: CorsPolicy;
}

/**
 * A Koa app with the plumbing every service shares: request id and access log, metrics, the error
 * envelope, body parsing, health and readiness. The caller mounts its routers afterwards.
 */
export function createHttpApp(options: HttpAppOptions): Koa {
  const {
    service,
    logger,
    bodyLimit = '1mb',
    readiness = [],
    metrics = true,
    metricsRegistries = [],
    errorBody,
    beforeBody = [],
    cors,
    requestBudgetMs,
    requestBudgetPaths,
  } = options;
  const app = new Koa();
  // The error middleware answers every error; Koa's default handler would only print to stderr.
  app.silent = true;
  app.on('error', (err: unknown) => logger.error({ err }, 'koa error'));

  app.use(requestContextMiddleware(app, logger, requestBudgetMs, requestBudgetPaths));
  // First of the rest: a preflight is answered before anything else, and every answer (errors too) carries the headers.
  if (cors) app.use(cors.middleware);
  if (metrics) {
    const appMetrics = createAppMetrics(service, metricsRegistries);
    setRequestObserver(app, appMetrics.observe);
    app.use(appMetrics.middleware);
  }
  app.use(errorMiddleware(logger, errorBody));
  app.use(deadlineMiddleware());
  for (const middleware of beforeBody) app.use(middleware);
  // JSON only: an XML (SOAP) body is left unread, for its route to stream with its own limit and to
  // answer an oversized one in its own error shape (a SOAP Fault) rather than this app's JSON.
  app.use(bodyParser({ enableTypes: ['json'], jsonLimit: bodyLimit, onError: protoKeysAsData }));
  app.use(healthMiddleware(app, readiness));
  return app;
}

/**
 * co-body refuses well-formed JSON with a `__proto__` key (or a `constructor` holding a `prototype`) as if it were
 * malformed. Such a body is data: `JSON.parse` makes those keys plain own properties (never a prototype), and the
 * route's validation names them (`{__proto__: "unknown field"}`) or ignores them. Any other error is thrown as before.
 */
function protoKeysAsData(err: Error, ctx: Koa.Context): void {
  const text = (err as { body?: unknown }).body;
  if (err.message !== 'Object contains forbidden prototype property' || typeof text !== 'string') throw err;
  ctx.request.body = JSON.parse(text) as unknown;
}
