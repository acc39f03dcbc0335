import { createInternalCaller } from '@commerce/shared-internal-client';
import type { AttemptDto, PaymentAddress, PaymentClient, PaymentResultDto, StartAttemptResult } from './payment.dto';

/** The payment service's internal HTTP API, for a deployment where the edge and the payment service are separate processes. */
export function createPaymentHttpClient(baseUrl: string): PaymentClient {
  const call = createInternalCaller(baseUrl, 'payment');
  const attempt = (id: string) => `/internal/payment/attempts/${encodeURIComponent(id)}`;
  return {
    startAttempt: async (command) => (await call<StartAttemptResult>('POST', '/internal/payment/attempts', command))!,
    verifyResult: async (fields) => (await call<PaymentResultDto>('POST', '/internal/payment/results', { fields }))!,
    liveAttemptOf: (selectionId) => call<AttemptDto>('GET', `/internal/payment/selections/${encodeURIComponent(selectionId)}/live-attempt`),
    getAttempt: (id) => call<AttemptDto>('GET', attempt(id)),
    cancelAttempt: (id) => call<AttemptDto>('POST', `${attempt(id)}/cancellation`),
    voidAttempt: (id) => call<AttemptDto>('POST', `${attempt(id)}/void`),
    addressSearch: async (paymentMethod, country, identityNumber) =>
      (await call<PaymentAddress>('POST', '/internal/payment/address-searches', { paymentMethod, country, identityNumber }))!,
  };
}
