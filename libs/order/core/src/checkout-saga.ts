import { z } from 'zod';
import { fieldsFromIssues, ValidationError } from '@commerce/shared-errors';
import type { CartClient } from '@commerce/cart-contracts';
import type { StockClient } from '@commerce/catalog-contracts';
import type { AttemptDto, PaymentClient } from '@commerce/payment-contracts';
import {
  orderAddressOf,
  PlaceOrderCommandSchema,
  type BeginCheckoutCommand,
  type CheckoutBegun,
  type PaidAttemptCompletion,
  type PaymentResultCompletion,
  type PlaceOrderCommand,
} from '@commerce/order-contracts';
import { PaymentNotAuthorizedError } from './order.errors';
import { placeOrder, type PlaceOrderDeps } from './place-order.use-cases';

/**
 * The checkout saga: one state machine per payment attempt, from `POST payment` to `OrderPlaced`, in this
 * one file (docs/checkout-saga.md draws it). The edge calls it for `POST payment` (`beginCheckout`) and
 * `POST payment-result` (`completePaymentResult`: verified, then `completePaidAttempt`), and the order
 * service's consumer of `PaymentAuthorized` calls `completePaidAttempt` alike; every step is idempotent by attempt id, so a step repeated after a
 * crash, a retry or a race finds its work done.
 *
 * The attempt's state lives where each part of it is owned: its payment status in the payment service's
 * attempts table (`started → authorized | declined | cancelled`, `authorized | cancelled → voided`; at
 * most one `started` or `authorized` attempt per selection, a unique index), its stock hold in the
 * catalog (`held → committed | released | lost`), its order in the orders table (one per attempt, a
 * unique key). The saga's state is read from them, never kept beside them:
 *
 *   begun      hold taken, payment not started yet (a crash here: the hold expires)
 *   started    payment started, the visitor at the provider
 *   authorized paid, no order yet               → complete: commit stock, close selection, place order
 *   placed     authorized with its order         (final)
 *   failed     declined, or replaced by a newer attempt: hold released (final)
 *   voided     paid, but its stock was gone or it had been replaced: authorization voided, no order (final)
 *
 * Compensations: a start that fails releases the hold; a declined or replaced attempt releases it; a paid
 * attempt whose stock is gone is voided at the provider. The payment service itself cancels the started
 * attempt a new one replaces (at the provider too) and voids an authorization arriving for it.
 */
export interface CheckoutSagaDeps extends PlaceOrderDeps {
  payment: Pick<PaymentClient, 'liveAttemptOf' | 'startAttempt' | 'getAttempt' | 'voidAttempt' | 'verifyResult'>;
  stock: Pick<StockClient, 'holdStock' | 'releaseStock' | 'commitStock'>;
  cart: Pick<CartClient, 'closeSelection'>;
}

/** What the edge sends to begin (checked here: it may come over HTTP); the rest of the attempt is the payment service's to check. */
const BeginCheckoutSchema = z.object({
  attempt: z
    .object({ attemptId: z.string().uuid(), selectionId: z.string().min(1).max(128), orderDraft: PlaceOrderCommandSchema })
    .passthrough(),
  lines: z.array(z.object({ item: z.string().min(1).max(128), quantity: z.number().int().positive() })).min(1),
  holdSeconds: z.number().int().positive(),
});

/**
 * `POST payment`: begun → started (or straight on to placed / failed). The selection's lines are held for the
 * new attempt and the attempt started; the payment service cancels the selection's older started attempt. A
 * selection whose live attempt is authorized already is not paid twice: the payment service starts nothing and
 * names that attempt, whose hold keeps its stock; the new hold is released and that attempt completed, its order
 * answered (a failure there, the order service down, throws: nothing new was started). When the hold is short
 * (410's `unavailable`), the selection's live attempt is looked at first: an authorized one is completed the same
 * way (its own hold may be what took the stock). The look is asked only then (issue 28: one call fewer a checkout).
 */
export async function beginCheckout(deps: CheckoutSagaDeps, command: BeginCheckoutCommand): Promise<CheckoutBegun> {
  const checked = BeginCheckoutSchema.safeParse(command);
  if (!checked.success) throw new ValidationError(fieldsFromIssues(checked.error.issues), 'ORDER.INVALID_CHECKOUT');
  const { attemptId, selectionId } = command.attempt;

  const held = await deps.stock.holdStock({ attemptId, selectionId, lines: command.lines, ttlSeconds: command.holdSeconds });
  if (!held.held) {
    const live = await deps.payment.liveAttemptOf(selectionId);
    if (live && live.attemptId !== attemptId && live.status === 'authorized')
      return begunOf(live.attemptId, await completePaidAttempt(deps, live.attemptId));
    return { state: 'unavailable', attemptId, unavailable: held.unavailable };
  }

  const started = await deps.payment.startAttempt(command.attempt).catch(async (error: unknown) => {
    await deps.stock.releaseStock(attemptId);
    throw error;
  });
  if (started.attempt.attemptId !== attemptId) {
    await deps.stock.releaseStock(attemptId);
    return begunOf(started.attempt.attemptId, await completePaidAttempt(deps, started.attempt.attemptId));
  }
  switch (started.attempt.status) {
    case 'authorized':
      return begunOf(attemptId, await completePaidAttempt(deps, attemptId));
    case 'started':
      return { state: 'started', attemptId, action: started.action };
    default:
      await deps.stock.releaseStock(attemptId);
      return { state: 'failed', attemptId };
  }
}

