import { PaymentAuthorized, PaymentDeclined, PaymentTopics } from '@commerce/payment-contracts';
import { recordConsumed, type EventEnvelope, type SubscribeOptions } from '@commerce/shared-bus';
import type { Db } from '@commerce/shared-db';
import type { Logger } from '@commerce/shared-logging';
import type { OrderClient } from '@commerce/order-contracts';
import type { CartClient } from '@commerce/cart-contracts';
import type { PlacedCheckout } from '@commerce/order-core';

export const ORDER_PAYMENTS_GROUP = 'order-payments';

/** The default of WEBHOOK_COMPLETION_GRACE_MS. */
export const DEFAULT_WEBHOOK_COMPLETION_GRACE_MS = 3000;
/** At most this: the wait holds the consumer's partition, and Kafka drops a member silent for 10 s. */
export const MAX_WEBHOOK_COMPLETION_GRACE_MS = 8000;

export interface PaymentAuthorizedConsumerDeps {
  db: Db;
  logger: Logger;
  orders: Pick<OrderClient, 'completePaidAttempt'>;
  /**
   * The attempt's order, if placed, and whether the saga left its selection open (the order service's own read); with
   * `consumed`, the event recorded as consumed in the same statement when the order is there and its selection closed.
   */
  checkoutOf: (attemptId: string, consumed?: { consumer: string; eventId: string }) => Promise<PlacedCheckout | null>;
  /** Closes the attempt's selection when the saga placed the order but could not close it (the cart failed). */
  cart: Pick<CartClient, 'closeSelection'>;
  /**
   * How long after its authorization an attempt is left to the visitor's `payment-result` (the edge
   * completes it then) before this consumer looks (WEBHOOK_COMPLETION_GRACE_MS; default 3000, at most
   * 8000): an attempt with an order by then is not completed a second time. 0: at once.
   */
  graceMs?: number;
  /** For tests: the clock and the wait. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Completes the checkout of a paid attempt when its payment is authorized, whether or not the visitor
 * comes back to post the result (a closed browser after paying still gets its order): the same
 * `completePaidAttempt` as the edge's `payment-result`, idempotent by attempt id. A fresh attempt is
 * the edge's first: the consumer waits until the grace period after the event has passed, and leaves an
 * attempt that has its order by then alone, instead of racing the visitor's `payment-result` through the
 * payment, catalog and cart services and the order's row locks. The saga closes the selection before it
 * places the order, so an order found means a closed selection, unless the saga could not close it (the
 * cart failed) and said so on the order: only then does this consumer close it. The wait counts from the event's
 * `occurredAt` (never longer than the grace period, whatever the clocks say), so a backlog of older
 * events is not slowed. The completion calls the payment, catalog and cart services, so it runs before
 * the dedupe record rather than inside its transaction (the all-in-one's PGlite is one connection); a
 * redelivery meets the attempt's order. A failure (a service down) throws: the bus retries, then moves
 * the event to `payment.payment.v1.dlq`.
 *
 * A `PaymentDeclined` (the provider's webhook, or the visitor's result) is applied at once the same way: the saga
 * releases the declined attempt's stock hold, so the items are back on sale now rather than when the hold expires
 * (a visitor who closed the provider's page after a decline never posts the result). The topic's other events
 * are not ours.
 */
export function paymentAuthorizedConsumer(deps: PaymentAuthorizedConsumerDeps): SubscribeOptions {
  const graceMs = Math.min(Math.max(deps.graceMs ?? DEFAULT_WEBHOOK_COMPLETION_GRACE_MS, 0), MAX_WEBHOOK_COMPLETION_GRACE_MS);
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? wait;
  return {
    groupId: ORDER_PAYMENTS_GROUP,
    topics: [PaymentTopics.PAYMENT],
    // The retries span a service's restart (backoff), before the event goes to the dead-letter topic.
    maxAttempts: 10,
    // The saga's fallback, after its grace: a fetch gathers for up to 2 s, one fetch and one commit a partition for
    // many payments' events under load (decision 175). An event arrives within the default 3 s grace it waits anyway;
    // a decline's hold is released up to 2 s after it, not 0.5 s; idle, a fetch every 2 s, not 2 a second (decision 200).
    gatherMs: 2000,
    handle: async (envelope: EventEnvelope) => {
      if (envelope.type === PaymentDeclined.type) {
        const { attemptId } = PaymentDeclined.parse(envelope).payload;
        // Idempotent: a declined attempt's completion releases its hold (again), places nothing.
        await deps.orders.completePaidAttempt(attemptId);
        await recordConsumed(deps.db, ORDER_PAYMENTS_GROUP, envelope);
        deps.logger.debug({ eventId: envelope.id, attemptId }, 'order: declined attempt, its stock hold released');
        return;
      }
      if (envelope.type !== PaymentAuthorized.type) return;
      const { attemptId, selectionId } = PaymentAuthorized.parse(envelope).payload;
      if (graceMs > 0) {
        const left = Math.min(Date.parse(envelope.occurredAt) + graceMs - now(), graceMs);
        if (left > 0) await sleep(left);
        // One statement when the edge completed it (nearly always): the order read and the event recorded with it.
        const order = await deps.checkoutOf(attemptId, { consumer: ORDER_PAYMENTS_GROUP, eventId: envelope.id });
        if (order) {
          if (order.selectionLeftOpen) {
            await deps.cart.closeSelection(selectionId);
            await recordConsumed(deps.db, ORDER_PAYMENTS_GROUP, envelope);
          }
          deps.logger.debug({ eventId: envelope.id, attemptId, order: order.order }, 'order: paid attempt completed by the edge');
          return;
        }
      }
      const completion = await deps.orders.completePaidAttempt(attemptId);
      await recordConsumed(deps.db, ORDER_PAYMENTS_GROUP, envelope);
      if (completion.placed)
        deps.logger.debug({ eventId: envelope.id, attemptId, order: completion.order.order }, 'order: paid attempt completed');
      else if ('failed' in completion)
        deps.logger.warn({ eventId: envelope.id, attemptId }, 'order: paid attempt was replaced, its payment voided');
      else
        deps.logger.warn(
          { eventId: envelope.id, attemptId, unavailable: completion.unavailable },
          'order: stock of an expired hold gone, payment voided',
        );
    },
  };
}
