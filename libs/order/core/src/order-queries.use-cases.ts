import type { OrderClient, OrderPage, PaidAttemptCompletion } from '@commerce/order-contracts';
import { InvalidPagingError } from './order.errors';
import type { OrderRepository } from './order.repository';
import { placeOrder, type PlaceOrderDeps } from './place-order.use-cases';
import type { AttemptDto } from '@commerce/payment-contracts';
import { beginCheckout, completePaidAttempt, completePaymentResult, type CheckoutSagaDeps } from './checkout-saga';

/** The largest page of order history one call answers; the edge asks for all in pages of this size. */
export const MAX_ORDER_PAGE = 1000;

/** A customer's orders, newest first; checked paging so a page costs the same however many orders there are. */
export async function listCustomerOrders(
  deps: { orders: OrderRepository },
  customerId: string,
  from: number,
  size: number | null,
): Promise<OrderPage> {
  if (!Number.isInteger(from) || from < 0) throw new InvalidPagingError('from', 'must be a whole number, 0 or more');
  if (size !== null && (!Number.isInteger(size) || size < 0 || size > MAX_ORDER_PAGE))
    throw new InvalidPagingError('size', `must be a whole number from 0 to ${MAX_ORDER_PAGE}`);
  return deps.orders.listByCustomer(customerId, from, size);
}

/** The clients of the services the checkout saga reaches (payment, catalog stock, cart). */
export type SagaClients = Omit<CheckoutSagaDeps, keyof PlaceOrderDeps>;

/**
 * The use cases as a typed client: the in-process implementation of OrderClient. Without `saga` (tests
 * of the order service alone) the checkout saga's steps are refused with an error naming what is missing.
 */
export function orderUseCases(deps: PlaceOrderDeps, saga?: SagaClients): OrderClient {
  const sagaDeps = (): CheckoutSagaDeps => {
    if (!saga) throw new Error('order: the checkout saga needs the payment, stock and cart clients');
    return { ...deps, ...saga };
  };
  // Concurrent completions of one attempt in this process share one run (the visitor's repeated payment-result, the
  // webhook's consumer): 50 identical payment-results each walked the saga, queued on the hold's row locks and the
  // pools, and every one answered 503 at the budget. Each caller gets the shared run's outcome (decision 141).
  const completing = new Map<string, Promise<PaidAttemptCompletion>>();
  const completeOnce = (attemptId: string, known?: AttemptDto): Promise<PaidAttemptCompletion> => {
    const running = completing.get(attemptId);
    if (running) return running;
    const run = (async () => completePaidAttempt(sagaDeps(), attemptId, known))().finally(() => completing.delete(attemptId));
    completing.set(attemptId, run);
    return run;
  };
  return {
    placeOrder: (command) => placeOrder(deps, command),
    beginCheckout: async (command) => beginCheckout(sagaDeps(), command),
    completePaidAttempt: (attemptId) => completeOnce(attemptId),
    completePaymentResult: async (fields, expectedAttemptId) => completePaymentResult(sagaDeps(), fields, expectedAttemptId, completeOnce),
    getOrder: (id) => deps.orders.findById(id),
    getOrderByPaymentAttempt: (attempt) => deps.orders.findByPaymentAttempt(attempt),
    listCustomerOrders: (customerId, from, size) => listCustomerOrders(deps, customerId, from, size),
  };
}
