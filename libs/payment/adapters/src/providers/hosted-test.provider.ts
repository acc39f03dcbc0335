import { PaymentResultInvalidError, NotificationInvalidError, type PaymentProvider, type ProviderVerdict } from '@commerce/payment-core';
import type { AttemptDto } from '@commerce/payment-contracts';
import { hmacBase64, sameSignature, signParams } from './hmac-signature';
import { cancelTestPayment, escapeHtml, referenceOf, voidTestPayment, type TestProviderSettings } from './test-provider.settings';

/** The parameters the hosted page returns the visitor with, named as Adyen's hosted payment pages name them. */
export const RETURN_PARAMS = [
  'authResult',
  'pspReference',
  'merchantReference',
  'paymentAmount',
  'currencyCode',
  'merchantAccount',
] as const;

/** The signed parameters of a return to the storefront (`merchantSig` over the others). */
export function returnParams(settings: TestProviderSettings, attempt: AttemptDto, approved: boolean): Record<string, string> {
  const params: Record<string, string> = {
    authResult: approved ? 'AUTHORISED' : 'REFUSED',
    pspReference: attempt.providerReference,
    merchantReference: attempt.attemptId,
    paymentAmount: String(attempt.amountMinor),
    currencyCode: attempt.currency,
    merchantAccount: settings.merchantAccount,
  };
  return { ...params, merchantSig: signParams(settings.hmacKey, params) };
}

/** Adyen's standard notification signature: `pspReference:originalReference:merchantAccountCode:merchantReference:value:currency:eventCode:success`. */
export function notificationSignature(
  hmacKey: string,
  item: {
    pspReference: string;
    originalReference?: string;
    merchantAccountCode: string;
    merchantReference: string;
    amount: { value: number; currency: string };
    eventCode: string;
    success: string;
  },
): string {
  const text = [
    item.pspReference,
    item.originalReference ?? '',
    item.merchantAccountCode,
    item.merchantReference,
    String(item.amount.value),
    item.amount.currency,
    item.eventCode,
    item.success,
  ].join(':');
  return hmacBase64(hmacKey, text);
}

/** A signed notification of the test provider's decision (what it posts to the webhook, as a PSP would). */
export function notificationOf(settings: TestProviderSettings, attempt: AttemptDto, approved: boolean) {
  const item = {
    pspReference: attempt.providerReference,
    merchantAccountCode: settings.merchantAccount,
    merchantReference: attempt.attemptId,
    amount: { value: attempt.amountMinor, currency: attempt.currency },
    eventCode: 'AUTHORISATION',
    success: approved ? 'true' : 'false',
  };
  return {
    live: 'false',
    notificationItems: [
      { NotificationRequestItem: { ...item, additionalData: { hmacSignature: notificationSignature(settings.hmacKey, item) } } },
    ],
  };
}

/**
 * The hosted test provider: `redirect` to a payment page served by the payment service (approve /
 * decline), or, as `form`, an HTML form the browser posts to that page. The page returns the visitor to
 * the return or failed page with Adyen-style signed parameters, and notifies the webhook.
 */
