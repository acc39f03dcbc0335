import type { CartClient } from '@commerce/cart-contracts';
import type { StockClient } from '@commerce/catalog-contracts';
import type { PaymentClient } from '@commerce/payment-contracts';
import { orderAddressOf, type PaidAttemptCompletion, type PlaceOrderCommand } from '@commerce/order-contracts';
import { PaymentNotAuthorizedError } from './order.errors';
import { placeOrder, type PlaceOrderDeps } from './place-order.use-case';

/** The services the last step of the checkout saga reaches, through their typed clients. */
export interface CompletePaidAttemptDeps extends PlaceOrderDeps {
  payment: Pick<PaymentClient, 'getAttempt' | 'voidAttempt'>;
  stock: Pick<StockClient, 'commitStock'>;
  cart: Pick<CartClient, 'closeSelection'>;
}

/**
 * Completes a paid attempt, exactly once however often and however concurrently it is asked (the
 * visitor's `payment-result`, its duplicates, the webhook's `PaymentAuthorized`): the attempt must be
 * authorized at the payment service → the hold's stock committed (once: the catalog marks the hold) →
 * the order placed from the draft the attempt keeps (one per attempt: the order's unique key) → the
 * selection closed (a no-op the second time). Each step is idempotent, so a crash between two is
 * repaired by the next call. An embedded form's customer address, reported with the result, is where
 * the order goes. When the hold expired and its stock was sold meanwhile, the catalog takes nothing and
 * the hold is lost for good: no order, the payment voided (decision 55), the same answer to every call.
 */
export async function completePaidAttempt(deps: CompletePaidAttemptDeps, paymentAttemptId: string): Promise<PaidAttemptCompletion> {
  const attempt = await deps.payment.getAttempt(paymentAttemptId);
  if (!attempt) throw new PaymentNotAuthorizedError('not found');
  // Voided: a call before this one found the stock gone; the catalog answers the same entries again.
  if (attempt.status !== 'authorized' && attempt.status !== 'voided') throw new PaymentNotAuthorizedError(attempt.status);
  let order = await deps.orders.findByPaymentAttempt(paymentAttemptId);
  if (!order) {
    const stock = await deps.stock.commitStock(paymentAttemptId);
    if (stock.unavailable) {
      await deps.payment.voidAttempt(paymentAttemptId);
      return { placed: false, unavailable: stock.unavailable };
    }
    if (attempt.status === 'voided') throw new Error(`order: attempt ${paymentAttemptId} is voided but its stock is not lost`);
    order = await placeOrder(deps, commandOf(attempt.orderDraft as PlaceOrderCommand, attempt.customerAddress));
  }
  await deps.cart.closeSelection(attempt.selectionId);
  return { placed: true, order };
}

function commandOf(draft: PlaceOrderCommand, reported: Parameters<typeof orderAddressOf>[0] | null): PlaceOrderCommand {
  if (!reported) return draft;
  return {
    ...draft,
    address: { ...draft.address, ...orderAddressOf(reported, draft.address.countryName) },
    shippingAddress: { ...draft.shippingAddress, ...orderAddressOf(reported, draft.shippingAddress.countryName) },
  };
}
