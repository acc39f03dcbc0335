import type Koa from 'koa';
import { REQUEST_ID_HEADER, newRequestId, withRequestContext, type Logger } from '@commerce/shared-logging';
import { isShuttingDown } from './app-state';

// Probes and scrapes arrive every few seconds; at info they would drown the access log.
const quietPaths = new Set(['/healthz', '/readyz', '/metrics']);
// Ids come from clients and land in logs and headers: keep them short and printable.
const acceptableId = /^[\w.:@/+=-]{1,128}$/;

/** Gives every request an id (the caller's or a new one) and writes one access log line. */
export function requestContextMiddleware(app: Koa, logger: Logger): Koa.Middleware {
  return async (ctx, next) => {
    const given = ctx.get(REQUEST_ID_HEADER);
    const requestId = acceptableId.test(given) ? given : newRequestId();
    ctx.state['requestId'] = requestId;
    ctx.set(REQUEST_ID_HEADER, requestId);
    const started = performance.now();
    await withRequestContext({ requestId }, async () => {
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
