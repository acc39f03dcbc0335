import { PaymentResultInvalidError, type PaymentProvider } from '@commerce/payment-core';
import type { PaymentAddress } from '@commerce/payment-contracts';
import { cancelTestPayment, escapeHtml, referenceOf, voidTestPayment, type TestProviderSettings } from './test-provider.settings';

/** What the embedded checkout records when the visitor completes it (the provider's side of the payment). */
export interface EmbeddedCompletion {
  decision: 'approved' | 'declined';
  amountMinor: number;
  currency: string;
  address: PaymentAddress;
}

/**
 * The embedded-form test provider, shaped like Klarna Checkout: `form` with a script snippet that mounts
 * the provider's checkout (an iframe of the payment service) where the visitor enters the address and
 * pays; the visitor returns with the checkout's order id only (`embedded_order_id`, snake_case as such
 * providers send it), and the result, with the customer's address, is read from the provider's side
 * (here, what the checkout recorded), never trusted from the browser.
 */
export function embeddedTestProvider(name: string, settings: TestProviderSettings): PaymentProvider {
  const base = `${settings.publicUrl.replace(/\/$/, '')}/payment/test-embedded`;
  return {
    name,
    // Its start is the page's address: asked before the attempt is stored, stored with it in one statement.
    startsLocally: true,
    void: voidTestPayment,
    cancel: cancelTestPayment,
    async start({ attempt }) {
      const providerReference = referenceOf('EC', attempt.attemptId);
      const src = `${base}/${providerReference}`;
      const formHtml =
        `<div id="test-embedded-checkout"></div>` +
        `<script>(function(){var f=document.createElement('iframe');f.src=${JSON.stringify(src).replace(/</g, '\\u003c')};` +
        `f.title='Checkout';f.style.width='100%';f.style.minHeight='620px';f.style.border='0';` +
        `document.getElementById('test-embedded-checkout').appendChild(f);})();</script>`;
      return { providerReference, action: { action: 'form', formHtml } };
    },
    referenceOf(fields) {
      const id = fields['embedded_order_id'];
      return typeof id === 'string' && id.startsWith('EC') ? id : null;
    },
    async verifyReturn(attempt, data) {
      const completion = data['completion'] as EmbeddedCompletion | undefined;
      if (!completion) throw new PaymentResultInvalidError('payment not completed');
      return {
        providerReference: attempt.providerReference,
        outcome: completion.decision === 'approved' ? 'authorized' : 'declined',
        amountMinor: completion.amountMinor,
        currency: completion.currency,
        customerAddress: completion.address,
      };
    },
  };
}

export const embeddedCheckoutPage = (reference: string, amount: string, country: string, action: string): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Checkout</title></head>
<body style="font-family:sans-serif;max-width:28rem;margin:1rem auto">
<h1>Embedded checkout (test)</h1><p>Amount: <strong>${escapeHtml(amount)}</strong></p>
<form method="post" action="${escapeHtml(action)}" target="_top">
${['email', 'firstName', 'lastName', 'address1', 'address2', 'city', 'zipCode', 'phoneNumber']
  .map((f) => `<label>${f} <input name="${f}"${f === 'address2' || f === 'phoneNumber' ? '' : ' required'}></label><br>`)
  .join('\n')}
<input type="hidden" name="country" value="${escapeHtml(country)}">
<input type="hidden" name="reference" value="${escapeHtml(reference)}">
<button name="decision" value="approve">Pay</button> <button name="decision" value="decline" formnovalidate>Decline</button>
</form></body></html>`;
