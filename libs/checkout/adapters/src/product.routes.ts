import type Router from '@koa/router';
import type { RouterContext } from '@koa/router';
import type Koa from 'koa';
import { getProduct, listCategories, resolveUri, searchProducts, type CheckoutDeps, type SessionHandle } from '@commerce/checkout-core';

const requestBody = (ctx: Koa.Context): unknown => (ctx.request as { body?: unknown }).body;

/** Products, categories and URIs (the spec's catalog endpoints): parse, call the use case, answer the envelope. */
export function mountProductRoutes(
  router: Router,
  deps: CheckoutDeps,
  sessionOf: (deps: CheckoutDeps, ctx: Koa.Context) => Promise<SessionHandle>,
): void {
  const on =
    (handler: (handle: SessionHandle, params: Record<string, string>, ctx: Koa.Context) => Promise<unknown>) =>
    async (ctx: RouterContext) => {
      ctx.body = await handler(await sessionOf(deps, ctx), ctx.params as Record<string, string>, ctx);
    };

  router.post(
    '/products',
    on((h, _p, ctx) => searchProducts(deps, h, requestBody(ctx))),
  );
  router.get(
    '/products/:product',
    on((h, p) => getProduct(deps, h, p['product']!)),
  );
  router.post(
    '/uri',
    on((h, _p, ctx) => resolveUri(deps, h, requestBody(ctx))),
  );
  router.get(
    '/categories',
    on((h) => listCategories(deps, h)),
  );
}
