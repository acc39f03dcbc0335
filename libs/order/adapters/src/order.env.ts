import { boundedInt } from '@commerce/shared-config';
import { DEFAULT_WEBHOOK_COMPLETION_GRACE_MS, MAX_WEBHOOK_COMPLETION_GRACE_MS } from './consumers/payment-authorized.consumer';

/** The order service's own variables, for the order and all-in-one config schemas. */
export const orderEnv = () => ({
  /**
   * How long after its authorization a paid attempt is left to the visitor's `payment-result` before the
   * order service completes it from the webhook's `PaymentAuthorized` (ms; decision 60): one whose order
   * the edge placed by then is not completed twice. 0: at once, racing the edge.
   */
  WEBHOOK_COMPLETION_GRACE_MS: boundedInt(0, MAX_WEBHOOK_COMPLETION_GRACE_MS, DEFAULT_WEBHOOK_COMPLETION_GRACE_MS).describe(
    "How long after a payment's authorization the order service leaves its completion to the visitor's `payment-result` before its `PaymentAuthorized` consumer completes it (ms): an attempt whose order the edge placed by then is left alone, instead of being completed a second time at once. A visitor who never comes back gets the order this much later. The wait counts from the event's time and holds the consumer's partition, so at most 8 s (Kafka drops a consumer silent for 10 s); 0 completes at once, racing the edge (decision 60).",
  ),
});
