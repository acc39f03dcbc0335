import type { AttemptDto } from '@commerce/payment-contracts';

/** What the built-in test providers share: where the browser reaches their pages, and their signing key. */
export interface TestProviderSettings {
  /** The payment service's address as the visitor's browser reaches it (its pages are under `/payment/`). */
  publicUrl: string;
  /** The HMAC key (hex) of return parameters and notifications. */
  hmacKey: string;
  /** The merchant account named in parameters and notifications. */
  merchantAccount: string;
}

/** A provider reference made from the attempt id, so that starting the same attempt again names the same payment. */
export const referenceOf = (prefix: string, attemptId: string): string => `${prefix}${attemptId.replace(/-/g, '').toUpperCase()}`;

export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * The test PSPs' void of an authorization (card or invoice): cancelled on their side, once, under a void
 * reference made from the attempt id (a repeated void names the same one and changes nothing).
 */
export const voidTestPayment = async (
  attempt: AttemptDto,
  data: Record<string, unknown>,
): Promise<{ providerData?: Record<string, unknown> }> =>
  data['voided'] ? {} : { providerData: { voided: { voidReference: referenceOf('TV', attempt.attemptId) } } };

/** The test PSPs' cancellation of a started payment a newer attempt replaced: recorded once on their side. */
export const cancelTestPayment = async (
  attempt: AttemptDto,
  data: Record<string, unknown>,
): Promise<{ providerData?: Record<string, unknown> }> =>
  data['cancelled'] ? {} : { providerData: { cancelled: { cancelReference: referenceOf('TC', attempt.attemptId) } } };