export function hostedTestProvider(name: string, variant: 'redirect' | 'form', settings: TestProviderSettings): PaymentProvider {
  const pageUrl = `${settings.publicUrl.replace(/\/$/, '')}/payment/test/pay`;
  // One prefix per variant: a return names the provider whose attempt it is.
  const prefix = variant === 'redirect' ? 'TP' : 'TF';
  return {
    name,
    // Its start is a signed redirect or form: asked before the attempt is stored, stored with it in one statement.
    startsLocally: true,
    notificationAnswer: '[accepted]',
    void: voidTestPayment,
    cancel: cancelTestPayment,
    async start({ attempt }) {
      const providerReference = referenceOf(prefix, attempt.attemptId);
      if (variant === 'redirect') return { providerReference, action: { action: 'redirect', url: `${pageUrl}/${providerReference}` } };
      const request: Record<string, string> = {
        merchantReference: attempt.attemptId,
        paymentAmount: String(attempt.amountMinor),
        currencyCode: attempt.currency,
        merchantAccount: settings.merchantAccount,
      };
      const fields = { ...request, merchantSig: signParams(settings.hmacKey, request) };
      const inputs = Object.entries(fields)
        .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
        .join('');
      return {
        providerReference,
        action: {
          action: 'form',
          formHtml: `<form method="post" action="${escapeHtml(pageUrl)}">${inputs}<button type="submit">Pay</button></form>`,
        },
      };
    },
    referenceOf(fields) {
      return typeof fields['pspReference'] === 'string' && fields['pspReference'].startsWith(prefix) && 'merchantSig' in fields
        ? fields['pspReference']
        : null;
    },
    async verifyReturn(attempt, _data, fields): Promise<ProviderVerdict> {
      const signed = Object.fromEntries(RETURN_PARAMS.map((k) => [k, fields[k]])) as Record<string, string | undefined>;
      const missing = RETURN_PARAMS.find((k) => typeof signed[k] !== 'string');
      if (missing) throw new PaymentResultInvalidError(`${missing} is missing`);
      if (!sameSignature(signParams(settings.hmacKey, signed as Record<string, string>), String(fields['merchantSig'])))
        throw new PaymentResultInvalidError('signature not valid');
      if (signed['merchantReference'] !== attempt.attemptId) throw new PaymentResultInvalidError('payment not found');
      if (!/^\d{1,15}$/.test(signed['paymentAmount']!)) throw new PaymentResultInvalidError('amount does not match the payment');
      return {
        providerReference: signed['pspReference']!,
        outcome: signed['authResult'] === 'AUTHORISED' ? 'authorized' : 'declined',
        amountMinor: Number(signed['paymentAmount']),
        currency: signed['currencyCode']!,
      };
    },
    async verifyNotification({ body }) {
      const items = (body as { notificationItems?: unknown })?.notificationItems;
      if (!Array.isArray(items)) throw new NotificationInvalidError('notificationItems is missing');
      const verdicts = items.map((entry: unknown): ProviderVerdict | null => {
        const item = (entry as { NotificationRequestItem?: Record<string, unknown> })?.NotificationRequestItem;
        const amount = item?.['amount'] as { value?: unknown; currency?: unknown } | undefined;
        if (
          !item ||
          typeof item['pspReference'] !== 'string' ||
          typeof item['merchantReference'] !== 'string' ||
          typeof item['eventCode'] !== 'string' ||
          typeof item['success'] !== 'string' ||
          typeof amount?.value !== 'number' ||
          typeof amount.currency !== 'string'
        )
          throw new NotificationInvalidError('malformed notification item');
        const expected = notificationSignature(settings.hmacKey, {
          pspReference: item['pspReference'],
          ...(typeof item['originalReference'] === 'string' ? { originalReference: item['originalReference'] } : {}),
          merchantAccountCode: String(item['merchantAccountCode'] ?? ''),
          merchantReference: item['merchantReference'],
          amount: { value: amount.value, currency: amount.currency },
          eventCode: item['eventCode'],
          success: item['success'],
        });
        const given = (item['additionalData'] as { hmacSignature?: unknown } | undefined)?.hmacSignature;
        if (typeof given !== 'string' || !sameSignature(expected, given)) throw new NotificationInvalidError('signature not valid');
        // Other events (refunds, captures) are accepted and left alone: nothing here acts on them yet.
        if (item['eventCode'] !== 'AUTHORISATION') return null;
        return {
          providerReference: item['pspReference'],
          outcome: item['success'] === 'true' ? 'authorized' : 'declined',
          amountMinor: amount.value,
          currency: amount.currency,
        };
      });
      return verdicts.filter((v): v is ProviderVerdict => v !== null);
    },
  };
}
