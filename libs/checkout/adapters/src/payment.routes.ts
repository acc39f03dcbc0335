import type Router from '@koa/router';
import { boundedInt } from '@commerce/shared-config';
import { addressSearch, paymentResult, receipt, startPayment, type CheckoutDeps } from '@commerce/checkout-core';
import { requestBody, sessionRoute, type SessionOf } from './route-handler';
import { withRenderedSelection, type SelectionAnswer } from './selection-answer-cache';

/** The edge's own variable of the checkout saga, for the checkout-api and all-in-one config schemas. */
export const paymentHoldEnv = () => ({
  /** How long `POST payment` holds the stock of a started payment (an unpaid attempt releases it then); under a minute: tests. */
  PAYMENT_HOLD_SECONDS: boundedInt(1, 7 * 24 * 3600, 1200).describe(
    'How long `POST payment` holds the stock of a started payment; an attempt not paid by then no longer holds it: a payment arriving later takes the stock if it is still there, otherwise no order is placed and the payment is voided (decision 55).',
  ),
});

/**
 * The checkout saga's routes: `POST payment`, `POST payment-result`, `GET receipt`, `POST address-search`. With the
 * selection routes' answer cache, `POST payment` takes the selection it holds at the session's version (decision 194).
 */
export function mountPaymentRoutes(
  router: Router,
  deps: CheckoutDeps,
  sessionOf: SessionOf,
  answers?: Pick<SelectionAnswer, 'selectionAt'>,
): void {
  const on = sessionRoute(deps, sessionOf);
  router.post(
    '/payment',
    on((h, _p, ctx) => startPayment(answers ? withRenderedSelection(deps, answers, h) : deps, h, requestBody(ctx))),
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
