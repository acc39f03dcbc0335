import { randomUUID, createHash } from 'node:crypto';
import { z } from 'zod';
import { ValidationError, fieldsFromIssues, isDomainError } from '@commerce/shared-errors';
import type { PaymentAddress } from '@commerce/payment-contracts';
import { orderAddressOf, type OrderDto, type PaidAttemptCompletion } from '@commerce/order-contracts';
import type { SelectionDto } from '@commerce/cart-contracts';
import { CheckoutRefusedError, ItemsUnavailableError, NotFoundError } from './checkout.errors';
import type { CheckoutDeps, SessionHandle } from './checkout.use-cases';
import { AddressSearchBody, PaymentBody, PaymentResultBody, type PaymentAddressBody } from '@commerce/checkout-contracts';
import { externalIdsOf, orderToHistoryEntry, placeOrderCommandOf, type OrderPlacing } from './order-history';
import { normalisePostalCode } from './postal-code';
import { currentSelection, envelope, moveToCountry, saveSession } from './selection.use-cases';
import type { CheckoutSession } from './session';

const DEFAULT_HOLD_SECONDS = 1200;
const now = (deps: CheckoutDeps) => (deps.now ?? (() => new Date()))();

const parse = <T>(schema: z.ZodType<T>, body: unknown): T => {
  const result = schema.safeParse(body ?? {});
  if (!result.success) throw new ValidationError(fieldsFromIssues(result.error.issues));
  return result.data;
};

const REQUIRED = ['email', 'firstName', 'lastName', 'address1', 'city', 'zipCode', 'country'] as const;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The address of `POST payment` for a method that needs it whole: required fields, an e-mail, the state
 * of a country with states, the postal code in the country's format (normalised). 400 naming `address.<field>`.
 */
function checkedAddress(deps: CheckoutDeps, given: z.infer<typeof PaymentAddressBody>, country: string, whole: boolean): PaymentAddress {
  const address: Record<string, string> = {};
  for (const [k, v] of Object.entries(given)) if (v !== undefined) address[k] = v.trim();
  address['country'] = country;
  if (!whole) return address as unknown as PaymentAddress;
  const problems: Record<string, string> = {};
  for (const f of REQUIRED) if (!address[f]) problems[`address.${f}`] = 'required';
  if (address['email'] && !EMAIL.test(address['email'])) problems['address.email'] = 'not an e-mail address';
  const states = deps.view.country(country)?.states ?? [];
  if (states.length > 0) {
    const state = (address['state'] ?? '').toUpperCase();
    if (!states.some((s) => s.state === state)) problems['address.state'] = state ? `not a state of ${country}` : 'required';
    else address['state'] = state;
  }
  if (address['zipCode']) {
    const zip = normalisePostalCode(country, address['zipCode']);
    if (zip.ok) address['zipCode'] = zip.zipCode;
    else problems['address.zipCode'] = `must be in the format ${zip.format}`;
  }
  if (Object.keys(problems).length > 0) throw new ValidationError(problems);
  return address as unknown as PaymentAddress;
}

/** What identifies the checkout session in the order without being its token. */
const sessionIdOf = (token: string) => createHash('sha256').update(token).digest('base64url').slice(0, 32);

/**
 * The lines over the stock taken out of the selection (the spec: "the unavailable items are removed"), and
 * the 410 answer: the selection as it is now, with `unavailable`.
 */
async function unavailableAnswer(
  deps: CheckoutDeps,
  handle: SessionHandle,
  selection: SelectionDto,
  unavailable: Array<{ item: string; unavailable: number; originalQuantity: number }>,
) {
  const lines = unavailable.flatMap((u) => {
    const line = selection.items.find((l) => l.item === u.item);
    return line ? [{ op: 'setLine' as const, line: line.line, quantity: Math.max(0, line.quantity - u.unavailable) }] : [];
  });
  const changed = await deps.cart.changeSelection(selection.id, { lines });
  const { token: _token, ...answer } = await envelope(deps, handle, changed);
  return new ItemsUnavailableError({ ...answer, unavailable });
}

