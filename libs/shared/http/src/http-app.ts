import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import type { Logger } from '@commerce/shared-logging';
import { requestContextMiddleware } from './request-context.middleware';
import { createAppMetrics } from './metrics.middleware';
import { errorMiddleware } from './error.middleware';
import { healthMiddleware, type ReadinessCheck } from './health.middleware';

export interface HttpAppOptions {
  service: string;
  logger: Logger;
  /** Largest accepted JSON or XML body, in `bytes` notation. */
  bodyLimit?: string;
  /** Largest accepted XML or text body (SOAP batches are larger than JSON requests); defaults to bodyLimit. */
  xmlBodyLimit?: string;
  readiness?: ReadinessCheck[];
  metrics?: boolean;
  /** Members merged into every error body, e.g. the checkout envelope's `token`. */
  errorBody?: (ctx: Koa.Context) => Record<string, unknown>;
  /**
   * Middleware that runs inside the error envelope but before the body is read, e.g. the checkout's
   * session opening, so that even a malformed body gets an error that carries the session token.
   */
  beforeBody?: Koa.Middleware[];
}

/**
 * A Koa app with the plumbing every service shares: request id and access log, metrics, the error
 * envelope, body parsing, health and readiness. The caller mounts its routers afterwards.
 */
export function createHttpApp(options: HttpAppOptions): Koa {
  const { service, logger, bodyLimit = '1mb', readiness = [], metrics = true, errorBody, beforeBody = [] } = options;
  const xmlBodyLimit = options.xmlBodyLimit ?? bodyLimit;
  const app = new Koa();
  // The error middleware answers every error; Koa's default handler would only print to stderr.
  app.silent = true;
  app.on('error', (err: unknown) => logger.error({ err }, 'koa error'));

  app.use(requestContextMiddleware(app, logger));
  if (metrics) app.use(createAppMetrics(service).middleware);
  app.use(errorMiddleware(logger, errorBody));
  for (const middleware of beforeBody) app.use(middleware);
  app.use(
    bodyParser({
      // text/xml stays raw text: the SOAP adapter parses envelopes itself from the body / rawBody.
      enableTypes: ['json', 'text', 'xml'],
      jsonLimit: bodyLimit,
      xmlLimit: xmlBodyLimit,
      textLimit: xmlBodyLimit,
    }),
  );
  app.use(healthMiddleware(app, readiness));
  return app;
}
