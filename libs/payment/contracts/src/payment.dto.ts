/** An address as the checkout API names its fields (spec: Address), all strings. */
export interface PaymentAddress {
  email?: string;
  firstName?: string;
  lastName?: string;
  company?: string;
  address1?: string;
  address2?: string;
  city?: string;
  state?: string;
  country: string;
  phoneNumber?: string;
  zipCode?: string;
}

/** The four payment actions of the spec (`POST payment`). */
export type PaymentAction =
  { action: 'redirect'; url: string } | { action: 'form'; formHtml: string } | { action: 'success' } | { action: 'failed' };

/**
 * `voided`: authorized, then its authorization cancelled at the provider because no order could be placed
 * (decision 55), or because it arrived after a newer attempt replaced this one (decision 131).
 */
export type AttemptStatus = 'started' | 'authorized' | 'declined' | 'cancelled' | 'voided';

/** A payment attempt: one try to pay one priced selection with one method. */
export interface AttemptDto {
  /** The caller's id for the attempt, also its idempotency key: starting it twice starts it once. */
  attemptId: string;
  paymentMethod: string;
  provider: string;
  status: AttemptStatus;
  selectionId: string;
  /** The amount to pay, in integer minor units of `currency`. */
  amountMinor: number;
  currency: string;
  country: string;
  /** The provider's own reference (a PSP reference, a checkout order id). */
  providerReference: string;
  /** The address given at `POST payment` (only `country` for a method that provides it after payment). */
  address: PaymentAddress;
  /** The address the provider reported with the result (embedded forms, invoice look-ups), if any. */
  customerAddress: PaymentAddress | null;
  /** What the caller asked to keep with the attempt (the edge: the order to place once paid). */
  orderDraft: unknown;
  createdAt: string;
  /**
   * Given up before it was paid: a newer attempt of the selection replaced it, the sweep expired it, or it was
   * cancelled (cancelled; `voided` if paid after): never kept, never an order, its stock hold released.
   */
  replaced: boolean;
}

export interface StartAttemptCommand {
  attemptId: string;
  paymentMethod: string;
  selectionId: string;
  amountMinor: number;
  currency: string;
  address: PaymentAddress;
  /** Where the provider returns the visitor after paying, and after a failed payment. */
  returnUrl: string;
  failedUrl: string;
  orderDraft: unknown;
}

export interface StartAttemptResult {
  attempt: AttemptDto;
  action: PaymentAction;
}

/** What `POST payment-result` learned from the provider: the attempt and whether it is paid. */
export interface PaymentResultDto {
  attempt: AttemptDto;
  /** `voided`: it was paid, but its order could not be placed (the stock was gone) and the payment was voided. */
  outcome: 'authorized' | 'declined' | 'voided';
}

/** Questions the edge asks the payment service synchronously (DESIGN §2). HTTP and in-process implementations. */
export interface PaymentClient {
  /**
   * Starts (or, for a known attemptId, answers again) an attempt; the provider decides the action. The new
   * attempt is its selection's one live attempt: the selection's started ones are cancelled (at the
   * provider too). While another attempt of the selection is authorized nothing starts: that attempt is
   * answered, with `success` (DESIGN §8).
   */
  startAttempt(command: StartAttemptCommand): Promise<StartAttemptResult>;
  /** The selection's live attempt (started or authorized; at most one), or null. */
  liveAttemptOf(selectionId: string): Promise<AttemptDto | null>;
  /**
   * Verifies what the visitor brought back from the provider (`paymentMethodFields`, names as the provider
   * sent them): signature, amount and currency against the attempt. Errors name `paymentMethodFields`.
   */
  verifyResult(fields: Record<string, string>): Promise<PaymentResultDto>;
  /** null when no attempt has that id. */
  getAttempt(attemptId: string): Promise<AttemptDto | null>;
  /** A started attempt given up (a new one for the selection, an expired hold); no-op otherwise. */
  cancelAttempt(attemptId: string): Promise<AttemptDto | null>;
  /**
   * Voids an authorized attempt whose order cannot be placed, through its provider (idempotent: the
   * attempt id is the idempotency key), recorded as `voided` with `PaymentVoided`. A voided attempt is
   * answered as it is; null when no attempt has that id; any other status is refused (`not_acceptable`).
   */
  voidAttempt(attemptId: string): Promise<AttemptDto | null>;
  /** `POST address-search`: the registered address of an identity number, for an invoice method in its country. */
  addressSearch(paymentMethod: string, country: string | null, identityNumber: string): Promise<PaymentAddress>;
}
