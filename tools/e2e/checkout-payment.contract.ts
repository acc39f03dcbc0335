import { readFileSync } from 'node:fs';
import * as soap from 'soap';
import type { SoapProduct } from '@commerce/erp-contracts';
import { itemIdParts } from '@commerce/catalog-contracts';
import { parseDemoCatalog, type DemoCatalog } from '@commerce/catalog-adapters';
import { checkoutCall, postSoap, type Endpoints } from './skeleton.scenario';
import { expectMatchesSchema } from './openapi-validator';
import { notificationOf, referenceOf, type TestProviderSettings } from '@commerce/payment-adapters';
import { paymentBrowser } from '../../libs/payment/adapters/src/testing/payment-browser';
import { swedishShopperAddress } from '@commerce/checkout-core';

/** Where the test providers' pages claim to be (`PAYMENT_PUBLIC_URL`); the test swaps in the server's origin. */
export const PAYMENT_PUBLIC_URL = 'http://shop.test';
/** The test providers' signing key (`PAYMENT_TEST_HMAC_KEY`): the tests post the PSP's notifications themselves. */
export const PAYMENT_TEST_HMAC_KEY = '5e'.repeat(32);
/** The shop's settings every harness of the contract shares, its stock held for `holdSeconds`. */
export const paymentShopEnv = (holdSeconds: number) => ({
  PORT: '0',
  LOG_LEVEL: 'silent',
  GEOIP_DB: 'off',
  PAYMENT_PUBLIC_URL,
  PAYMENT_TEST_HMAC_KEY,
  PAYMENT_HOLD_SECONDS: String(holdSeconds),
  ARGON2_MEMORY_KIB: '1024',
  ARGON2_ITERATIONS: '1',
});
/** The address of the contract's shopper, in Sweden. */
export const SHOPPER_ADDRESS: Readonly<Record<string, string>> = { ...swedishShopperAddress(), phoneNumber: '+46701234567' };
const PSP: TestProviderSettings = { publicUrl: PAYMENT_PUBLIC_URL, hmacKey: PAYMENT_TEST_HMAC_KEY, merchantAccount: 'TestMerchant' };
const RETURN = 'https://storefront.test/thanks';
const FAILED = 'https://storefront.test/failed';

/**
 * A product of the demo shop's shape with its own stock per size: one per test need, so tests never share
 * stock. Its sizes are the demo's letter sizes unless `sizeIds` names sizes of its own.
 */
function product(id: string, name: string, sizes: Record<string, number>, sizeIds = 'ST-LETTERS'): SoapProduct {
  return {
    id,
    status: 'active',
    sku: id,
    description: name,
    folder: { id: 'C-W-SHIRTS', description: 'Shirts' },
    brand: { id: 'B-TEST', description: 'Test Brand' },
    variations: [
      {
        id: `${id}-V1`,
        description: 'White',
        sku: '-WHT',
        status: 'active',
        sizes: Object.entries(sizes).map(([size, qty], i) => ({
          id: `${sizeIds}-${size}`,
          description: size,
          sku: `${id}-${size}`,
          ean: `73519990${String(i).padStart(5, '0')}`,
          qty: String(qty),
        })),
        displays: [
          {
            store: '1',
            categories: [{ id: 'C-W-SHIRTS' }],
            markets: [{ id: '1' }, { id: '2' }, { id: '3' }],
            minimumorderamount: '1',
            orderdenominator: '1',
          },
        ],
      },
    ],
  } as SoapProduct;
}

/** The demo catalog plus the test's products, priced in every pricelist. */
export function paymentDemoCatalog(race: number): DemoCatalog {
  const demo = parseDemoCatalog(JSON.parse(readFileSync('infra/config/demo-catalog.json', 'utf8')));
  const extra = [
    product('P-PAY', 'Checkout Tee', { S: 3, M: 100_000 }),
    product('P-LAST', 'Last Scarf', { S: 1 }),
    product('P-RACE', 'Race Cap', { S: race }),
    product('P-DUP', 'Duplicate Sock', { S: 5 }),
    product('P-HOOK', 'Hook Belt', { S: 10, M: 10, L: 10 }),
    // Sizes of its own: the stockdivisor test puts them in a size table of packs.
    product('P-PACK', 'Pack Socks', { S: 7, M: 2 }, 'PACK'),
  ];
  return {
    ...demo,
    products: [...demo.products, ...extra],
    pricelists: demo.pricelists.map((p) => ({ ...p, items: [...(p.items ?? []), ...extra.map((e) => ({ id: e.id, price: '200.00' }))] })),
  };
}

