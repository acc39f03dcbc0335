import type Koa from 'koa';
import { DEADLINE_HEADER, REQUEST_ID_HEADER, deadlineOf, newRequestId, withRequestContext, type Logger } from '@commerce/shared-logging';
import { isShuttingDown } from './app-state';
import { PROBE_PATHS } from './deadline';

// Probes and scrapes arrive every few seconds; at info they would drown the access log.
const quietPaths = PROBE_PATHS;
// Ids come from clients and land in logs and headers: keep them short and printable.
const acceptableId = /^[\w.:@/+=-]{1,128}$/;

/**
 * Gives every request an id (the caller's or a new one) and its deadline (`budgetMs` from now on the paths
 * `budgeted` names, no later than the caller's `x-request-deadline`; none for probes), and writes one access log line.
 */
export function requestContextMiddleware(
  app: Koa,
  logger: Logger,
  budgetMs?: number,
  budgeted: (path: string) => boolean = () => true,
): Koa.Middleware {
  return async (ctx, next) => {
    const given = ctx.get(REQUEST_ID_HEADER);
    const requestId = acceptableId.test(given) ? given : newRequestId();
    const deadline = quietPaths.has(ctx.path)
      ? undefined
      : deadlineOf(ctx.req.headers[DEADLINE_HEADER], budgeted(ctx.path) ? budgetMs : undefined);
    ctx.state['requestId'] = requestId;
    ctx.set(REQUEST_ID_HEADER, requestId);
    const started = performance.now();
    await withRequestContext(deadline === undefined ? { requestId } : { requestId, deadline }, async () => {
      try {
        await next();
      } finally {
        // During a graceful shutdown, a kept-alive socket must not outlive its last response.
        if (isShuttingDown(app)) ctx.set('Connection', 'close');
        const line = { method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round((performance.now() - started) * 10) / 10 };
        if (quietPaths.has(ctx.path)) logger.debug(line, 'request');
        else logger.info(line, 'request');
      }
    });
  };
}
