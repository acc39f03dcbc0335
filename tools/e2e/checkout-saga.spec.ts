import { createHash } from 'node:crypto';
import { DomainError } from '@commerce/shared-errors';
import { createLogger } from '@commerce/shared-logging';
import type { OrderClient } from '@commerce/order-contracts';
import { notificationOf } from '@commerce/payment-adapters';
import { AllInOneConfigSchema } from '../../apps/all-in-one/src/config';
import { startAllInOne, type AllInOne } from '../../apps/all-in-one/src/all-in-one';
import { paymentBrowser } from '../../libs/payment/adapters/src/testing/payment-browser';
import {
  PAYMENT_PUBLIC_URL,
  PAYMENT_TEST_HMAC_KEY,
  SHOPPER_ADDRESS,
  paymentDemoCatalog,
  paymentShopEnv,
} from './checkout-payment.contract';
import { checkoutCall } from './skeleton.scenario';

/**
 * The invariant of the checkout saga (DESIGN §8, docs/checkout-saga.md): one selection → at most one
 * authorized-and-kept payment and one order, whatever fails. On the all-in-one's embedded adapters, with
 * the order service made to fail (its in-process client, as the edge and its consumer reach it).
 */
describe('the checkout saga: one selection, at most one kept payment and one order', () => {
  let shop: AllInOne;
  let orderDown = false;
  const down = (client: OrderClient): OrderClient =>
    Object.fromEntries(
      Object.entries(client).map(([name, fn]) => [
        name,
        (...args: unknown[]) => {
          if (orderDown)
            return Promise.reject(new DomainError('ORDER.REMOTE_ERROR', 'unavailable', { order: 'unavailable (ECONNREFUSED)' }));
          return (fn as (...a: unknown[]) => Promise<unknown>)(...args);
        },
      ]),
    ) as unknown as OrderClient;
  const items = new Map<string, string>();

  beforeAll(async () => {
    const config = AllInOneConfigSchema.parse({
      ...paymentShopEnv(1200),
      DATABASE_URL: 'pglite://memory',
      WEBHOOK_COMPLETION_GRACE_MS: '0',
    });
    shop = await startAllInOne(config, createLogger('saga-test', 'silent'), paymentDemoCatalog(10), { orders: down });
    await shop.settled();
    for (const uri of ['checkout-tee', 'hook-belt']) {
      const found = await call('POST', '/uri', undefined, { uri, for: ['product'] });
      for (const item of found.body['product'].items as Array<{ item: string; name: string }>) items.set(`${uri}/${item.name}`, item.item);
    }
  }, 180_000);
  afterAll(() => shop?.close());
  afterEach(() => {
    orderDown = false;
  });

  const call = (method: string, path: string, token: string | undefined, body?: unknown) =>
    checkoutCall(
      { checkout: `${shop.url}/api/checkout`, soap: '', soapUser: { username: '', password: '', namespace: '' } },
      method,
      path,
      {
        ...(token ? { token } : {}),
        ...(body === undefined ? {} : { body }),
      },
    );
  const { browse, postForm, queryOf } = paymentBrowser(PAYMENT_PUBLIC_URL, () => shop.url);
  const payment = {
    paymentReturnPage: 'https://storefront.test/thanks',
    paymentFailedPage: 'https://storefront.test/failed',
    termsAndConditions: true,
    address: SHOPPER_ADDRESS,
  };

  async function visitor(item: string): Promise<string> {
    const first = await call('POST', `/items/${items.get(item)}`, undefined, { quantity: 1 });
    const token = first.body['token'] as string;
    expect((await call('PUT', '/countries/SE', token)).status).toBe(200);
    expect((await call('PUT', '/payment-methods/test-card', token)).status).toBe(200);
    return token;
  }
  /** Approves a started payment on the hosted test page: the signed fields the visitor returns with. */
  async function approve(url: string): Promise<Record<string, string>> {
    expect((await browse(url)).status).toBe(200);
    const back = await postForm(`${url}/decision`, { decision: 'approve' });
    expect(back.status).toBe(303);
    return queryOf(back.headers.get('location')!);
  }

  /** The session's attempts (the order drafts name the session by a hash of its token) and their orders. */
  async function ledger(token: string) {
    const sessionId = createHash('sha256').update(token).digest('base64url').slice(0, 32);
    await shop.settled();
    const attempts = (await shop
      .db('payment')
      .table('attempts')
      .whereRaw(`order_draft->>'sessionId' = ?`, [sessionId])
      .select('id', 'status', 'selection_id', 'provider_reference', 'amount_minor', 'currency')) as Array<Record<string, string>>;
    const orders = (await shop
      .db('order')
      .table('orders')
      .whereIn(
        'payment_attempt_id',
        attempts.map((a) => a.id!),
      )
      .select('payment_attempt_id')) as Array<{ payment_attempt_id: string }>;
    const status = (s: string) => attempts.filter((a) => a.status === s).length;
    return {
      attempts,
      orders,
      authorized: status('authorized'),
      voided: status('voided'),
      selections: new Set(attempts.map((a) => a.selection_id)),
    };
  }
  /** What the order service's consumer does when it comes back: every authorized attempt's completion (redelivered). */
  async function redeliverAll(token: string) {
    for (const a of (await ledger(token)).attempts) if (a.status === 'authorized') await shop.clients.orders.completePaidAttempt(a.id!);
  }
  const webhook = (a: Record<string, string>) =>
    browse(`${shop.url}/payment/notifications/test`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(
        notificationOf(
          { publicUrl: PAYMENT_PUBLIC_URL, hmacKey: PAYMENT_TEST_HMAC_KEY, merchantAccount: 'TestMerchant' },
          {
            attemptId: a.id,
            providerReference: a.provider_reference,
            amountMinor: Number(a.amount_minor),
            currency: a.currency,
          } as never,
          true,
        ),
      ),
    });

  it('a checkout whose item stays in stock re-publishes no product (nothing re-read or re-indexed); the SOAP feed still shows its stock events', async () => {
    const catalog = shop.db('catalog');
    const feed = shop.db('backoffice');
    const published = async () =>
      Object.fromEntries(
        (
          (await catalog.table('outbox').groupBy('topic').select('topic').count({ n: '*' })) as Array<{ topic: string; n: string | number }>
        ).map((r) => [r.topic, Number(r.n)]),
      );
    const token = await visitor('checkout-tee/M');
    await shop.settled();
    const before = await published();
    const lastEvent = Number(((await feed.table('change_events').max({ id: 'id' }).first()) as { id: string | number | null }).id ?? 0);
    const started = await call('POST', '/payment', token, payment);
    const placed = await call('POST', '/payment-result', token, { paymentMethodFields: await approve(started.body['url']) });
    expect(placed.status).toBe(200);
    await shop.settled();
    const after = await published();
    expect({
      product: (after['catalog.product.v1'] ?? 0) - (before['catalog.product.v1'] ?? 0),
      stock: (after['catalog.stock.v1'] ?? 0) - (before['catalog.stock.v1'] ?? 0),
    }).toEqual({ product: 0, stock: 1 });
    // The feed: the product-level stock event (from the StockChanged now) and the item's quantity.
    const stockEvents = (await feed
      .table('change_events')
      .where('id', '>', lastEvent)
      .andWhere({ type: 'stock', entry: 'P-PAY' })
      .orderBy('id')
      .select('data')) as Array<{ data: string | { stock: Record<string, unknown> } }>;
    expect(stockEvents.map((r) => (typeof r.data === 'string' ? JSON.parse(r.data) : r.data).stock)).toEqual([
      { product: { id: 'P-PAY' } },
      expect.objectContaining({ product: { id: 'P-PAY' }, qty: expect.stringMatching(/^\d+$/) }),
    ]);
  });

  it('the order service down during payment-result, then POST payment again: 503 and nothing started; once back, the one order', async () => {
    const token = await visitor('checkout-tee/M');
    const started = await call('POST', '/payment', token, payment);
    expect(started.body).toMatchObject({ action: 'redirect' });
    const fields = await approve(started.body['url']);
    orderDown = true;
    const result = await call('POST', '/payment-result', token, { paymentMethodFields: fields });
    expect({ status: result.status, errors: result.body['errors'] }).toEqual({
      status: 503,
      errors: { order: 'unavailable (ECONNREFUSED)' },
    });
    // The shopper tries again: nothing new is started while the paid attempt has no order yet.
    const again = await call('POST', '/payment', token, payment);
    if (again.status === 200 && again.body['action'] === 'redirect') await approve(again.body['url']);
    expect({ status: again.status, errors: again.body['errors'] }).toEqual({
      status: 503,
      errors: { order: 'unavailable (ECONNREFUSED)' },
    });
    // The consumer of PaymentAuthorized failed too while the service was down (its retries spent).
    await shop.settled();
    orderDown = false;
    // Back: POST payment completes the paid attempt rather than starting a second one.
    const completed = await call('POST', '/payment', token, payment);
    expect(completed.status).toBe(200);
    expect(completed.body).toMatchObject({ action: 'success', status: 'untouched' });
    const after = await ledger(token);
    expect({ attempts: after.attempts.length, authorized: after.authorized, orders: after.orders.length }).toEqual({
      attempts: 1,
      authorized: 1,
      orders: 1,
    });
    expect((await call('GET', '/receipt', token)).body['order']).toBe(completed.body['order']);
    await redeliverAll(token);
    expect((await ledger(token)).orders).toHaveLength(1);
  }, 60_000);

  it('two tabs paying at once, the PSP authorizing both, webhooks and results racing: one order, one kept payment, the other voided', async () => {
    const token = await visitor('hook-belt/S');
    const [one, two] = await Promise.all([call('POST', '/payment', token, payment), call('POST', '/payment', token, payment)]);
    expect([one!.status, two!.status]).toEqual([200, 200]);
    // The replaced attempt was cancelled at the provider: its page refuses it; the live one is approved.
    const pages = await Promise.all(
      [one!, two!].map(async (s) => ({ url: s.body['url'] as string, status: (await browse(s.body['url'])).status })),
    );
    expect(pages.map((p) => p.status).sort()).toEqual([200, 409]);
    const fields = [await approve(pages.find((p) => p.status === 200)!.url)];
    // The PSP had authorized the other before the cancellation reached it: its webhook still comes, beside
    // the live one's, while the tab posts its result.
    const { attempts } = await ledger(token);
    const delivered = await Promise.all([
      ...fields.map((f) => call('POST', '/payment-result', token, { paymentMethodFields: f })),
      ...attempts.map((a) => webhook(a)),
    ]);
    expect(delivered.map((d) => d.status)).toEqual([200, 200, 200]);
    await redeliverAll(token);
    const after = await ledger(token);
    expect(after.selections.size).toBe(1);
    expect({ attempts: after.attempts.length, authorized: after.authorized, voided: after.voided, orders: after.orders.length }).toEqual({
      attempts: 2,
      authorized: 1,
      voided: 1,
      orders: 1,
    });
    expect(after.orders[0]!.payment_attempt_id).toBe(after.attempts.find((a) => a.status === 'authorized')!.id);
  }, 60_000);

  it('a paid attempt, then a new POST payment racing the webhook and the result: one order, the one every answer names', async () => {
    const token = await visitor('hook-belt/M');
    const started = await call('POST', '/payment', token, payment);
    const fields = await approve(started.body['url']);
    const { attempts } = await ledger(token);
    const answers = await Promise.all([
      call('POST', '/payment-result', token, { paymentMethodFields: fields }),
      call('POST', '/payment', token, payment),
      webhook(attempts[0]!),
      call('POST', '/payment-result', token, { paymentMethodFields: fields }),
    ]);
    const after = await ledger(token);
    expect({ attempts: after.attempts.length, authorized: after.authorized, orders: after.orders.length }).toEqual({
      attempts: 1,
      authorized: 1,
      orders: 1,
    });
    const receipt = (await call('GET', '/receipt', token)).body['order'];
    for (const a of [answers[0]!, answers[3]!])
      expect({ status: a.status, order: a.body['order'] }).toEqual({ status: 200, order: receipt });
    // POST payment: the paid attempt's order, or (the selection closed first) an empty selection; never a new payment.
    const pay = answers[1]!;
    expect(pay.status === 200 ? { order: pay.body['order'] } : { errors: pay.body['errors'] }).toEqual(
      pay.status === 200 ? { order: receipt } : { errors: { selection: 'empty' } },
    );
  }, 60_000);
});
