import type Koa from 'koa';
import { isDomainError, NOT_A_JSON_OBJECT, RETRY_AFTER_SECONDS, statusOfKind, type ErrorFields } from '@commerce/shared-errors';
import type { Logger } from '@commerce/shared-logging';
import { isJsonNonObject } from './json-text';
import { unavailableAnswer } from './deadline';

export type ErrorBodyExtra = (ctx: Koa.Context) => Record<string, unknown>;

interface HttpLikeError {
  status?: unknown;
  statusCode?: unknown;
  expose?: unknown;
  type?: unknown;
  name?: unknown;
  message?: unknown;
  /** The text co-body could not take (it keeps it on its SyntaxError). */
  body?: unknown;
}

const statusOf = (err: HttpLikeError): number | undefined => {
  const status = typeof err.status === 'number' ? err.status : typeof err.statusCode === 'number' ? err.statusCode : undefined;
  return status !== undefined && status >= 400 && status < 600 ? status : undefined;
};

/** Errors that say something about the request (body-parser, router, ctx.throw), as status and `errors`. */
function clientError(err: HttpLikeError): { status: number; fields: ErrorFields } | undefined {
  const status = statusOf(err);
  if (status === undefined || status >= 500) {
    return status === 501 ? { status, fields: { method: 'not implemented' } } : undefined;
  }
  if (err.type === 'entity.too.large' || status === 413) return { status: 413, fields: { body: 'too large' } };
  // co-body throws a SyntaxError with status 400 (and no `type`) for a body that is not JSON.
  if (err.type === 'entity.parse.failed' || (status === 400 && err.name === 'SyntaxError'))
    return { status: 400, fields: { body: isJsonNonObject(err.body) ? NOT_A_JSON_OBJECT : 'malformed JSON' } };
  if (status === 404) return { status, fields: { path: 'not found' } };
  if (status === 405) return { status, fields: { method: 'not allowed' } };
  if (status === 415) return { status, fields: { body: 'must be JSON (Content-Type: application/json)' } };
  if ((typeof err.type === 'string' && err.type.startsWith('entity.')) || err.type === 'request.aborted') {
    return { status, fields: { body: 'invalid' } };
  }
  // http-errors marks a message as safe to show with `expose`; otherwise keep it to ourselves.
  const message = err.expose === true && typeof err.message === 'string' && err.message ? err.message : 'invalid';
  return { status, fields: { request: message } };
}

/**
 * The one place where failures become the spec's error envelope `{ token, errors: {field: message} }`.
 * Also turns "nothing answered" (404) and the router's bare 405/501 into that envelope.
 */
export function errorMiddleware(logger: Logger, errorBody?: ErrorBodyExtra): Koa.Middleware {
  const respond = (ctx: Koa.Context, status: number, fields: ErrorFields, extra: Record<string, unknown> = {}): void => {
    let envelope: Record<string, unknown> = {};
    try {
      envelope = errorBody?.(ctx) ?? {};
    } catch (err) {
      logger.error({ err }, 'errorBody failed; answering without its members');
    }
    ctx.status = status;
    // Every 503 says when to try again (decision 132).
    if (status === 503 && !ctx.response.get('Retry-After')) ctx.set('Retry-After', RETRY_AFTER_SECONDS);
    ctx.body = { ...envelope, errors: fields, ...extra };
    ctx.type = 'application/json';
  };

  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (ctx.headerSent) {
        // A streamed response already went out; all that is left is to say so and drop the socket.
        logger.error({ err }, 'error after the response started');
        ctx.res.destroy();
        return;
      }
      if (isDomainError(err)) {
        const status = statusOfKind[err.kind];
        if (status >= 500) logger.warn({ code: err.code, fields: err.fields }, err.message);
        else logger.debug({ code: err.code, fields: err.fields }, err.message);
        ctx.set(err.headers);
        respond(ctx, status, err.fields, err.extra);
        return;
      }
      const known = err !== null && typeof err === 'object' ? clientError(err as HttpLikeError) : undefined;
      if (known) {
        logger.debug({ status: known.status, fields: known.fields }, 'request rejected');
        // Headers set by the thrower (e.g. Allow of a 405) are worth keeping.
        const headers = (err as { headers?: Record<string, string> }).headers;
        if (headers) ctx.set(headers);
        respond(ctx, known.status, known.fields);
        return;
      }
      // An engine that did not answer in time is a 503 to try again, not a bug (decision 132).
      const unavailable = unavailableAnswer(err, logger);
      if (unavailable) {
        ctx.set(unavailable.headers);
        respond(ctx, 503, unavailable.fields);
        return;
      }
      logger.error({ err }, 'unhandled error');
      respond(ctx, 500, { server: 'internal error' });
      return;
    }
    // Nothing threw but nothing answered either: give the router's bare statuses the envelope too.
    if (ctx.body === undefined || ctx.body === null) {
      if (ctx.status === 404) respond(ctx, 404, { path: 'not found' });
      else if (ctx.status === 405) respond(ctx, 405, { method: 'not allowed' });
      else if (ctx.status === 501) respond(ctx, 501, { method: 'not implemented' });
    }
  };
}
