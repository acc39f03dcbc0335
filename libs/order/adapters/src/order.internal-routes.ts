import Router, { type RouterContext } from '@koa/router';
import { answerOrNotFound, withCodes, type LeanRoute } from '@commerce/shared-http';
import type { OrderClient, OrderDto } from '@commerce/order-contracts';
import { fieldsFromIssues, ValidationError } from '@commerce/shared-errors';
import { z } from 'zod';

/** What the edge sends for `POST payment-result`: the provider's fields as given, and the attempt its session started. */
const PaymentResultBody = z.object({ fields: z.record(z.string(), z.string()), expectedAttemptId: z.string().max(128).nullable() });

const requestBody = (ctx: { request: unknown }): unknown => (ctx.request as { body?: unknown }).body ?? {};
/** A query number as given: NaN when malformed, so the use case's paging check names it. */
const numberParam = (value: unknown): number => (typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN);

/** The saga's two calls of the edge (`POST payment`, `POST payment-result`), for the router and the lean routes alike. */
const beginCheckout = (orders: OrderClient, body: unknown) => orders.beginCheckout(body as never);
const completePaymentResult = (orders: OrderClient, body: unknown) => {
  // The fields are the payment service's to check (its errors name `paymentMethodFields`); only their shape here.
  const parsed = PaymentResultBody.safeParse(body);
  if (!parsed.success) throw new ValidationError(fieldsFromIssues(parsed.error.issues), 'ORDER.INVALID_PAYMENT_RESULT');
  return orders.completePaymentResult(parsed.data.fields, parsed.data.expectedAttemptId);
};

/**
 * The saga's calls answered without the app's middleware (decision 63; issue 28): the same answers and errors as the
 * router's routes (`{code, errors}` for a domain error), which stay for what these do not take (another content type,
 * a body over 64 kB) and for the all-in-one.
 */
export function createOrderLeanRoutes(orders: OrderClient): LeanRoute[] {
  return [
    {
      method: 'POST',
      route: '/internal/order/checkouts',
      path: /^\/internal\/order\/checkouts$/,
      handle: (_params, body) => beginCheckout(orders, body),
    },
    {
      method: 'POST',
      route: '/internal/order/payment-results',
      path: /^\/internal\/order\/payment-results$/,
      handle: (_params, body) => completePaymentResult(orders, body),
    },
  ];
}

/** The order service's internal HTTP API (DESIGN §2): what `createOrderHttpClient` calls. */
export function createOrderInternalRouter(orders: OrderClient): Router {
  const router = new Router({ prefix: '/internal/order' });
  // Errors carry their code, so the client rebuilds the same DomainError; an unknown order is a bare 404.
  const answer = (ctx: RouterContext, order: OrderDto | null) => answerOrNotFound(ctx, order, 'order');
  router.post(
    '/orders',
    withCodes((ctx) => orders.placeOrder(requestBody(ctx) as never)),
  );
  router.post(
    '/checkouts',
    withCodes((ctx) => beginCheckout(orders, requestBody(ctx))),
  );
  router.post(
    '/payment-attempts/:attempt/completion',
    withCodes((ctx) => orders.completePaidAttempt(ctx.params['attempt']!)),
  );
  router.post(
    '/payment-results',
    withCodes((ctx) => completePaymentResult(orders, requestBody(ctx))),
  );
  router.get('/orders/:id', async (ctx) => answer(ctx, await orders.getOrder(ctx.params['id']!)));
  router.get('/payment-attempts/:attempt/order', async (ctx) => answer(ctx, await orders.getOrderByPaymentAttempt(ctx.params['attempt']!)));
  router.get(
    '/customers/:customer/orders',
    withCodes((ctx) =>
      orders.listCustomerOrders(
        ctx.params['customer']!,
        ctx.query['from'] === undefined ? 0 : numberParam(ctx.query['from']),
        ctx.query['size'] === undefined ? null : numberParam(ctx.query['size']),
      ),
    ),
  );
  return router;
}
