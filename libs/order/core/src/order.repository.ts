import type { EventEnvelope } from '@commerce/shared-events';
import type { OrderDto, OrderPage } from '@commerce/order-contracts';

/** The writes of one change of orders, in one transaction with their outbox rows. */
export interface OrderUnitOfWork {
  findByPaymentAttempt(paymentAttemptId: string): Promise<OrderDto | null>;
  /** The order the back office names (our number, or our id), locked for the change; null when unknown. */
  findForUpdate(store: string | null, reference: string): Promise<OrderDto | null>;
  /** Writes the order's status, shipments, cancelled lines and invoices (by their ids). */
  update(order: OrderDto): Promise<void>;
  /** Writes events to the outbox, published only once the transaction commits. */
  publish(events: EventEnvelope[]): Promise<void>;
}

/** What the consumer of `PaymentAuthorized` needs of a placed attempt. */
export interface PlacedCheckout {
  order: string;
  /** The saga placed the order but could not close its selection: it is still to be closed. */
  selectionLeftOpen: boolean;
}

export interface OrderRepository {
  transaction<T>(fn: (uow: OrderUnitOfWork) => Promise<T>): Promise<T>;
  /**
   * Places an order as one atomic write (issue 28: one statement, where a transaction of five went): takes the
   * store's next number (the counter row locked until the write ends, so placings in one store take turns), inserts
   * `orderOf(number)`, counts it for its customer and writes `eventsOf(order)` to the outbox, published once it is
   * committed. Null, writing nothing and giving the number back (gap-free), when the order's payment attempt has an
   * order already. `selectionLeftOpen`: the checkout saga could not close the order's selection (the cart failed),
   * someone must close it later.
   */
  place(
    orderOf: (number: string) => OrderDto,
    eventsOf: (order: OrderDto) => EventEnvelope[],
    options?: { selectionLeftOpen?: boolean },
  ): Promise<OrderDto | null>;
  findById(id: string): Promise<OrderDto | null>;
  findByPaymentAttempt(paymentAttemptId: string): Promise<OrderDto | null>;
  /**
   * The attempt's order number and whether its selection was left open (one read of the order's row); null: no order.
   * With `consumed`, the statement also records the event as consumed (the consumer's dedupe record, as shared-bus's
   * `recordConsumed` writes it) when the order is there with its selection closed: the consumer's work is then done
   * (issue 28: one statement, where the read and the record went apart).
   */
  checkoutOf(paymentAttemptId: string, consumed?: { consumer: string; eventId: string }): Promise<PlacedCheckout | null>;
  /** Newest first (placed time, then number); `size` null: every order from `from` on. */
  listByCustomer(customerId: string, from: number, size: number | null): Promise<OrderPage>;
}

export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };
