import * as soap from 'soap';
import type { OrderDto } from '@commerce/order-contracts';
import type { AllInOne } from '../../apps/all-in-one/src/all-in-one';
import { placeOrderCommand } from '../../libs/order/adapters/src/testing/place-order.fixture';
import { checkoutCall, postSoap, type Endpoints } from './skeleton.scenario';
import { newEmail } from './login-api.contract';
import { expectMatchesSchema } from './openapi-validator';
import { startEmbeddedAllInOne } from './embedded-all-in-one';

// Order history through the public checkout API and the back office through SOAP, on the all-in-one's
// embedded adapters. Orders are placed through the order service's client, as the checkout saga does.
describe('order history and the back office on the all-in-one', () => {
  let running: AllInOne;
  let endpoints: Endpoints;
  const PASSWORD = 'correct horse battery';

  beforeAll(async () => {
    // A cheap argon2 cost: the production one is the account service's own test.
    ({ running, endpoints } = await startEmbeddedAllInOne('order-history-test', [], { ARGON2_MEMORY_KIB: '1024', ARGON2_ITERATIONS: '1' }));
  }, 120_000);
  afterAll(async () => {
    await running?.close();
  });

  const orders = async (token: string, body?: unknown) => {
    const res = await checkoutCall(endpoints, 'POST', '/orders', { token, ...(body === undefined ? {} : { body }) });
    expectMatchesSchema(res.status < 400 ? 'OrdersEnvelope' : 'ErrorEnvelope', res.body);
    return res;
  };
  const customer = async () => {
    const email = newEmail();
    const registered = await checkoutCall(endpoints, 'POST', '/register', { body: { email, password: PASSWORD, firstName: 'Ada' } });
    expect(registered.status).toBe(200);
    const found = await running.clients.account.verifyLogin(email, PASSWORD);
    return { email, token: registered.body['token'] as string, id: found!.id };
  };
  /** Waits for what the bus delivers (the back office's upserts, the feed): at most 20 s. */
  const eventually = async <T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> => {
    const until = Date.now() + 20_000;
    for (;;) {
      const value = await read();
      if (done(value) || Date.now() > until) return value;
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  let ada: Awaited<ReturnType<typeof customer>>;
  const placed: OrderDto[] = [];
  const placedForOthers: OrderDto[] = [];

  it('answers 403 {accessRight: denied} with the token when nobody is logged in', async () => {
    const anonymous = await checkoutCall(endpoints, 'GET', '/selection');
    const res = await orders(anonymous.body['token']);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ token: anonymous.body['token'], errors: { accessRight: 'denied' } });
  });

  it("lists only the logged-in customer's orders, newest first, with every field of the spec's tables", async () => {
    ada = await customer();
    const other = await customer();
    placedForOthers.push(await running.clients.orders.placeOrder(placeOrderCommand({ customerId: other.id })));
    for (let i = 0; i < 3; i++) placed.push(await running.clients.orders.placeOrder(placeOrderCommand({ customerId: ada.id })));

    const res = await orders(ada.token);
    expect(res.status).toBe(200);
    expect(res.body['orders'].map((o: { order: string }) => o.order)).toEqual(placed.map((o) => o.order).reverse());
    expect(res.body['ordersPaging']).toEqual({ from: 0, size: 3, totalSize: 3 });
    expect(res.body['loggedIn']).toMatchObject({ email: ada.email, firstName: 'Ada' });
    expect(res.body['location']).toMatchObject({ country: 'SE' });
    const newest = res.body['orders'][0];
    expect(newest).toMatchObject({
      status: 'untouched',
      statusDescription: 'Pending',
      paymentMethod: 'test-card',
      paymentMethodName: 'Card',
      shippingMethod: 'postnord',
      shippingMethodName: 'PostNord',
      currency: 'SEK',
      vatExempt: false,
      giftMessage: null,
      shipments: [],
      currencyFormat: { currency: 'SEK', prefix: '', suffix: ' SEK', decimalPoint: '.', decimalDigits: '2' },
      discounts: {
        anyDiscount: true,
        discount: '25.00 SEK',
        discountAsNumber: 25,
        vouchers: [{ voucher: 'SAVE10', name: '10 % off', type: 'percent', discount: '25.00 SEK', discountAsNumber: 25 }],
      },
      totals: {
        itemsTotalPrice: '250.00 SEK',
        itemsTotalPriceAsNumber: 250,
        totalDiscountPrice: '25.00 SEK',
        shippingPrice: '49.00 SEK',
        handlingCostPrice: false,
        handlingCostPriceAsNumber: false,
        taxDeducted: false,
        taxAdded: false,
        grandTotalPrice: '274.00 SEK',
        grandTotalPriceAsNumber: 274,
        grandTotalPriceTax: '54.80 SEK',
        totalQuantity: 3,
        taxPercent: 25,
      },
      address: { firstName: 'Ada', countryName: 'Sweden', zipCode: '211 34', company: '' },
    });
    expect(newest.date).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(newest.items[0]).toEqual({
      item: '1-1',
      product: '1',
      brandName: 'Acme',
      productName: 'Sweater',
      size: 'M',
      sku: 'SKU-1-1',
      ean: '7350000000011',
      quantity: 2,
      storePickup: false,
      line: 'l1',
      priceEach: '100.00 SEK',
      priceEachAsNumber: 100,
      totalPrice: '200.00 SEK',
      totalPriceAsNumber: 200,
      priceEachBeforeDiscount: '120.00 SEK',
      priceEachBeforeDiscountAsNumber: 120,
      priceEachWithoutTax: '80.00 SEK',
      priceEachWithoutTaxAsNumber: 80,
      anyDiscount: true,
      taxPercent: 25,
    });
    expect(newest.items[1]).toMatchObject({ item: '2-3', anyDiscount: false });
  }, 60_000);

  it('pages with from and size, and names a bad paging field', async () => {
    const page = await orders(ada.token, { from: 1, size: 1 });
    expect(page.body['orders'].map((o: { order: string }) => o.order)).toEqual([placed[1]!.order]);
    expect(page.body['ordersPaging']).toEqual({ from: 1, size: 1, totalSize: 3 });
    const rest = await orders(ada.token, { from: 2 });
    expect(rest.body['orders'].map((o: { order: string }) => o.order)).toEqual([placed[0]!.order]);
    expect(rest.body['ordersPaging']).toEqual({ from: 2, size: 1, totalSize: 3 });
    const bad = await orders(ada.token, { from: -1, size: 'ten' });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body['errors']).sort()).toEqual(['from', 'size']);
  });

  it('shows the status, shipments and tracking the back office reports with orders_Update', async () => {
    const newest = placed[2]!;
    const update = await postSoap(
      endpoints,
      'orders_Update',
      `<orders><order><id>${newest.order}</id><ordernumber>${newest.order}</ordernumber><status>confirmed</status>
        <shipments><shipment><id>S1</id><shipped>2026-11-20T12:00:00Z</shipped>
          <carrierinformation><carrier>PostNord</carrier><service>MyPack Home</service><tracking>00370712345</tracking></carrierinformation>
        </shipment></shipments>
        <cancelled><product><id>l2</id><qty>1</qty></product></cancelled>
      </order></orders>`,
    );
    expect(update.text).toMatch(/<ordersUpdateResponse(\s[^>]*)?>OK<\/ordersUpdateResponse>/);
    const res = await eventually(
      () => orders(ada.token, { from: 0, size: 1 }),
      (r) => r.body['orders'][0].shipments.length > 0,
    );
    expect(res.body['orders'][0]).toMatchObject({
      order: newest.order,
      status: 'confirmed',
      statusDescription: 'Confirmed',
      shipments: [
        {
          shippedDate: '2026-11-20 12:00:00',
          carrier: 'PostNord',
          service: 'MyPack Home',
          trackingId: '00370712345',
          trackingUrl: 'https://tracking.postnord.com/se/?id=00370712345',
        },
      ],
    });
    expect((await running.clients.orders.getOrder(newest.id))!.cancelled).toEqual([{ item: '2-3', sku: 'SKU-2-3', quantity: 1 }]);
  }, 60_000);

  it('refuses an orders_Update with a status the order service does not know, naming it, and changes nothing', async () => {
    const res = await postSoap(endpoints, 'orders_Update', `<orders><order><id>${placed[0]!.order}</id><status>teleported</status></order></orders>`);
    expect(res.status).toBe(500);
    expect(res.text).toContain('status must be one of untouched');
    expect((await running.clients.orders.getOrder(placed[0]!.id))!.status).toBe('untouched');
  });

  it('lists placed orders as order events in events_Get, in their SOAP shape, without echoing the ERP’s own change', async () => {
    type Client = soap.Client & Record<string, (args: unknown) => Promise<[any, string]>>;
    const client = (await soap.createClientAsync(`${endpoints.soap}?wsdl`)) as Client;
    const login = { username: 'demo', password: 'demo-secret' };
    const list = async () => {
      const events = (await client['events_GetAsync']!({ login, type: 'order' }))[0]?.events?.event;
      return (events === undefined ? [] : Array.isArray(events) ? events : [events]) as Array<Record<string, any>>;
    };
    const events = await eventually(list, (e) => e.length >= 4);
    // Four placings (one of another customer's); the ERP's own orders_Update is not echoed.
    expect(events.map((e) => e.entry).sort()).toEqual([...placed, ...placedForOthers].map((o) => o.order).sort());
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(['order']));
    const first = events.find((e) => e.entry === placed[0]!.order)!;
    expect(first.mission).toBe('update');
    expect(first.data.order).toMatchObject({
      id: placed[0]!.order,
      ordernumber: placed[0]!.order,
      status: 'untouched',
      ordertotal: '274.00',
      currency: 'SEK',
      buyer: { id: ada.id, email: 'ada@example.com' },
      market: { id: '1' },
      shippingaddress: { zipcode: '211 34', country: 'SE' },
    });
    const lines = first.data.order.products.product;
    expect((Array.isArray(lines) ? lines : [lines]).map((l: { id: string }) => l.id)).toEqual(['l1', 'l2']);
    // A line's size id is the item's (the line's `size` is the size's name, decision 112).
    const sizeIds = (Array.isArray(lines) ? lines : [lines]).map((l: any) => [l.sizes.size].flat()[0].id);
    expect(sizeIds).toEqual(['1', '3']);
  }, 60_000);
});
