import { z } from 'zod';
import { AddressSearchRefusedError, IdentityNotFoundError, type PaymentProvider } from '@commerce/payment-core';
import type { PaymentAddress } from '@commerce/payment-contracts';
import { referenceOf, voidTestPayment } from './test-provider.settings';

/** A payment method's `options` for the invoice test provider (store configuration). */
export const InvoiceOptionsSchema = z
  .object({
    /** The one country whose identity numbers `POST address-search` looks up. */
    addressSearchCountry: z.string().regex(/^[A-Z]{2}$/),
    /** The largest invoice granted, per currency (major units); a currency not listed is refused. */
    creditLimit: z.record(z.string().regex(/^[A-Z]{3}$/), z.number().min(0)),
    /** The registry of identities (personal or organisation numbers) and their addresses. */
    identities: z
      .array(
        z.object({
          identityNumber: z.string().min(1),
          firstName: z.string(),
          lastName: z.string(),
          address1: z.string(),
          zipCode: z.string(),
          city: z.string(),
        }),
      )
      .default([]),
  })
  .strict();
export type InvoiceOptions = z.infer<typeof InvoiceOptionsSchema>;

/** Identity numbers compare without spaces and dashes (`19800101-1234` is `198001011234`). */
const identityKey = (s: string) => s.replace(/[\s-]/g, '');

/**
 * The invoice test provider: decides at once (`success` with the order, or `failed`) by the method's credit
 * limit in the attempt's currency; `address-search` looks identity numbers up in the configured registry,
 * in its one country.
 */
export function invoiceTestProvider(name: string, options: InvoiceOptions, minorDigits: (currency: string) => number): PaymentProvider {
  const registry = new Map(options.identities.map((i) => [identityKey(i.identityNumber), i]));
  return {
    name,
    // Voiding cancels the invoice before it is sent.
    void: voidTestPayment,
    async start({ attempt }) {
      const limit = options.creditLimit[attempt.currency];
      const granted = limit !== undefined && attempt.amountMinor <= Math.round(limit * 10 ** minorDigits(attempt.currency));
      return {
        providerReference: referenceOf('IN', attempt.attemptId),
        action: granted ? { action: 'success' } : { action: 'failed' },
        outcome: granted ? 'authorized' : 'declined',
      };
    },
    // An invoice is decided at the start: nothing comes back from a browser.
    referenceOf: () => null,
    async verifyReturn() {
      throw new Error('an invoice has no return to verify');
    },
    async addressSearch(identityNumber, country): Promise<PaymentAddress> {
      if (country !== options.addressSearchCountry) throw new AddressSearchRefusedError('country', 'not available in this country');
      const found = registry.get(identityKey(identityNumber));
      if (!found) throw new IdentityNotFoundError();
      const { identityNumber: _id, ...address } = found;
      return { ...address, country: options.addressSearchCountry };
    },
  };
}
