import type Router from '@koa/router';
import { boundedInt } from '@commerce/shared-config';
import type { LeanRoute } from '@commerce/shared-http';
import { addressSearch, paymentResult, receipt, startPayment, type CheckoutDeps, type SessionHandle } from '@commerce/checkout-core';
import { requestBody, sessionRoute, type SessionOf } from './route-handler';
import { envelopeAnswered, type CheckoutLeanSession } from './selection.routes';

/** The edge's own variable of the checkout saga, for the checkout-api and all-in-one config schemas. */
export const paymentHoldEnv = () => ({
  /** How long `POST payment` holds the stock of a started payment (an unpaid attempt releases it then); under a minute: tests. */
  PAYMENT_HOLD_SECONDS: boundedInt(1, 7 * 24 * 3600, 1200).describe(
    'How long `POST payment` holds the stock of a started payment; an attempt not paid by then no longer holds it: a payment arriving later takes the stock if it is still there, otherwise no order is placed and the payment is voided (decision 55).',
  ),
});

/** The checkout saga's routes: `POST payment`, `POST payment-result`, `GET receipt`, `POST address-search`. */
export function mountPaymentRoutes(router: Router, deps: CheckoutDeps, sessionOf: SessionOf): void {
  const on = sessionRoute(deps, sessionOf);
  router.post(
    '/payment',
    on((h, _p, ctx) => startPayment(deps, h, requestBody(ctx))),
  );
  router.post(
    '/payment-result',
    on((h, _p, ctx) => paymentResult(deps, h, requestBody(ctx))),
  );
  router.get(
    '/receipt',
    on((h) => receipt(deps, h)),
  );
  router.post(
    '/address-search',
    on((h, _p, ctx) => addressSearch(deps, h, requestBody(ctx))),
  );
}

/**
 * `POST payment` and `POST payment-result` answered before the Koa app (decision 199), with the same use cases as
 * their router routes (which keep what these leave: a query string, another content type, a large body): the two
 * checkout requests a checkout makes besides its adds and reads, without the app's middleware and router.
 */
export function paymentLeanRoutes(deps: CheckoutDeps, prefix: string, session: CheckoutLeanSession): LeanRoute[] {
  const { openChanging: _changing, ...opening } = session;
  const escaped = prefix.replaceAll('/', '\\/');
  const route = (path: string, handle: (body: unknown, handle: SessionHandle) => Promise<unknown>): LeanRoute<SessionHandle> => ({
    ...opening,
    ...envelopeAnswered,
    method: 'POST',
    route: `${prefix}/${path}`,
    path: new RegExp(`^${escaped}\\/${path}$`),
    bodyless: true,
    handle: (_params, body, h) => handle(body, h),
  });
  return [
    route('payment', (body, h) => startPayment(deps, h, body)),
    route('payment-result', (body, h) => paymentResult(deps, h, body)),
  ] as LeanRoute[];
}
