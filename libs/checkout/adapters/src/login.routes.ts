import type Router from '@koa/router';
import type Koa from 'koa';
import {
  changeEmail,
  changePassword,
  login,
  logout,
  passwordReset,
  passwordResetEmail,
  register,
  subscribeBackInStock,
  subscribeNewsletter,
  updateAddress,
  type CheckoutDeps,
} from '@commerce/checkout-core';
import { requestBody, sessionRoute, type SessionOf } from './route-handler';
import { clientAddress } from './client-address';

/** The login, password-reset and subscription routes (spec: Authentication; DESIGN §6 bodies): parse, call the use case, answer the envelope. */
export function mountLoginRoutes(router: Router, deps: CheckoutDeps & { trustProxy?: boolean }, sessionOf: SessionOf): void {
  const on = sessionRoute(deps, sessionOf);
  const address = (ctx: Koa.Context): string => clientAddress(ctx.req, deps.trustProxy);

  router.post(
    '/register',
    on((h, _p, ctx) => register(deps, h, requestBody(ctx), address(ctx))),
  );
  router.post(
    '/login/:email',
    on((h, p, ctx) => login(deps, h, p['email']!, requestBody(ctx), address(ctx))),
  );
  router.post(
    '/logout',
    on((h) => logout(deps, h)),
  );
  router.put(
    '/address',
    on((h, _p, ctx) => updateAddress(deps, h, requestBody(ctx))),
  );
  router.put(
    '/customer/update',
    on((h, _p, ctx) => updateAddress(deps, h, requestBody(ctx))),
  );
  router.put(
    '/email',
    on((h, _p, ctx) => changeEmail(deps, h, requestBody(ctx))),
  );
  router.put(
    '/password',
    on((h, _p, ctx) => changePassword(deps, h, requestBody(ctx))),
  );
  router.post(
    '/password-reset-email/:email',
    on((h, p, ctx) => passwordResetEmail(deps, h, p['email']!, requestBody(ctx), address(ctx))),
  );
  router.post(
    '/password-reset',
    on((h, _p, ctx) => passwordReset(deps, h, requestBody(ctx), address(ctx))),
  );
  router.post(
    '/newsletter-subscription',
    on((h, _p, ctx) => subscribeNewsletter(deps, h, requestBody(ctx))),
  );
  router.post(
    '/back-in-stock-subscription',
    on((h, _p, ctx) => subscribeBackInStock(deps, h, requestBody(ctx))),
  );
}
