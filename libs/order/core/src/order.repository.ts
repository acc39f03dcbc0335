import type { EventEnvelope } from '@commerce/shared-events';
import type { OrderDto, OrderPage } from '@commerce/order-contracts';

/** The writes of one change of orders, in one transaction with their outbox rows. */
export interface OrderUnitOfWork {
  findByPaymentAttempt(paymentAttemptId: string): Promise<OrderDto | null>;
  /** The order the back office names (our number, or our id), locked for the change; null when unknown. */
  findForUpdate(store: string | null, reference: string): Promise<OrderDto | null>;
  /**
   * Takes the store's next order number. The counter row stays locked until the transaction ends, so
   * placings in one store take turns and a rolled-back placing gives its number back (gap-free).
   */
  nextOrderNumber(store: string): Promise<number>;
  /**
   * Inserts the order; false, writing nothing, when its payment attempt already has one. `selectionLeftOpen`:
   * the checkout saga could not close the order's selection (the cart failed), someone must close it later.
   */
  insert(order: OrderDto, options?: { selectionLeftOpen?: boolean }): Promise<boolean>;
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
  findById(id: string): Promise<OrderDto | null>;
  findByPaymentAttempt(paymentAttemptId: string): Promise<OrderDto | null>;
  /** The attempt's order number and whether its selection was left open (one read of the order's row); null: no order. */
  checkoutOf(paymentAttemptId: string): Promise<PlacedCheckout | null>;
  /** Newest first (placed time, then number); `size` null: every order from `from` on. */
  listByCustomer(customerId: string, from: number, size: number | null): Promise<OrderPage>;
}

export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };
