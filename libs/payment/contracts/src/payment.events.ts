import { z } from 'zod';
import { defineEvent } from '@commerce/shared-events';

export const PaymentTopics = {
  PAYMENT: 'payment.payment.v1',
} as const;

const attemptPayload = z.object({
  attemptId: z.string(),
  selectionId: z.string(),
  paymentMethod: z.string(),
  amountMinor: z.number().int(),
  currency: z.string(),
});

/** A provider confirmed the payment of an attempt (result posted, notification received or immediate). Keyed by attempt id. */
export const PaymentAuthorized = defineEvent({
  topic: PaymentTopics.PAYMENT,
  type: 'PaymentAuthorized',
  version: 1,
  schema: attemptPayload,
});
/** A provider refused the payment of an attempt. */
export const PaymentDeclined = defineEvent({ topic: PaymentTopics.PAYMENT, type: 'PaymentDeclined', version: 1, schema: attemptPayload });
/** A started attempt was given up (a newer attempt for its selection, or cancelled by the edge). */
/** An authorized attempt's payment was voided at the provider: its order could not be placed (the stock was gone). */
export const PaymentVoided = defineEvent({ topic: PaymentTopics.PAYMENT, type: 'PaymentVoided', version: 1, schema: attemptPayload });
export const PaymentCancelled = defineEvent({ topic: PaymentTopics.PAYMENT, type: 'PaymentCancelled', version: 1, schema: attemptPayload });
