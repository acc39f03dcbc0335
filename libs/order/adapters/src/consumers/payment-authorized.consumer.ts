import { PaymentAuthorized, PaymentTopics } from '@commerce/payment-contracts';
import { consumeOnce, type EventEnvelope, type SubscribeOptions } from '@commerce/shared-bus';
import type { Db } from '@commerce/shared-db';
import type { Logger } from '@commerce/shared-logging';
import type { OrderClient } from '@commerce/order-contracts';

export const ORDER_PAYMENTS_GROUP = 'order-payments';

export interface PaymentAuthorizedConsumerDeps {
  db: Db;
  logger: Logger;
  orders: Pick<OrderClient, 'completePaidAttempt'>;
}

/**
 * Completes the checkout of a paid attempt when its payment is authorized, whether or not the visitor
 * comes back to post the result (a closed browser after paying still gets its order): the same
 * `completePaidAttempt` as the edge's `payment-result`, idempotent by attempt id. The completion calls
 * the payment, catalog and cart services, so it runs before the dedupe record rather than inside its
 * transaction (the all-in-one's PGlite is one connection); a redelivery meets the attempt's order. A
 * failure (a service down) throws: the bus retries, then moves the event to `payment.payment.v1.dlq`.
 * The topic's other events are not ours.
 */
export function paymentAuthorizedConsumer(deps: PaymentAuthorizedConsumerDeps): SubscribeOptions {
  return {
    groupId: ORDER_PAYMENTS_GROUP,
    topics: [PaymentTopics.PAYMENT],
    // The retries span a service's restart (backoff), before the event goes to the dead-letter topic.
    maxAttempts: 10,
    handle: async (envelope: EventEnvelope) => {
      if (envelope.type !== PaymentAuthorized.type) return;
      const { attemptId } = PaymentAuthorized.parse(envelope).payload;
      const completion = await deps.orders.completePaidAttempt(attemptId);
      await consumeOnce(deps.db, ORDER_PAYMENTS_GROUP, envelope, async () => undefined);
      if (completion.placed) deps.logger.debug({ eventId: envelope.id, attemptId, order: completion.order.order }, 'order: paid attempt completed');
      else deps.logger.warn({ eventId: envelope.id, attemptId, unavailable: completion.unavailable }, 'order: stock of an expired hold gone, payment voided');
    },
  };
}
