import Router from '@koa/router';
import type Koa from 'koa';
import { isDomainError, statusOfKind, ValidationError } from '@commerce/shared-errors';
import type { LeanRoute } from '@commerce/shared-http';
import type { PaymentUseCases, StoredAttempt } from '@commerce/payment-core';
import { notificationOf, returnParams } from './providers/hosted-test.provider';
import { embeddedCheckoutPage, type EmbeddedCompletion } from './providers/embedded-test.provider';
import { sameSignature, signParams } from './providers/hmac-signature';
import { escapeHtml, type TestProviderSettings } from './providers/test-provider.settings';

const FORM_LIMIT = 64 * 1024;

/** An `application/x-www-form-urlencoded` body (the shared parser reads JSON only), at most 64 KB. */
async function readForm(ctx: Koa.Context): Promise<Record<string, string>> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > FORM_LIMIT) throw new ValidationError({ body: 'too large' });
    chunks.push(chunk);
  }
  return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
}

const withQuery = (url: string, params: Record<string, string>) => `${url}${url.includes('?') ? '&' : '?'}${new URLSearchParams(params)}`;

export interface PaymentPagesOptions {
  settings: TestProviderSettings;
  /** Names of the installed hosted (redirect and form) and embedded test providers. */
  hosted: string[];
  embedded: string[];
  minorDigits: (currency: string) => number;
}

/** A page's answer, written on the request's Koa context (a page or a redirect). */
type PageAnswer = (ctx: Koa.Context) => void;

export interface PaymentPages {
  router: Router;
  /** The hosted page's Approve and Decline on a lean route before the app (decision 63; issue 28): one a checkout. */
  leanRoutes: LeanRoute[];
}

/**
 * What the payment service serves to browsers and PSPs under `/payment/`: the built-in test providers'
 * payment page and embedded checkout, and the providers' notification webhook.
 */