/**
 * The answer to where the checkout saga (the order service's `checkout-saga.ts`) left a paid attempt: its
 * order, placed once however often it is asked; the session then has no selection (a fresh empty one on
 * the next call) and remembers the order for `GET receipt`, keeping its token and login. When the hold had
 * expired and its stock is gone, there is no order and the payment was voided: 410 with `unavailable`,
 * the missing quantities taken out of the selection, as `POST payment` answers. A payment declined, or
 * made for an attempt a newer one replaced (voided): 406 `{payment: "failed"}`.
 */
async function answerOf(deps: CheckoutDeps, handle: SessionHandle, selectionId: string, completion: PaidAttemptCompletion) {
  if ('failed' in completion) throw new CheckoutRefusedError('payment', 'failed');
  if (!completion.placed) {
    const selection = await currentSelection(deps, handle);
    if (selection.id === selectionId) {
      const answer = await unavailableAnswer(deps, handle, selection, completion.unavailable).catch((error: unknown) => {
        // A concurrent duplicate took the quantities out first (its line is gone): the selection as it is now.
        if (isDomainError(error) && error.kind === 'not_found') return null;
        throw error;
      });
      if (answer) throw answer;
    }
    const { token: _token, ...answer } = await envelope(deps, handle, await currentSelection(deps, handle));
    throw new ItemsUnavailableError({ ...answer, unavailable: completion.unavailable });
  }
  const { order } = completion;
  const patch: Partial<CheckoutSession> = { lastOrderId: order.id };
  const session: CheckoutSession = { ...handle.session, ...patch };
  if (session.selectionId === selectionId) delete session.selectionId;
  handle.session = session;
  await deps.sessions.set(handle.token, session);
  return orderAnswer(handle, order);
}

/** `{token, order, status, …}`: the token and the order-history entry (DESIGN §6). */
const orderAnswer = (handle: SessionHandle, order: OrderDto) => ({ token: handle.token, ...orderToHistoryEntry(order) });

/**
 * `POST payment`: terms accepted, a shippable country, the address in its country's format, the stock held
 * for the attempt (410 with `unavailable` otherwise), then the attempt started with the payment service,
 * whose provider decides the action: `redirect`, `form`, `success` (the order is placed at once) or `failed`.
 */
