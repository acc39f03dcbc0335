import { readFileSync } from 'node:fs';
import { parseDemoCatalog } from '@commerce/catalog-adapters';
import type { AllInOne } from '../../apps/all-in-one/src/all-in-one';
import { startEmbeddedAllInOne } from './embedded-all-in-one';
import { checkoutCall, type Endpoints } from './skeleton.scenario';
import { expectMatchesSchema } from './openapi-validator';

// A storefront's flow on the demo shop (the real catalog, prices in three markets, some products not
// sold in North America), through the public checkout API of the all-in-one on embedded adapters.
describe('a storefront flow on the demo shop', () => {
  let running: AllInOne;
  let endpoints: Endpoints;

  beforeAll(async () => {
    const demo = parseDemoCatalog(JSON.parse(readFileSync('infra/config/demo-catalog.json', 'utf8')));
    ({ running, endpoints } = await startEmbeddedAllInOne('storefront-test', demo));
  }, 120_000);

  afterAll(async () => {
    await running?.close();
  });

  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await checkoutCall(endpoints, method, path, { token, ...(body === undefined ? {} : { body }) });
    expectMatchesSchema(res.status < 400 ? 'SelectionEnvelope' : 'ErrorEnvelope', res.body);
    return res;
  };
  type Product = {
    product: string;
    showAsOnSale: boolean;
    priceAsNumber: number;
    priceBeforeDiscountAsNumber: number;
    items: Array<{ item: string; stock: string }>;
  };
  const inStockItem = (p: Product) => p.items.find((i) => i.stock === 'yes')?.item;

  it('adds, changes, ships, discounts and moves a selection to another market', async () => {
    const start = await checkoutCall(endpoints, 'GET', '/selection');
    const token: string = start.body['token'];
    const list = async () =>
      (await checkoutCall(endpoints, 'POST', '/products', { token, body: { limit: 1000 } })).body['products'] as Product[];

    const sweden = await list();
    const onSale = sweden.find((p) => p.showAsOnSale && inStockItem(p))!;
    expect(onSale).toBeDefined();
    await call('PUT', '/countries/US', token);
    const us = new Set((await list()).map((p) => p.product));
    const notInUs = sweden.find((p) => !us.has(p.product) && inStockItem(p) && p !== onSale)!;
    expect(notInUs).toBeDefined();
    await call('PUT', '/countries/SE', token);

    const saleItem = inStockItem(onSale)!;
    const added = await call('POST', `/items/${saleItem}`, token);
    expect(added.status).toBe(200);
    expect(added.body['selection'].currency).toBe('SEK');
    expect(added.body['selection'].items[0]).toMatchObject({
      item: saleItem,
      priceEachAsNumber: onSale.priceAsNumber,
      priceEachBeforeDiscountAsNumber: onSale.priceBeforeDiscountAsNumber,
      anyDiscount: true,
    });
    expect(added.body['products'].map((p: Product) => p.product)).toEqual([onSale.product]);

    const second = await call('POST', `/items/${inStockItem(notInUs)}/quantity/2`, token);
    const line = second.body['selection'].items[1].line;
    expect((await call('PUT', `/lines/${line}/quantity/3`, token)).body['selection'].totals.totalQuantity).toBe(4);
    await call('PUT', '/shipping-methods/express', token);
    await call('PUT', '/payment-methods/test-card', token);
    const discounted = await call('POST', '/vouchers', token, { voucher: 'WELCOME10' });
    const totals = discounted.body['selection'].totals;
    expect(totals.totalDiscountPriceAsNumber).toBeCloseTo(totals.itemsTotalPriceAsNumber / 10, 2);
    expect(totals.grandTotalPriceAsNumber).toBeCloseTo(
      totals.itemsTotalPriceAsNumber - totals.totalDiscountPriceAsNumber + totals.shippingPriceAsNumber,
      2,
    );

    const moved = await call('PUT', '/countries/US/states/CA', token);
    expect(moved.body['removedItems']).toEqual([expect.objectContaining({ item: inStockItem(notInUs), quantity: 3 })]);
    expect(moved.body['selection']).toMatchObject({ currency: 'USD', vatExempt: true, items: [{ item: saleItem }] });
    expect(moved.body['selection'].totals).toMatchObject({ taxPercent: 7.25, taxAdded: expect.stringMatching(/^\$/) });
    expect(moved.body['location']).toMatchObject({ country: 'US', state: 'CA', stateName: 'California' });

    const back = await call('GET', '/selection', token);
    expect(back.body['selection'].items).toHaveLength(1);
    const gone = await call('DELETE', `/lines/${back.body['selection'].items[0].line}`, token);
    expect(gone.body['selection'].items).toEqual([]);
    expect(gone.body['products']).toEqual([]);
    // Some twenty calls: about 5 s on a loaded two-core machine, past jest's default timeout.
  }, 60_000);
});
