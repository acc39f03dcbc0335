import type Router from '@koa/router';
import { listOrders, type CheckoutDeps } from '@commerce/checkout-core';
import { requestBody, sessionRoute, type SessionOf } from './route-handler';

/** `POST orders`: the order history of the customer logged in on the token. */
export function mountOrderHistoryRoutes(router: Router, deps: CheckoutDeps, sessionOf: SessionOf): void {
  const on = sessionRoute(deps, sessionOf);
  router.post(
    '/orders',
    on((h, _p, ctx) => listOrders(deps, h, requestBody(ctx))),
  );
}