export function createPaymentPages(payment: PaymentUseCases, options: PaymentPagesOptions): PaymentPages {
  const router = new Router({ prefix: '/payment' });
  const { settings } = options;
  const amountOf = (a: StoredAttempt) =>
    `${(a.amountMinor / 10 ** options.minorDigits(a.currency)).toFixed(options.minorDigits(a.currency))} ${a.currency}`;
  const findIn = async (providers: string[], reference: string) => {
    for (const provider of providers) {
      const found = await payment.attemptByReference(provider, reference);
      if (found) return found;
    }
    return null;
  };
  const page = (ctx: Koa.Context, status: number, title: string, body: string) => {
    ctx.status = status;
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'no-store');
    ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body style="font-family:sans-serif;max-width:28rem;margin:2rem auto">${body}</body></html>`;
  };
  const hostedPage = (ctx: Koa.Context, a: StoredAttempt) => {
    if (a.status !== 'started') return page(ctx, 409, 'Payment', `<p>This payment is ${escapeHtml(a.status)}.</p>`);
    const action = `${settings.publicUrl.replace(/\/$/, '')}/payment/test/pay/${a.providerReference}/decision`;
    page(
      ctx,
      200,
      'Test payment',
      `<h1>Test payment</h1><p>Amount: <strong>${escapeHtml(amountOf(a))}</strong></p>` +
        `<form method="post" action="${escapeHtml(action)}"><button name="decision" value="approve">Approve</button> ` +
        `<button name="decision" value="decline">Decline</button></form>`,
    );
  };

  /**
   * The hosted page's button (the form's `decision`, read after the attempt is found): the PSP's side notifies the
   * shop's webhook, then sends the visitor back with signed parameters. The attempt just read goes with the
   * notification, so it is not looked up again.
   */
  const decide = async (reference: string, form: () => Promise<Record<string, string>>): Promise<PageAnswer> => {
    const attempt = await findIn(options.hosted, reference);
    if (!attempt) return (ctx) => page(ctx, 404, 'Payment', '<p>No such payment.</p>');
    const approved = (await form())['decision'] === 'approve';
    if (attempt.status === 'started')
      await payment.notify(attempt.provider, { headers: {}, body: notificationOf(settings, attempt, approved) }, attempt);
    return (ctx) => {
      ctx.status = 303;
      ctx.redirect(withQuery(approved ? attempt.returnUrl : attempt.failedUrl, returnParams(settings, attempt, approved)));
    };
  };

  router.get('/test/pay/:reference', async (ctx) => {
    const attempt = await findIn(options.hosted, ctx.params['reference']!);
    if (!attempt) return page(ctx, 404, 'Payment', '<p>No such payment.</p>');
    hostedPage(ctx, attempt);
  });

  // The form variant: the storefront's browser posts the signed request here.
  router.post('/test/pay', async (ctx) => {
    const form = await readForm(ctx);
    const { merchantSig, ...request } = form;
    if (!merchantSig || !sameSignature(signParams(settings.hmacKey, request), merchantSig))
      return page(ctx, 400, 'Payment', '<p>The payment request is not signed correctly.</p>');
    const attempt = await payment.getAttempt(request['merchantReference'] ?? '');
    const stored = attempt ? await findIn(options.hosted, attempt.providerReference) : null;
    if (!stored || String(stored.amountMinor) !== request['paymentAmount'] || stored.currency !== request['currencyCode'])
      return page(ctx, 400, 'Payment', '<p>The payment request does not match a payment.</p>');
    hostedPage(ctx, stored);
  });

  router.post('/test/pay/:reference/decision', async (ctx) => (await decide(ctx.params['reference']!, () => readForm(ctx)))(ctx));

  router.get('/test-embedded/:reference', async (ctx) => {
    const attempt = await findIn(options.embedded, ctx.params['reference']!);
    if (!attempt) return page(ctx, 404, 'Checkout', '<p>No such checkout.</p>');
    if (attempt.status !== 'started') return page(ctx, 409, 'Checkout', `<p>This payment is ${escapeHtml(attempt.status)}.</p>`);
    const action = `${settings.publicUrl.replace(/\/$/, '')}/payment/test-embedded/${attempt.providerReference}/complete`;
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'no-store');
    ctx.body = embeddedCheckoutPage(attempt.providerReference, amountOf(attempt), attempt.country, action);
  });

  router.post('/test-embedded/:reference/complete', async (ctx) => {
    const attempt = await findIn(options.embedded, ctx.params['reference']!);
    if (!attempt) return page(ctx, 404, 'Checkout', '<p>No such checkout.</p>');
    const form = await readForm(ctx);
    const approved = form['decision'] === 'approve';
    const pick = (k: string) => String(form[k] ?? '').slice(0, 200);
    const completion: EmbeddedCompletion = {
      decision: approved ? 'approved' : 'declined',
      amountMinor: attempt.amountMinor,
      currency: attempt.currency,
      address: {
        email: pick('email'),
        firstName: pick('firstName'),
        lastName: pick('lastName'),
        address1: pick('address1'),
        address2: pick('address2'),
        city: pick('city'),
        zipCode: pick('zipCode'),
        phoneNumber: pick('phoneNumber'),
        // The country the checkout was opened for: prices were computed for it.
        country: attempt.country,
      },
    };
    if (attempt.status === 'started' && !attempt.providerData['completion'])
      await payment.recordProviderData(attempt.attemptId, { completion });
    ctx.status = 303;
    ctx.redirect(withQuery(approved ? attempt.returnUrl : attempt.failedUrl, { embedded_order_id: attempt.providerReference }));
  });

  // A provider's asynchronous notification: verified by its signature, applied once, answered as it expects.
  router.post('/notifications/:provider', async (ctx) => {
    try {
      const answer = await payment.notify(ctx.params['provider']!, {
        headers: ctx.headers,
        body: (ctx.request as { body?: unknown }).body,
      });
      ctx.type = 'text/plain';
      ctx.body = answer;
    } catch (err) {
      if (!isDomainError(err)) throw err;
      ctx.status = statusOfKind[err.kind];
      ctx.body = { errors: err.fields };
    }
  });
  const leanRoutes: LeanRoute[] = [
    {
      method: 'POST',
      route: '/payment/test/pay/:reference/decision',
      path: /^\/payment\/test\/pay\/([^/]+)\/decision$/,
      form: true,
      handle: (params, body) => decide(params[0]!, () => Promise.resolve(body as Record<string, string>)),
      respond: (answer, ctx) => (answer as PageAnswer)(ctx),
      // Errors as the app's error middleware answers them (`{errors}`), as the router's route does.
      passes: () => true,
    },
  ];
  return { router, leanRoutes };
}
