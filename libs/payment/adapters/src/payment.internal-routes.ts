import Router, { type RouterContext } from '@koa/router';
import { withCodes as answerWithCodes } from '@commerce/shared-http';
import type { PaymentClient, StartAttemptCommand } from '@commerce/payment-contracts';

type Body = Record<string, unknown>;
const requestBody = (ctx: { request: unknown }): Body => ((ctx.request as { body?: unknown }).body ?? {}) as Body;
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The payment service's internal HTTP API (DESIGN §2): what `createPaymentHttpClient` calls. */
export function createPaymentInternalRouter(payment: PaymentClient): Router {
  const router = new Router({ prefix: '/internal/payment' });
  // Errors carry their code, so the client rebuilds the same DomainError; an unknown attempt is a bare 404.
  const withCodes = (handler: (ctx: RouterContext) => Promise<unknown>) =>
    answerWithCodes(handler, { notFound: { errors: { attempt: 'not found' } } });
  router.post(
    '/attempts',
    withCodes((ctx) => payment.startAttempt(requestBody(ctx) as unknown as StartAttemptCommand)),
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
    withCodes((ctx) => payment.verifyResult((requestBody(ctx)['fields'] ?? {}) as Record<string, string>)),
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
