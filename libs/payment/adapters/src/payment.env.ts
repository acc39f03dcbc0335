import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { boundedInt } from '@commerce/shared-config';
import type { TestProviderSettings } from './providers/test-provider.settings';

/**
 * The payment service's own variables, for the payment and all-in-one config schemas. Without
 * `PAYMENT_TEST_HMAC_KEY` each start draws a random key: fine for one process, but a restart (or a second
 * replica) could not verify what the first signed, so a deployment sets it (from a Secret).
 */
export const paymentEnv = () => ({
  /** The payment service's address as browsers reach it (its pages are under `/payment/`). */
  PAYMENT_PUBLIC_URL: z
    .string()
    .url()
    .optional()
    .describe(
      "Where browsers reach the payment service's pages (`/payment/…`: the test providers' payment page and embedded checkout); behind the Ingress, the shop's public URL.",
    ),
  PAYMENT_TEST_HMAC_KEY: z
    .string()
    .regex(/^([0-9a-fA-F]{2}){16,64}$/, 'must be 32 to 128 hex digits')
    .optional()
    .describe(
      "Hex key (32–128 hex digits) signing the test providers' return parameters and notifications; set it (from a Secret) when the payment service restarts or runs more than one replica, or returns signed before a restart fail.",
    ),
  PAYMENT_TEST_MERCHANT_ACCOUNT: z.string().min(1).default('TestMerchant').describe("The test provider's merchant account name."),
  PAYMENT_ATTEMPT_EXPIRY_MINUTES: boundedInt(30, 30 * 24 * 60, 24 * 60).describe(
    "How long a started payment attempt may wait for its provider's verdict (minutes): older ones are expired by the sweep (cancelled, at the provider too), and an authorization arriving for one later is voided. Keep it above the stock hold (`PAYMENT_HOLD_SECONDS` of the edge) and the providers' payment sessions.",
  ),
});

export const testProviderSettings = (
  config: { PAYMENT_PUBLIC_URL?: string | undefined; PAYMENT_TEST_HMAC_KEY?: string | undefined; PAYMENT_TEST_MERCHANT_ACCOUNT: string },
  defaultPublicUrl: string,
): TestProviderSettings => ({
  publicUrl: config.PAYMENT_PUBLIC_URL ?? defaultPublicUrl,
  hmacKey: config.PAYMENT_TEST_HMAC_KEY ?? randomBytes(32).toString('hex'),
  merchantAccount: config.PAYMENT_TEST_MERCHANT_ACCOUNT,
});
