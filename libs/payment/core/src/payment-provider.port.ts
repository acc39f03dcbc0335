import type { AttemptDto, PaymentAction, PaymentAddress } from '@commerce/payment-contracts';

/** The attempt as a provider sees it when starting, with where to send the visitor back. */
export interface ProviderStart {
  attempt: AttemptDto;
  returnUrl: string;
  failedUrl: string;
}

/** What a provider answers to a new attempt: its reference, the action, and a decision when it decides at once (invoice). */
export interface ProviderStarted {
  providerReference: string;
  action: PaymentAction;
  /** Data the provider keeps with the attempt (its own side of the payment: the test pages' state). */
  providerData?: Record<string, unknown>;
  outcome?: 'authorized' | 'declined';
  customerAddress?: PaymentAddress;
}

/** A provider's verified word on an attempt, from the visitor's return or from a notification. */
export interface ProviderVerdict {
  providerReference: string;
  outcome: 'authorized' | 'declined';
  /** What the provider says was paid; checked against the attempt before anything is trusted. */
  amountMinor: number;
  currency: string;
  customerAddress?: PaymentAddress;
}

/** An asynchronous notification (webhook) as it arrived. */
export interface ProviderNotification {
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/**
 * A payment provider plugin (Stripe, Adyen, Klarna or the built-in test ones): chosen per payment method
 * by the store configuration's `provider`. It starts a payment and returns an action, recognises and
 * verifies what the visitor brings back (signature; the use case checks amount and currency against the
 * attempt) and verifies notifications. Attempt ids are idempotency keys towards the provider.
 */
export interface PaymentProvider {
  readonly name: string;
  /**
   * Its `start` asks no one: the answer is a function of the attempt and the provider's settings (a signed
   * redirect, a form, an embedded page of its own), so the use case may ask it before the attempt is stored
   * and store its reference with the attempt in one statement (issue 28). A provider that calls its PSP to
   * start, or decides at once (an invoice), leaves it unset: it is asked only once the attempt is stored.
   */
  readonly startsLocally?: boolean;
  start(request: ProviderStart): Promise<ProviderStarted>;
  /** The provider reference named by the return fields, or null when they are not this provider's. */
  referenceOf(fields: Record<string, string>): string | null;
  /** Verifies the return fields of an attempt; throws PaymentResultInvalidError when they do not hold. */
  verifyReturn(attempt: AttemptDto, providerData: Record<string, unknown>, fields: Record<string, string>): Promise<ProviderVerdict>;
  /** Verifies a notification; the verdicts it carries (one notification may carry several), or throws NotificationInvalidError. */
  verifyNotification?(notification: ProviderNotification): Promise<ProviderVerdict[]>;
  /** The answer the provider expects for an accepted notification (Adyen: `[accepted]`). */
  readonly notificationAnswer?: string;
  /**
   * Cancels the authorization of an attempt that was not captured (every attempt here: capture belongs to
   * shipping, the ERP's business), when its order could not be placed. Idempotent by the attempt (a PSP's
   * idempotency key): voiding twice voids once. What it answers is merged into the provider's data.
   * A provider that captured at once would refund here instead; none of the built-in ones does.
   */
  void(attempt: AttemptDto, providerData: Record<string, unknown>): Promise<{ providerData?: Record<string, unknown> }>;
  /**
   * Cancels a started payment that a newer attempt of its selection replaced, so the visitor can no longer
   * complete it at the provider (idempotent by the attempt). A payment authorized before the cancellation
   * reached the provider is voided when its authorization arrives. What it answers is merged into the
   * provider's data. Optional: a provider without it lets the payment lapse on its side.
   */
  cancel?(attempt: AttemptDto, providerData: Record<string, unknown>): Promise<{ providerData?: Record<string, unknown> }>;
  /** An invoice provider's look-up of a registered address by identity number. */
  addressSearch?(identityNumber: string, country: string | null): Promise<PaymentAddress>;
}