export async function startPayment(deps: CheckoutDeps, handle: SessionHandle, body: unknown) {
  const input = parse(PaymentBody, body);
  if (!input.termsAndConditions) throw new CheckoutRefusedError('termsAndConditions', 'not accepted');
  const country = (input.address.country ?? handle.session.country ?? '').trim().toUpperCase();
  if (!country) throw new ValidationError({ 'address.country': 'required' });
  const target = deps.view.country(country);
  if (!target) throw new NotFoundError('country');
  if (!target.shipTo) throw new CheckoutRefusedError('country', 'not shippable');

  // Everything is checked before anything is written: a refused payment leaves the session's country and the
  // selection as they were.
  let selection = await currentSelection(deps, handle);
  if (!selection.id || selection.items.length === 0) throw new CheckoutRefusedError('selection', 'empty');
  const offered = deps.view.availablePaymentMethods(country);
  // None chosen (or not offered here): the country's first method, set on the selection so that its handling cost is priced.
  const method = offered.find((m) => m.paymentMethod === selection.paymentMethod) ?? offered[0];
  if (!method) throw new CheckoutRefusedError('paymentMethod', 'none available in this country');
  const address = checkedAddress(deps, input.address, country, !method.providesCustomerAddressAfterPayment);

  // The address's country is where prices are computed (the embedded flow sends only it). The change answers the
  // selection as it is now: no read after it (issue 28).
  if (country !== handle.session.country) {
    const moved = await moveToCountry(deps, handle, country, null, undefined, selection);
    selection = moved ? moved.changed : await currentSelection(deps, handle);
    // Lines not for sale in the address's country were taken out (as PUT countries does).
    if (!selection.id || selection.items.length === 0) throw new CheckoutRefusedError('selection', 'empty');
  }
  if (selection.paymentMethod !== method.paymentMethod) {
    selection = await deps.cart.changeSelection(selection.id, { set: { paymentMethod: method.paymentMethod } });
  }

  const attemptId = randomUUID();
  const placing: OrderPlacing = {
    paymentAttemptId: attemptId,
    address: orderAddressOf(address, ''),
    sessionId: sessionIdOf(handle.token),
    external: await externalIdsOf(deps.catalog, selection),
  };
  const orderDraft = placeOrderCommandOf(deps.view, handle.session, selection, placing, now(deps));
  // The saga (the order service): hold the lines, start the attempt; or complete the selection's paid one.
  const begun = await deps.orders.beginCheckout({
    attempt: {
      attemptId,
      paymentMethod: method.paymentMethod,
      selectionId: selection.id,
      amountMinor: orderDraft.totals.grandTotal,
      currency: orderDraft.currency,
      address,
      returnUrl: input.paymentReturnPage,
      failedUrl: input.paymentFailedPage,
      orderDraft,
    },
    lines: selection.items.map((l) => ({ item: l.item, quantity: l.quantity })),
    holdSeconds: deps.paymentHoldSeconds ?? DEFAULT_HOLD_SECONDS,
  });
  switch (begun.state) {
    case 'unavailable':
      if (begun.attemptId === attemptId) throw await unavailableAnswer(deps, handle, selection, begun.unavailable);
      return answerOf(deps, handle, selection.id, { placed: false, unavailable: begun.unavailable });
    case 'placed':
      await saveSession(deps, handle, { paymentAttemptId: begun.attemptId });
      return { action: 'success', ...(await answerOf(deps, handle, selection.id, { placed: true, order: begun.order })) };
    case 'failed':
      await saveSession(deps, handle, { paymentAttemptId: begun.attemptId });
      return { token: handle.token, action: 'failed' };
    case 'started':
      await saveSession(deps, handle, { paymentAttemptId: begun.attemptId });
      return { token: handle.token, ...begun.action };
  }
}

/**
 * `POST payment-result` `{paymentMethodFields}`: verified with the payment service (signature, amount and
 * currency against the attempt); on success the order (one per attempt, however often this is posted),
 * 406 `{payment: "failed"}` when the provider declined (the hold is released).
 */
export async function paymentResult(deps: CheckoutDeps, handle: SessionHandle, body: unknown) {
  const { paymentMethodFields } = parse(PaymentResultBody, body);
  // One call: the order service has the payment service verify the fields and completes the attempt they name
  // from that answer, only if it is the one this session started (issue 28).
  const result = await deps.orders.completePaymentResult(paymentMethodFields, handle.session.paymentAttemptId ?? null);
  // Only the token that started the payment learns its order (the fields alone carry no secret of the visitor's).
  if (!result.completion) throw new NotFoundError('payment');
  // Declined: the saga releases the hold (406); authorized, or voided because its order could not be placed (410).
  return answerOf(deps, handle, result.selectionId, result.completion);
}

/** `GET receipt`: the order last placed under the token, in the payment result's shape; 404 `{order}` before any. */
export async function receipt(deps: CheckoutDeps, handle: SessionHandle) {
  const order = handle.session.lastOrderId ? await deps.orders.getOrder(handle.session.lastOrderId) : null;
  if (!order) throw new NotFoundError('order');
  return orderAnswer(handle, order);
}

/** `POST address-search` `{identityNumber, paymentMethod}`: the registered address, for an invoice method in its one country. */
export async function addressSearch(deps: CheckoutDeps, handle: SessionHandle, body: unknown) {
  const { identityNumber, paymentMethod } = parse(AddressSearchBody, body);
  if (!deps.view.availablePaymentMethods(handle.session.country).some((m) => m.paymentMethod === paymentMethod))
    throw new NotFoundError('paymentMethod');
  const found = await deps.payment.addressSearch(paymentMethod, handle.session.country, identityNumber);
  return {
    token: handle.token,
    address: {
      firstName: found.firstName ?? '',
      lastName: found.lastName ?? '',
      address1: found.address1 ?? '',
      zipCode: found.zipCode ?? '',
      city: found.city ?? '',
      country: found.country,
    },
  };
}
