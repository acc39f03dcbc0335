import type Router from '@koa/router';
import type { RouterContext } from '@koa/router';
import type Koa from 'koa';
import {
  changeEmail,
  changePassword,
  login,
  logout,
  register,
  updateAddress,
  type CheckoutDeps,
  type SessionHandle,
} from '@commerce/checkout-core';

const requestBody = (ctx: Koa.Context): unknown => (ctx.request as { body?: unknown }).body;

/** The login routes (spec: Authentication; DESIGN §6 bodies): parse, call the use case, answer the envelope. */
export function mountLoginRoutes(
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
    '/register',
    on((h, _p, ctx) => register(deps, h, requestBody(ctx))),
  );
  router.post(
    '/login/:email',
    on((h, p, ctx) => login(deps, h, p['email']!, requestBody(ctx))),
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
}
