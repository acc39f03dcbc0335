import Router, { type RouterContext } from '@koa/router';
import { withCodes as answerWithCodes, type LeanRoute } from '@commerce/shared-http';
import type { PaymentClient, StartAttemptCommand } from '@commerce/payment-contracts';

type Body = Record<string, unknown>;
const requestBody = (ctx: { request: unknown }): Body => ((ctx.request as { body?: unknown }).body ?? {}) as Body;
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A checkout's two calls (the saga's start and the visitor's return), for the router and the lean routes alike. */
const startAttempt = (payment: PaymentClient, body: unknown) => payment.startAttempt(body as StartAttemptCommand);
const verifyResult = (payment: PaymentClient, body: unknown) =>
  payment.verifyResult(((body as Body)['fields'] ?? {}) as Record<string, string>);

/**
 * A checkout's calls answered without the app's middleware (decision 63; issue 28): the same answers and errors as
 * the router's routes (`{code, errors}` for a domain error), which stay for what these do not take (another content
 * type, a body over 64 kB) and for the all-in-one.
 */
export function createPaymentLeanRoutes(payment: PaymentClient): LeanRoute[] {
  return [
    {
      method: 'POST',
      route: '/internal/payment/attempts',
      path: /^\/internal\/payment\/attempts$/,
      handle: (_params, body) => startAttempt(payment, body),
    },
    {
      method: 'POST',
      route: '/internal/payment/results',
      path: /^\/internal\/payment\/results$/,
      handle: (_params, body) => verifyResult(payment, body),
    },
  ];
}

/** The payment service's internal HTTP API (DESIGN §2): what `createPaymentHttpClient` calls. */
export function createPaymentInternalRouter(payment: PaymentClient): Router {
  const router = new Router({ prefix: '/internal/payment' });
  // Errors carry their code, so the client rebuilds the same DomainError; an unknown attempt is a bare 404.
  const withCodes = (handler: (ctx: RouterContext) => Promise<unknown>) =>
    answerWithCodes(handler, { notFound: { errors: { attempt: 'not found' } } });
  router.post(
    '/attempts',
    withCodes((ctx) => startAttempt(payment, requestBody(ctx))),
  );
  router.get(
    '/attempts/:id',
    withCodes((ctx) => payment.getAttempt(ctx.params['id']!)),
  );
  router.get(
    '/selections/:selection/live-attempt',
    withCodes((ctx) => payment.liveAttemptOf(ctx.params['selection']!)),
  );
  router.post(
    '/attempts/:id/cancellation',
    withCodes((ctx) => payment.cancelAttempt(ctx.params['id']!)),
  );
  router.post(
    '/attempts/:id/void',
    withCodes((ctx) => payment.voidAttempt(ctx.params['id']!)),
  );
  router.post(
    '/results',
    withCodes((ctx) => verifyResult(payment, requestBody(ctx))),
  );
  router.post(
    '/address-searches',
    withCodes((ctx) => {
      const body = requestBody(ctx);
      return payment.addressSearch(
        text(body['paymentMethod']),
        body['country'] === null ? null : text(body['country']),
        text(body['identityNumber']),
      );
    }),
  );
  return router;
}
