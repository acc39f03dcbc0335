import type { RouterContext } from '@koa/router';
import { isDomainError, statusOfKind, type DomainError } from '@commerce/shared-errors';

export interface WithCodesOptions {
  /** The status of an answer (default: Koa's, 200 for a body). */
  status?: number;
  /** A domain error left to the error middleware instead (a service's bare 404 of an unknown entity). */
  passes?: (err: DomainError) => boolean;
  /** The 404 body when the handler answers null (default: null is answered as it is). */
  notFound?: unknown;
}

/**
 * An internal route (DESIGN §2): the handler's result is the body; a domain error is answered with its
 * kind's status and `{code, errors}`, so the service's HTTP client rebuilds the same DomainError.
 */
export const withCodes =
  (handler: (ctx: RouterContext) => Promise<unknown>, options: WithCodesOptions = {}) =>
  async (ctx: RouterContext): Promise<void> => {
    try {
      const body = await handler(ctx);
      if (body === null && options.notFound !== undefined) {
        ctx.status = 404;
        ctx.body = options.notFound;
        return;
      }
      ctx.body = body;
      if (options.status !== undefined) ctx.status = options.status;
    } catch (err) {
      if (!isDomainError(err) || options.passes?.(err)) throw err;
      ctx.status = statusOfKind[err.kind];
      ctx.body = { code: err.code, errors: err.fields };
    }
  };

/**
 * "Nothing there" on an internal route: the value as the body, or a 404 `{errors: {[what]: 'not found'}}` without a
 * code, which the service's HTTP client reads as null (a 404 with a code is a domain error).
 */
export function answerOrNotFound(ctx: { status: number; body: unknown }, value: unknown, what: string): void {
  if (value === null || value === undefined) answerNotFound(ctx, { [what]: 'not found' });
  else ctx.body = value;
}

/** The bare 404 of an internal route, `{errors: fields}` without a code (see answerOrNotFound). */
export function answerNotFound(ctx: { status: number; body: unknown }, fields: Record<string, string>): void {
  ctx.status = 404;
  ctx.body = { errors: fields };
}