export interface PaymentApiHarness {
  /** The all-in-one's base URL. */
  url: string;
  close(): Promise<void>;
  /** How many `OrderPlaced` events the order service wrote for an order number (real engines only). */
  orderEvents?: (order: string) => Promise<number>;
}

/** The checkout saga through the public checkout API and the payment pages of the all-in-one. */
export function checkoutPaymentContract(
  name: string,
  start: () => Promise<PaymentApiHarness>,
  options: {
    race: { visitors: number; stock: number };
    /** The same shop with `PAYMENT_HOLD_SECONDS=1` and `paymentDemoCatalog(1)`: payments made after their hold expired. */
    shortHold: () => Promise<PaymentApiHarness>;
  },
) {
  describe(`the checkout saga on ${name}`, () => {
    let h: PaymentApiHarness;
    let endpoints: Endpoints;
    const items = new Map<string, string>();

    beforeAll(async () => {
      await use(await start());
    }, 180_000);
    /** Points every helper at a running shop and learns its item ids. */
    async function use(harness: PaymentApiHarness) {
      h = harness;
      endpoints = { checkout: `${h.url}/api/checkout`, soap: '', soapUser: { username: '', password: '', namespace: '' } };
      items.clear();
      for (const uri of ['checkout-tee', 'last-scarf', 'race-cap', 'duplicate-sock', 'hook-belt', 'pack-socks']) {
        const found = await checkoutCall(endpoints, 'POST', '/uri', { body: { uri, for: ['product'] } });
        for (const item of found.body['product'].items as Array<{ item: string; name: string }>)
          items.set(`${uri}/${item.name}`, item.item);
      }
    }
    afterAll(async () => {
      await h?.close();
    });

    const call = async (method: string, path: string, token: string | undefined, body?: unknown) =>
      checkoutCall(endpoints, method, path, { ...(token ? { token } : {}), ...(body === undefined ? {} : { body }) });
    const { browse, postForm, queryOf } = paymentBrowser(PAYMENT_PUBLIC_URL, () => h.url);
    const address = (over: Record<string, string> = {}) => ({ ...SHOPPER_ADDRESS, ...over });
    const payment = (over: Record<string, unknown> = {}) => ({
      paymentReturnPage: RETURN,
      paymentFailedPage: FAILED,
      termsAndConditions: true,
      address: address(),
      ...over,
    });

    /** A new visitor in Sweden with `quantity` of an item and a payment method; its token. */
    async function visitor(item: string, quantity = 1, method = 'test-card'): Promise<string> {
      const first = await call('POST', `/items/${items.get(item)}`, undefined, { quantity });
      expect(first.status).toBe(200);
      const token = first.body['token'] as string;
      expect((await call('PUT', '/countries/SE', token)).status).toBe(200);
      expect((await call('PUT', `/payment-methods/${method}`, token)).status).toBe(200);
      return token;
    }

    /** How many of an item can still be bought: a payment for far more answers 410 with `available` (nothing is held). */
    async function availableOf(item: string): Promise<number> {
      const token = await visitor(item, 10_000);
      const res = await call('POST', '/payment', token, payment());
      expect(res.status).toBe(410);
      return res.body['unavailable'][0].available as number;
    }

    /** A registered, logged-in customer with `quantity` of an item: its orders show in `POST orders` without a receipt. */
    async function customer(item: string, quantity: number, method = 'test-card'): Promise<string> {
      const anonymous = await visitor(item, quantity, method);
      const email = `hook-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;
      const registered = await call('POST', '/register', anonymous, { email, password: 'correct horse battery' });
      expect(registered.status).toBe(200);
      return registered.body['token'] as string;
    }

    /**
     * The customer's orders, once `count` of them are there (the webhook's order is placed by a consumer, a
     * moment later); 0: as they are now.
     */
    async function ordersOf(token: string, count = 0): Promise<Array<Record<string, any>>> {
      const until = Date.now() + 60_000;
      for (;;) {
        const history = await call('POST', '/orders', token, { from: 0, size: 10 });
        expect(history.status).toBe(200);
        const orders = history.body['orders'] as Array<Record<string, any>>;
        if (orders.length >= count || Date.now() > until) return orders;
        await new Promise((r) => setTimeout(r, 100));
      }
    }

    /** The provider's signed notification of an attempt (what its servers post to the webhook), approved. */
    const webhook = (provider: string, attempt: { attemptId: string; providerReference: string; amountMinor: number; currency: string }) =>
      browse(`${h.url}/payment/notifications/${provider}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(notificationOf(PSP, attempt as never, true)),
      });

    /** Pays on the hosted test page: the signed parameters the visitor returns with. */
    async function payHosted(token: string, decision: 'approve' | 'decline') {
      const started = await call('POST', '/payment', token, payment());
      expect(started.status).toBe(200);
      expectMatchesSchema('PaymentAction', started.body);
      expect(started.body).toMatchObject({ token, action: 'redirect' });
      const page = await browse(started.body['url']);
      expect(page.status).toBe(200);
      const back = await postForm(`${started.body['url']}/decision`, { decision });
      expect(back.status).toBe(303);
      return back.headers.get('location')!;
    }

    it('refuses terms not accepted, a missing or malformed address, a country not shipped to and an empty selection', async () => {
      const token = await visitor('checkout-tee/M');
      const refuse = async (body: unknown, status: number, errors: Record<string, string>) => {
        const res = await call('POST', '/payment', token, body);
        expect({ status: res.status, errors: res.body['errors'] }).toEqual({ status, errors });
        expect(res.body['token']).toBe(token);
        expectMatchesSchema('ErrorEnvelope', res.body);
      };
      await refuse(payment({ termsAndConditions: false }), 406, { termsAndConditions: 'not accepted' });
      await refuse(payment({ address: address({ zipCode: '1145' }) }), 400, { 'address.zipCode': 'must be in the format NNN NN' });
      await refuse(payment({ address: address({ email: '', city: '' }) }), 400, {
        'address.email': 'required',
        'address.city': 'required',
      });
      await refuse(payment({ address: address({ country: 'DE', zipCode: '1011' }) }), 400, {
        'address.zipCode': 'must be in the format NNNNN',
      });
      await refuse(payment({ paymentReturnPage: 'javascript:alert(1)' }), 400, { paymentReturnPage: 'must be an http(s) URL' });
      await refuse(payment({ address: address({ country: 'NO', zipCode: '0150' }) }), 406, { country: 'not shippable' });
      const empty = (await call('GET', '/selection', undefined)).body['token'];
      const res = await call('POST', '/payment', empty, payment());
      expect({ status: res.status, errors: res.body['errors'] }).toEqual({ status: 406, errors: { selection: 'empty' } });
    });

    it('hosted page, approved: the order is placed once (status untouched, Pending), the session keeps its token and gets an empty selection', async () => {
      const token = await visitor('checkout-tee/M', 2);
      const location = await payHosted(token, 'approve');
      expect(location.startsWith(`${RETURN}?`)).toBe(true);
      const fields = queryOf(location);
      const result = await call('POST', '/payment-result', token, { paymentMethodFields: fields });
      expect(result.status).toBe(200);
      expectMatchesSchema('PaymentResult', result.body);
      expect(result.body).toMatchObject({
        token,
        status: 'untouched',
        statusDescription: 'Pending',
        paymentMethod: 'test-card',
        currency: 'SEK',
        address: { firstName: 'Anna', zipCode: '114 51', country: 'SE', countryName: 'Sweden' },
        // The size's name, as the shopper chose it (decision 112).
        items: [{ item: items.get('checkout-tee/M'), size: 'M', quantity: 2 }],
        shipments: [],
      });
      expect(result.body['order']).toMatch(/^\d+$/);
      // Duplicates, concurrent ones included, answer the same order.
      const again = await Promise.all([1, 2, 3, 4, 5].map(() => call('POST', '/payment-result', token, { paymentMethodFields: fields })));
      for (const r of again) expect({ status: r.status, order: r.body['order'] }).toEqual({ status: 200, order: result.body['order'] });
      const receipt = await call('GET', '/receipt', token);
      expect(receipt.status).toBe(200);
      expect(receipt.body).toEqual(result.body);
      const selection = await call('GET', '/selection', token);
      expect(selection.body['token']).toBe(token);
      expect(selection.body['selection'].items).toEqual([]);
      // The next selection of the token is a new one; the order keeps its lines.
      expect((await call('POST', `/items/${items.get('checkout-tee/M')}`, token)).body['selection'].items).toHaveLength(1);
    });

    it("names an order's lines in the SOAP order event by the ERP's variation, size and brand ids (decision 113)", async () => {
      const token = await visitor('checkout-tee/M', 1);
      const fields = queryOf(await payHosted(token, 'approve'));
      const order = (await call('POST', '/payment-result', token, { paymentMethodFields: fields })).body['order'] as string;
      type Client = soap.Client & Record<string, (args: unknown) => Promise<[any, string]>>;
      const client = (await soap.createClientAsync(`${h.url}/ams/system/service/module/soap/api?wsdl`)) as Client;
      client.setEndpoint(`${h.url}/ams/system/service/module/soap/api`);
      const login = { username: 'demo', password: 'demo-secret' };
      const until = Date.now() + 60_000;
      let event: Record<string, any> | undefined;
      while (!event && Date.now() < until) {
        const listed = (await client['events_GetAsync']!({ login, type: 'order' }))[0]?.events?.event;
        event = [listed ?? []].flat().find((e: { entry: string }) => e.entry === order);
        if (!event) await new Promise((r) => setTimeout(r, 100));
      }
      const line = [event!.data.order.products.product].flat()[0];
      expect(line.variation).toEqual({ id: 'P-PAY-V1', description: 'Checkout Tee' });
      expect(line.brand).toEqual({ id: 'B-TEST', description: 'Test Brand' });
      expect([line.sizes.size].flat()[0]).toMatchObject({ id: 'ST-LETTERS-M', qty: '1' });
    }, 120_000);

    it('webhook only: the visitor never comes back, and the order is still placed once (untouched), the stock taken once, the selection closed', async () => {
      const token = await customer('hook-belt/S', 2);
      // Approve notifies the webhook and redirects; the browser is closed before the storefront is reached.
      const location = await payHosted(token, 'approve');
      const placed = await ordersOf(token, 1);
      expect(placed).toHaveLength(1);
      expect(placed[0]).toMatchObject({
        status: 'untouched',
        statusDescription: 'Pending',
        items: [{ item: items.get('hook-belt/S'), quantity: 2 }],
      });
      expect(await availableOf('hook-belt/S')).toBe(8);
      expect((await call('GET', '/selection', token)).body['selection'].items).toEqual([]);
      // The visitor comes back late, twice, while the PSP repeats its notification: the same order, nothing taken again.
      const fields = queryOf(location);
      const attempt = {
        attemptId: fields['merchantReference']!,
        providerReference: fields['pspReference']!,
        amountMinor: Number(fields['paymentAmount']),
        currency: fields['currencyCode']!,
      };
      const [late, again, ...hooks] = await Promise.all([
        call('POST', '/payment-result', token, { paymentMethodFields: fields }),
        call('POST', '/payment-result', token, { paymentMethodFields: fields }),
        webhook('test', attempt),
        webhook('test', attempt),
      ]);
      for (const r of [late!, again!])
        expect({ status: r.status, order: r.body['order'] }).toEqual({ status: 200, order: placed[0]!['order'] });
      for (const r of hooks) expect({ status: r.status, body: await r.text() }).toEqual({ status: 200, body: '[accepted]' });
      expect((await call('GET', '/receipt', token)).body['order']).toBe(placed[0]!['order']);
      expect(await ordersOf(token)).toHaveLength(1);
      expect(await availableOf('hook-belt/S')).toBe(8);
      if (h.orderEvents) expect(await h.orderEvents(placed[0]!['order'])).toBe(1);
    }, 120_000);

    it('webhook and payment-result at once, in any order: one order, the one the visitor is answered', async () => {
      const token = await customer('hook-belt/M', 1);
      const fields = queryOf(await payHosted(token, 'approve'));
      const attempt = {
        attemptId: fields['merchantReference']!,
        providerReference: fields['pspReference']!,
        amountMinor: Number(fields['paymentAmount']),
        currency: fields['currencyCode']!,
      };
      const calls = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          i % 2 === 0
            ? call('POST', '/payment-result', token, { paymentMethodFields: fields })
            : webhook('test', attempt).then((r) => ({ status: r.status, body: {} as Record<string, any> })),
        ),
      );
      const answered = new Set(calls.filter((_, i) => i % 2 === 0).map((r) => `${r.status} ${r.body['order']}`));
      expect(answered.size).toBe(1);
      expect(calls.filter((_, i) => i % 2 === 1).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      const orders = await ordersOf(token, 1);
      expect(orders.map((o) => `200 ${o['order']}`)).toEqual([...answered]);
      expect(await availableOf('hook-belt/M')).toBe(9);
    }, 120_000);

    it('duplicated webhook deliveries of a payment the visitor made elsewhere (never on the page): one order', async () => {
      const token = await customer('hook-belt/L', 3, 'test-card-form');
      const started = await call('POST', '/payment', token, payment());
      expect(started.body['action']).toBe('form');
      const form = Object.fromEntries(
        [...(started.body['formHtml'] as string).matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]),
      );
      const attempt = {
        attemptId: form['merchantReference']!,
        providerReference: referenceOf('TF', form['merchantReference']!),
        amountMinor: Number(form['paymentAmount']),
        currency: form['currencyCode']!,
      };
      const hooks = await Promise.all(Array.from({ length: 8 }, () => webhook('test-form', attempt)));
      expect(hooks.map((r) => r.status)).toEqual(Array.from({ length: 8 }, () => 200));
      const orders = await ordersOf(token, 1);
      expect(orders).toHaveLength(1);
      expect(orders[0]).toMatchObject({
        status: 'untouched',
        paymentMethod: 'test-card-form',
        items: [{ item: items.get('hook-belt/L'), quantity: 3 }],
      });
      await Promise.all(Array.from({ length: 4 }, () => webhook('test-form', attempt)));
      expect(await ordersOf(token)).toHaveLength(1);
      expect(await availableOf('hook-belt/L')).toBe(7);
      expect((await call('GET', '/selection', token)).body['selection'].items).toEqual([]);
    }, 120_000);

    it('hosted page, declined: payment-result answers 406 {payment: failed}, places nothing and frees the stock', async () => {
      const token = await visitor('last-scarf/S');
      const location = await payHosted(token, 'decline');
      expect(location.startsWith(`${FAILED}?`)).toBe(true);
      const result = await call('POST', '/payment-result', token, { paymentMethodFields: queryOf(location) });
      expect({ status: result.status, errors: result.body['errors'] }).toEqual({ status: 406, errors: { payment: 'failed' } });
      expect((await call('GET', '/receipt', token)).status).toBe(404);
      expect((await call('GET', '/selection', token)).body['selection'].items).toHaveLength(1);
      expect(await availableOf('last-scarf/S')).toBe(1);
    });

    it('a tampered amount, currency or signature fails and places nothing; another token cannot collect the order', async () => {
      const token = await visitor('checkout-tee/M');
      const fields = queryOf(await payHosted(token, 'approve'));
      for (const tampered of [
        { paymentAmount: '1' },
        { currencyCode: 'EUR' },
        { merchantSig: 'AAAA' },
        { authResult: 'AUTHORISED', pspReference: 'TPX' },
      ]) {
        const res = await call('POST', '/payment-result', token, { paymentMethodFields: { ...fields, ...tampered } });
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(Object.keys(res.body['errors'])).toEqual(['paymentMethodFields']);
      }
      expect((await call('GET', '/receipt', token)).status).toBe(404);
      const stranger = (await call('GET', '/selection', undefined)).body['token'];
      const stolen = await call('POST', '/payment-result', stranger, { paymentMethodFields: fields });
      expect({ status: stolen.status, errors: stolen.body['errors'] }).toEqual({ status: 404, errors: { payment: 'not found' } });
      expect((await call('POST', '/payment-result', token, { paymentMethodFields: fields })).status).toBe(200);
    });

    it('form variant: a form the browser posts to the payment page; the result places the order', async () => {
      const token = await visitor('checkout-tee/M', 1, 'test-card-form');
      const started = await call('POST', '/payment', token, payment());
      expectMatchesSchema('PaymentAction', started.body);
      expect(started.body['action']).toBe('form');
      const html = started.body['formHtml'] as string;
      const action = /action="([^"]+)"/.exec(html)![1]!;
      const form = Object.fromEntries([...html.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
      const page = await postForm(action, form);
      expect(page.status).toBe(200);
      const decision = /action="([^"]+)"/.exec(await page.text())![1]!;
      const back = await postForm(decision, { decision: 'approve' });
      const result = await call('POST', '/payment-result', token, { paymentMethodFields: queryOf(back.headers.get('location')!) });
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ status: 'untouched', paymentMethod: 'test-card-form' });
    });

    it('embedded form: only the country at payment, a script snippet, and the customer address arriving with the result', async () => {
      const token = await visitor('checkout-tee/M', 1, 'test-embedded');
      const selection = await call('GET', '/selection', token);
      expect(selection.body['paymentFields']).toEqual([{ field: 'country', required: true, value: '' }]);
      const started = await call('POST', '/payment', token, payment({ address: { country: 'SE' } }));
      expect(started.status).toBe(200);
      expect(started.body['action']).toBe('form');
      const src = JSON.parse(/f\.src=("[^"]+")/.exec(started.body['formHtml'])![1]!) as string;
      expect((await browse(src)).status).toBe(200);
      const customer = {
        email: 'eva@example.com',
        firstName: 'Eva',
        lastName: 'Ek',
        address1: 'Ågatan 3',
        city: 'Lund',
        zipCode: '222 22',
        phoneNumber: '',
      };
      const back = await postForm(`${src}/complete`, { ...customer, decision: 'approve' });
      const fields = queryOf(back.headers.get('location')!);
      expect(Object.keys(fields)).toEqual(['embedded_order_id']);
      const result = await call('POST', '/payment-result', token, { paymentMethodFields: fields });
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ paymentMethod: 'test-embedded', address: { ...customer, country: 'SE', countryName: 'Sweden' } });
    });

    it('invoice: success at once with the order; address-search for the invoice method in its country only', async () => {
      const token = await visitor('checkout-tee/M', 1, 'test-invoice');
      const found = await call('POST', '/address-search', token, { identityNumber: '19800101-1234', paymentMethod: 'test-invoice' });
      expect(found.body).toEqual({
        token,
        address: { firstName: 'Anna', lastName: 'Andersson', address1: 'Storgatan 1', zipCode: '114 51', city: 'Stockholm', country: 'SE' },
      });
      const unknown = await call('POST', '/address-search', token, { identityNumber: '19990101-0000', paymentMethod: 'test-invoice' });
      expect({ status: unknown.status, errors: unknown.body['errors'] }).toEqual({ status: 404, errors: { identityNumber: 'not found' } });
      const card = await call('POST', '/address-search', token, { identityNumber: '19800101-1234', paymentMethod: 'test-card' });
      expect({ status: card.status, errors: card.body['errors'] }).toEqual({
        status: 406,
        errors: { paymentMethod: 'has no address search' },
      });
      const res = await call('POST', '/payment', token, payment());
      expect(res.status).toBe(200);
      expectMatchesSchema('PaymentAction', res.body);
      expect(res.body).toMatchObject({
        token,
        action: 'success',
        status: 'untouched',
        statusDescription: 'Pending',
        paymentMethod: 'test-invoice',
      });
      expect((await call('GET', '/receipt', token)).body['order']).toBe(res.body['order']);
      // In Germany the invoice method is not offered, so neither is its address search.
      const german = (await call('PUT', '/countries/DE', undefined)).body['token'];
      const de = await call('POST', '/address-search', german, { identityNumber: '19800101-1234', paymentMethod: 'test-invoice' });
      expect({ status: de.status, errors: de.body['errors'] }).toEqual({ status: 404, errors: { paymentMethod: 'not found' } });
    });

    it("a logged-in customer's order is first in POST orders, with the fields the success answer had", async () => {
      const anonymous = await visitor('checkout-tee/M', 1, 'test-invoice');
      const email = `saga-history-${Date.now()}@example.com`;
      const registered = await call('POST', '/register', anonymous, { email, password: 'correct horse battery' });
      expect(registered.status).toBe(200);
      const token = registered.body['token'] as string;
      const paid = await call('POST', '/payment', token, payment({ address: address({ email }) }));
      expect(paid.body).toMatchObject({ action: 'success', status: 'untouched' });
      const history = await call('POST', '/orders', token, { from: 0, size: 10 });
      expect(history.status).toBe(200);
      expectMatchesSchema('OrdersEnvelope', history.body);
      const { token: _token, action: _action, ...answered } = paid.body;
      expect(history.body['orders']).toEqual([answered]);
      expect(history.body['ordersPaging']).toEqual({ from: 0, size: 10, totalSize: 1 });
    });

    it('invoice above the credit limit: failed, and the held stock is free again', async () => {
      const token = await visitor('checkout-tee/M', 300, 'test-invoice');
      const res = await call('POST', '/payment', token, payment());
      expect(res.body).toEqual({ token, action: 'failed' });
      expect((await call('GET', '/receipt', token)).status).toBe(404);
    });

    it('410 when the stock is short: the unavailable quantities are listed and removed from the selection', async () => {
      const token = await visitor('checkout-tee/S', 5);
      await call('POST', `/items/${items.get('checkout-tee/M')}`, token, { quantity: 1 });
      const res = await call('POST', '/payment', token, payment());
      expect(res.status).toBe(410);
      expectMatchesSchema('UnavailableEnvelope', res.body);
      expect(res.body['errors']).toEqual({ items: 'unavailable' });
      expect(res.body['unavailable']).toEqual([
        {
          item: items.get('checkout-tee/S'),
          product: itemIdParts(items.get('checkout-tee/S')!).product,
          originalQuantity: 5,
          unavailable: 2,
          available: 3,
        },
      ]);
      const quantities = (res.body['selection'].items as Array<{ item: string; quantity: number }>).map((i) => [i.item, i.quantity]);
      expect(quantities).toEqual([
        [items.get('checkout-tee/S'), 3],
        [items.get('checkout-tee/M'), 1],
      ]);
      expect(await call('GET', '/selection', token).then((r) => r.body['selection'].items.length)).toBe(2);
    });

    it('two visitors and the last item: the second gets 410 while the first pays, and the item once the first declines', async () => {
      const first = await visitor('last-scarf/S');
      const second = await visitor('last-scarf/S');
      const started = await call('POST', '/payment', first, payment());
      expect(started.body['action']).toBe('redirect');
      const blocked = await call('POST', '/payment', second, payment());
      expect(blocked.status).toBe(410);
      expect(blocked.body['unavailable'][0]).toMatchObject({ originalQuantity: 1, unavailable: 1, available: 0 });
      // The second's selection lost the item; the first declines and the scarf is free again.
      const back = await postForm(`${started.body['url']}/decision`, { decision: 'decline' });
      await call('POST', '/payment-result', first, { paymentMethodFields: queryOf(back.headers.get('location')!) });
      await call('POST', `/items/${items.get('last-scarf/S')}`, second);
      expect((await call('POST', '/payment', second, payment())).body['action']).toBe('redirect');
    });

    it('concurrent identical payment results: one order, one stock decrement', async () => {
      const token = await visitor('duplicate-sock/S', 2);
      const fields = queryOf(await payHosted(token, 'approve'));
      const results = await Promise.all(
        Array.from({ length: 50 }, () => call('POST', '/payment-result', token, { paymentMethodFields: fields })),
      );
      const orders = new Set(results.map((r) => `${r.status} ${r.body['order']}`));
      expect(orders.size).toBe(1);
      expect([...orders][0]).toMatch(/^200 \d+$/);
      expect(await availableOf('duplicate-sock/S')).toBe(3);
      if (h.orderEvents) expect(await h.orderEvents(results[0]!.body['order'])).toBe(1);
    }, 120_000);

    it(`${options.race.visitors} concurrent checkouts for a stock of ${options.race.stock}: exactly ${options.race.stock} orders, never below 0`, async () => {
      const tokens = await Promise.all(Array.from({ length: options.race.visitors }, () => visitor('race-cap/S', 1, 'test-invoice')));
      const results = await Promise.all(tokens.map((t) => call('POST', '/payment', t, payment())));
      const statuses = results.map((r) => (r.status === 200 ? r.body['action'] : r.status));
      expect(statuses.filter((s) => s === 'success')).toHaveLength(options.race.stock);
      expect(statuses.filter((s) => s === 410)).toHaveLength(options.race.visitors - options.race.stock);
      expect(new Set(results.filter((r) => r.status === 200).map((r) => r.body['order'])).size).toBe(options.race.stock);
      expect(await availableOf('race-cap/S')).toBe(0);
    }, 300_000);

    it('stockdivisor from SOAP sizes_Update: the checkout counts stock in whole items of that many units (decision 22)', async () => {
      // Pack Socks: 7 units of S and 2 of M, one unit an item while their sizes have no table.
      expect(await availableOf('pack-socks/S')).toBe(7);
      const soap = {
        ...endpoints,
        soap: `${h.url}/ams/system/service/module/soap/api`,
        soapUser: { username: 'demo', password: 'demo-secret', namespace: 'urn:commerce-service:backoffice' },
      };
      const table =
        '<sizetable><id>ST-PACK3</id><description>Packs of three</description><stockdivisor>3</stockdivisor><stockunit>pack</stockunit></sizetable>';
      const answer = await postSoap(
        soap,
        'sizes_Update',
        `<sizes><size><id>PACK-S</id><description>S</description>${table}</size><size><id>PACK-M</id><description>M</description>${table}</size></sizes>`,
      );
      expect(answer.text).toMatch(/>OK</);
      // The catalog applies it from the bus: the product shows the table's unit once it has.
      const until = Date.now() + 60_000;
      let shown = (await call('POST', '/uri', undefined, { uri: 'pack-socks', for: ['product'] })).body['product'];
      while (shown.stockUnit !== 'pack' && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 100));
        shown = (await call('POST', '/uri', undefined, { uri: 'pack-socks', for: ['product'] })).body['product'];
      }
      // 7 units make 2 packs of three; 2 units make none.
      expect(shown).toMatchObject({
        stockUnit: 'pack',
        inStock: true,
        items: [
          { name: 'S', stock: 'yes', inStock: true },
          { name: 'M', stock: 'no', inStock: false },
        ],
      });
      expect(await availableOf('pack-socks/S')).toBe(2);
      // Buying one pack takes three units: one pack is left.
      const token = await visitor('pack-socks/S', 1, 'test-invoice');
      expect((await call('POST', '/payment', token, payment())).body['action']).toBe('success');
      expect(await availableOf('pack-socks/S')).toBe(1);
    }, 120_000);

    // Last: it points the helpers at a second shop whose holds last one second.
    describe('payments made after their hold expired (a hold of one second)', () => {
      let main: PaymentApiHarness;
      beforeAll(async () => {
        main = h;
        await use(await options.shortHold());
      }, 180_000);
      afterAll(async () => {
        const short = h;
        h = main;
        await short?.close();
      });
      const expire = () => new Promise((r) => setTimeout(r, 1500));
      /** What the hosted page shows of a payment: its status once it is no longer started. */
      const pageOf = async (url: string) => (await browse(url)).text();

      it('the stock is still there: the expired hold is taken again and the order placed', async () => {
        const token = await visitor('hook-belt/S', 2);
        const before = await availableOf('hook-belt/S');
        const started = await call('POST', '/payment', token, payment());
        await expire();
        const back = await postForm(`${started.body['url']}/decision`, { decision: 'approve' });
        const result = await call('POST', '/payment-result', token, { paymentMethodFields: queryOf(back.headers.get('location')!) });
        expect(result.status).toBe(200);
        expect(result.body).toMatchObject({ status: 'untouched', items: [{ item: items.get('hook-belt/S'), quantity: 2 }] });
        expect(await availableOf('hook-belt/S')).toBe(before - 2);
      }, 120_000);

      it('the stock was sold meanwhile: no order, the payment voided, 410 with unavailable as POST payment gives; never below 0', async () => {
        const late = await visitor('last-scarf/S');
        const started = await call('POST', '/payment', late, payment());
        expect(started.body['action']).toBe('redirect');
        await expire();
        // Another visitor buys the last scarf (the invoice method decides at once).
        const other = await visitor('last-scarf/S', 1, 'test-invoice');
        expect((await call('POST', '/payment', other, payment())).body).toMatchObject({ action: 'success', status: 'untouched' });
        // The late visitor pays after all.
        const back = await postForm(`${started.body['url']}/decision`, { decision: 'approve' });
        const fields = queryOf(back.headers.get('location')!);
        const results = await Promise.all([1, 2].map(() => call('POST', '/payment-result', late, { paymentMethodFields: fields })));
        for (const res of results) {
          expect({ status: res.status, errors: res.body['errors'] }).toEqual({ status: 410, errors: { items: 'unavailable' } });
          expectMatchesSchema('UnavailableEnvelope', res.body);
          expect(res.body['errors']).toEqual({ items: 'unavailable' });
          expect(res.body['unavailable']).toEqual([
            {
              item: items.get('last-scarf/S'),
              product: itemIdParts(items.get('last-scarf/S')!).product,
              originalQuantity: 1,
              unavailable: 1,
              available: 0,
            },
          ]);
        }
        expect((await call('GET', '/selection', late)).body['selection'].items).toEqual([]);
        expect((await call('GET', '/receipt', late)).status).toBe(404);
        expect(await pageOf(started.body['url'])).toContain('This payment is voided.');
        expect(await availableOf('last-scarf/S')).toBe(0);
      }, 120_000);

      it('the webhook alone, the stock sold meanwhile: no order, the payment voided', async () => {
        const late = await customer('race-cap/S', 1);
        const started = await call('POST', '/payment', late, payment());
        await expire();
        const other = await visitor('race-cap/S', 1, 'test-invoice');
        expect((await call('POST', '/payment', other, payment())).body).toMatchObject({ action: 'success' });
        // Approve notifies the webhook; the visitor never comes back.
        await postForm(`${started.body['url']}/decision`, { decision: 'approve' });
        const until = Date.now() + 60_000;
        while (!(await pageOf(started.body['url'])).includes('voided') && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
        expect(await pageOf(started.body['url'])).toContain('This payment is voided.');
        expect(await ordersOf(late)).toEqual([]);
        expect(await availableOf('race-cap/S')).toBe(0);
      }, 120_000);
    });
  });
}
