import type { RouterContext } from '@koa/router';
import type Koa from 'koa';
import { RawJson, answerJson, type CheckoutDeps, type SessionHandle } from '@commerce/checkout-core';

/** The parsed JSON body (the shared body parser reads JSON only). */
export const requestBody = (ctx: Koa.Context): unknown => (ctx.request as { body?: unknown }).body;

export type SessionOf = (deps: CheckoutDeps, ctx: Koa.Context) => Promise<SessionHandle>;
export type RouteHandler = (handle: SessionHandle, params: Record<string, string>, ctx: Koa.Context) => Promise<unknown>;

/** A checkout route: open the request's session, call the use case, answer its envelope. */
export const sessionRoute =
  (deps: CheckoutDeps, sessionOf: SessionOf) =>
  (handler: RouteHandler) =>
  async (ctx: RouterContext): Promise<void> => {
    const body = await handler(await sessionOf(deps, ctx), ctx.params as Record<string, string>, ctx);
    if (body instanceof RawJson) {
      ctx.body = body.json;
      ctx.type = 'application/json';
    } else if (body !== null && typeof body === 'object' && Object.getPrototypeOf(body) === Object.prototype) {
      // An envelope: its stable parts (store lists, cached products) spliced in as kept JSON (decision 59).
      ctx.body = answerJson(body as Record<string, unknown>);
      ctx.type = 'application/json';
    } else ctx.body = body;
  };
