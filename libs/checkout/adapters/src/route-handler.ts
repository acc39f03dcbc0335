import type { RouterContext } from '@koa/router';
import type Koa from 'koa';
import { RawJson, answerBytes, type CheckoutDeps, type SessionHandle } from '@commerce/checkout-core';
import { NO_NUL, NO_NUL_MESSAGE, NOT_A_JSON_OBJECT, ValidationError } from '@commerce/shared-errors';

/**
 * The parsed JSON body (the shared body parser reads JSON only). Every checkout body is an object: an array is
 * 400 `{body: "must be a JSON object"}`, as the lean routes answer it (decision 114).
 */
export const requestBody = (ctx: Koa.Context): unknown => {
  const body = (ctx.request as { body?: unknown }).body;
  if (Array.isArray(body)) throw new ValidationError({ body: NOT_A_JSON_OBJECT });
  return body;
};

export type SessionOf = (deps: CheckoutDeps, ctx: Koa.Context) => Promise<SessionHandle>;
export type RouteHandler = (handle: SessionHandle, params: Record<string, string>, ctx: Koa.Context) => Promise<unknown>;

/** A path value with a NUL character (`%00`), which no lookup can take (Postgres refuses it): 400 naming the parameter. */
function checkedParams(params: Record<string, string>): Record<string, string> {
  for (const [name, value] of Object.entries(params)) if (!NO_NUL.test(value)) throw new ValidationError({ [name]: NO_NUL_MESSAGE });
  return params;
}

/** A checkout route: open the request's session, call the use case, answer its envelope. */
export const sessionRoute =
  (deps: CheckoutDeps, sessionOf: SessionOf) =>
  (handler: RouteHandler) =>
  async (ctx: RouterContext): Promise<void> => {
    const handle = await sessionOf(deps, ctx);
    const body = await handler(handle, checkedParams(ctx.params as Record<string, string>), ctx);
    const json = envelopeJson(body);
    if (json === undefined) ctx.body = body;
    else {
      ctx.body = json;
      ctx.type = 'application/json';
    }
  };

/**
 * A use case's answer as a lean route sends it (`LeanRoute.json`): a `RawJson`'s parts as they are (written
 * one after the other, no copy of a kept rendering), else `envelopeJson`.
 */
export const envelopeParts = (body: unknown): string | Buffer | readonly Buffer[] | undefined =>
  body instanceof RawJson && body.parts ? body.parts : envelopeJson(body);

/** A use case's answer as the JSON the route sends, or undefined for what is not an envelope (left to Koa). */
export function envelopeJson(body: unknown): string | Buffer | undefined {
  if (body instanceof RawJson) return body.json;
  // An envelope: its stable parts (store lists, cached products) copied in as kept bytes (decisions 59, 84).
  if (body !== null && typeof body === 'object' && Object.getPrototypeOf(body) === Object.prototype)
    return answerBytes(body as Record<string, unknown>);
  return undefined;
}
