import type Router from '@koa/router';
import { getProduct, listCategories, resolveUri, searchProducts, type CheckoutDeps } from '@commerce/checkout-core';
import { requestBody, sessionRoute, type SessionOf } from './route-handler';

/** Products, categories and URIs (the spec's catalog endpoints): parse, call the use case, answer the envelope. */
export function mountProductRoutes(router: Router, deps: CheckoutDeps, sessionOf: SessionOf): void {
  const on = sessionRoute(deps, sessionOf);

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
