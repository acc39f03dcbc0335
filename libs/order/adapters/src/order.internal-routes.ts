import Router, { type RouterContext } from '@koa/router';
import { answerOrNotFound, withCodes } from '@commerce/shared-http';
import type { OrderClient, OrderDto } from '@commerce/order-contracts';
import { fieldsFromIssues, ValidationError } from '@commerce/shared-errors';
import { z } from 'zod';

/** What the edge sends for `POST payment-result`: the provider's fields as given, and the attempt its session started. */
const PaymentResultBody = z.object({ fields: z.record(z.string(), z.string()), expectedAttemptId: z.string().max(128).nullable() });

const requestBody = (ctx: { request: unknown }): unknown => (ctx.request as { body?: unknown }).body ?? {};
/** A query number as given: NaN when malformed, so the use case's paging check names it. */
const numberParam = (value: unknown): number => (typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN);

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
    withCodes((ctx) => orders.beginCheckout(requestBody(ctx) as never)),
  );
  router.post(
    '/payment-attempts/:attempt/completion',
    withCodes((ctx) => orders.completePaidAttempt(ctx.params['attempt']!)),
  );
  router.post(
    '/payment-results',
    withCodes((ctx) => {
      const body = requestBody(ctx) as { fields?: unknown; expectedAttemptId?: unknown };
      // The fields are the payment service's to check (its errors name `paymentMethodFields`); only their shape here.
      const parsed = PaymentResultBody.safeParse(body);
      if (!parsed.success) throw new ValidationError(fieldsFromIssues(parsed.error.issues), 'ORDER.INVALID_PAYMENT_RESULT');
      return orders.completePaymentResult(parsed.data.fields, parsed.data.expectedAttemptId);
    }),
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