/**
 * `POST payment-result` and `PaymentAuthorized`: authorized → placed, exactly once however often and
 * however concurrently it is asked. The hold's stock committed (once: the catalog marks the hold) → the
 * selection closed (a no-op the second time) → the order placed from the draft the attempt keeps (one per
 * attempt: the order's unique key). The selection is closed before the order is placed, so an order means
 * its selection was closed, and the consumer of `PaymentAuthorized` finding the order has nothing left to
 * do; a cart that fails at the closing does not hold the paid order back: the order is placed marked
 * `selectionLeftOpen` (that consumer closes it then) and the cart's error answered. A call after the order
 * was placed walks the same steps: the catalog commits nothing again, the closing is a no-op, and the placing meets
 * the attempt's order at its unique key and answers it (the order is not looked for first, issue 28: one statement
 * fewer a checkout, and a completion's first call is nearly always its only one). A crash between two steps is repaired by the next call. An embedded
 * form's customer address, reported with the result, is where the order goes. When the hold expired and
 * its stock was sold meanwhile, the catalog takes nothing and the hold is lost for good: no order, the
 * payment voided (decision 55), the same answer to every call. A declined or replaced attempt: its hold
 * released, `failed`.
 */
export async function completePaidAttempt(
  deps: CheckoutSagaDeps,
  paymentAttemptId: string,
  /** The attempt as its owner just answered it (`completePaymentResult`'s verification): not read again. */
  known?: AttemptDto,
): Promise<PaidAttemptCompletion> {
  const attempt = known?.attemptId === paymentAttemptId ? known : await deps.payment.getAttempt(paymentAttemptId);
  if (!attempt) throw new PaymentNotAuthorizedError('not found');
  if (attempt.status === 'declined' || attempt.status === 'cancelled' || (attempt.status === 'voided' && attempt.replaced)) {
    await deps.stock.releaseStock(paymentAttemptId);
    return { placed: false, failed: true };
  }
  // Voided, not replaced: a call before this one found the stock gone; the catalog answers the same entries again.
  // (The payment service records every other void `replaced`: one after the attempt was given up, decision 185.)
  if (attempt.status !== 'authorized' && attempt.status !== 'voided') throw new PaymentNotAuthorizedError(attempt.status);
  const stock = await deps.stock.commitStock(paymentAttemptId);
  if (stock.unavailable) {
    await deps.payment.voidAttempt(paymentAttemptId);
    return { placed: false, unavailable: stock.unavailable };
  }
  if (attempt.status === 'voided') throw new Error(`order: attempt ${paymentAttemptId} is voided but its stock is not lost`);
  const closing = await deps.cart.closeSelection(attempt.selectionId).then(
    () => null,
    (error: unknown) => ({ error }),
  );
  const order = await placeOrder(deps, commandOf(attempt), { selectionLeftOpen: closing !== null });
  if (closing) throw closing.error;
  return { placed: true, order };
}

/**
 * `POST payment-result` as one call of the edge (issue 28): the payment service verifies the fields and answers
 * the attempt they name as it is now; that attempt, when it is the one the caller expected, is completed from that
 * answer (`completePaidAttempt` without reading it again). Another attempt is not completed here: the caller
 * answers that it does not know it (its visitor did not start it), and its own completion comes through its
 * webhook and `PaymentAuthorized` as before.
 */
export async function completePaymentResult(
  deps: CheckoutSagaDeps,
  fields: Record<string, string>,
  expectedAttemptId: string | null,
  complete: (attemptId: string, known: AttemptDto) => Promise<PaidAttemptCompletion> = (id, known) => completePaidAttempt(deps, id, known),
): Promise<PaymentResultCompletion> {
  const { attempt } = await deps.payment.verifyResult(fields);
  const { attemptId, selectionId } = attempt;
  if (attemptId !== expectedAttemptId) return { attemptId, selectionId, completion: null };
  return { attemptId, selectionId, completion: await complete(attemptId, attempt) };
}

/** What `POST payment` answers for an attempt the saga completed. */
function begunOf(attemptId: string, completion: PaidAttemptCompletion): CheckoutBegun {
  if (completion.placed) return { state: 'placed', attemptId, order: completion.order };
  if ('failed' in completion) return { state: 'failed', attemptId };
  return { state: 'unavailable', attemptId, unavailable: completion.unavailable };
}

/** The order to place: the draft the attempt keeps, sent to the address the provider reported, if any. */
function commandOf(attempt: AttemptDto): PlaceOrderCommand {
  const draft = attempt.orderDraft as PlaceOrderCommand;
  const reported = attempt.customerAddress;
  if (!reported) return draft;
  return {
    ...draft,
    address: { ...draft.address, ...orderAddressOf(reported, draft.address.countryName) },
    shippingAddress: { ...draft.shippingAddress, ...orderAddressOf(reported, draft.shippingAddress.countryName) },
  };
}
