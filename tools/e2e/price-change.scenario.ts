import { checkoutCall, postSoap, searchUntilFound, skeletonProductXml, uniqueWord, type Endpoints } from './skeleton.scenario';

const OK = /<pricelistsUpdateResponse(\s[^>]*)?>OK<\/pricelistsUpdateResponse>/;

/** The demo store's standard delivery in SEK and EUR (infra/config/demo-store.json), free from 1000 SEK and 100 EUR. */
const SHIPPING = { SEK: 49, EUR: 5.95 };
/** The demo store's VAT of Sweden and Germany, included in their prices. */
const VAT = { SE: 25, DE: 19 };

/** The spec's Totals of a selection of `quantity` × `unit` shipped by standard delivery, VAT included (EU). */
function totalsOf(unit: number, quantity: number, currency: 'SEK' | 'EUR', vat: number) {
  const cents = (major: number) => Math.round(major * 100);
  const items = cents(unit) * quantity;
  const grand = items + cents(SHIPPING[currency]);
  return {
    itemsTotalPriceAsNumber: items / 100,
    shippingPriceAsNumber: SHIPPING[currency],
    grandTotalPriceAsNumber: grand / 100,
    grandTotalPriceTaxAsNumber: (grand - Math.round((grand * 100) / (100 + vat))) / 100,
    totalQuantity: quantity,
  };
}

/**
 * When a price change reaches a selection (docs/pricing.md), through the public interfaces only: a SOAP
 * `pricelists_Update` raises an item's price; a selection that holds it keeps the price of its add (its totals
 * too) through a quantity change and a login in the same market, and takes the new price when the item is added
 * again, or when the selection moves to another market and back. Run on the all-in-one (embedded engines) and on
 * the separate processes (real engines).
 */
export async function runPriceChangeScenario(endpoints: Endpoints): Promise<void> {
  const word = uniqueWord();
  const productId = `ext-${word}`;
  const pricelists = (sek: string) =>
    `<pricelists>` +
    `<pricelist><id>1</id><currency>SEK</currency><items><product><id>${productId}</id><price>${sek}</price></product></items></pricelist>` +
    `<pricelist><id>2</id><currency>EUR</currency><items><product><id>${productId}</id><price>10.00</price></product></items></pricelist>` +
    `</pricelists>`;
  expect((await postSoap(endpoints, 'pricelists_Update', pricelists('100.00'))).text).toMatch(OK);
  expect((await postSoap(endpoints, 'products_Update', skeletonProductXml(productId, `Reprice ${word} Shirt`, 50))).status).toBe(200);
  const found = await searchUntilFound(endpoints, word);
  const item: string = found.body['products'][0].items[0].item;

  // Three Swedish visitors add two each at 100 SEK.
  const add = async (token?: string, quantity = 2) => {
    const res = await checkoutCall(endpoints, 'POST', `/items/${item}`, { ...(token ? { token } : {}), body: { quantity } });
    expect(res.status).toBe(200);
    return res.body;
  };
  const [keeper, readder, traveller] = [await add(), await add(), await add()];
  for (const body of [keeper, readder, traveller]) {
    expect(body['selection'].items).toEqual([expect.objectContaining({ item, quantity: 2, priceEachAsNumber: 100 })]);
    expect(body['selection'].totals).toMatchObject(totalsOf(100, 2, 'SEK', VAT.SE));
  }

  // The ERP raises the price. The envelope's products show it once the catalog has applied the batch and the edge
  // has read the product again (its copy is at most two seconds old, decision 31); the line keeps the price of its
  // add, and so do the totals.
  expect((await postSoap(endpoints, 'pricelists_Update', pricelists('120.00'))).text).toMatch(OK);
  const until = Date.now() + 20_000;
  let kept = await checkoutCall(endpoints, 'GET', '/selection', { token: keeper['token'] });
  while (kept.body['products']?.[0]?.priceAsNumber !== 120 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    kept = await checkoutCall(endpoints, 'GET', '/selection', { token: keeper['token'] });
  }
  expect(kept.body['products']).toEqual([expect.objectContaining({ priceAsNumber: 120 })]);
  expect(kept.body['selection'].items).toEqual([expect.objectContaining({ item, priceEachAsNumber: 100 })]);
  expect(kept.body['selection'].totals).toMatchObject(totalsOf(100, 2, 'SEK', VAT.SE));
  // A quantity change keeps it too.
  const line: string = kept.body['selection'].items[0].line;
  const more = await checkoutCall(endpoints, 'POST', `/lines/${line}/quantity/1`, { token: keeper['token'] });
  expect(more.body['selection'].totals).toMatchObject(totalsOf(100, 3, 'SEK', VAT.SE));
  // A login in the same market keeps it as well.
  const email = `reprice-${word}@example.com`;
  const registered = await checkoutCall(endpoints, 'POST', '/register', {
    token: keeper['token'],
    body: { email, password: 'correct horse battery' },
  });
  expect(registered.status).toBe(200);
  expect(registered.body['selection'].items).toEqual([expect.objectContaining({ item, quantity: 3, priceEachAsNumber: 100 })]);
  expect(registered.body['selection'].totals).toMatchObject(totalsOf(100, 3, 'SEK', VAT.SE));

  // Adding the item again takes the catalog's price of the moment onto the whole line.
  const readded = await add(readder['token'], 1);
  expect(readded['selection'].items).toEqual([expect.objectContaining({ item, quantity: 3, priceEachAsNumber: 120 })]);
  expect(readded['selection'].totals).toMatchObject(totalsOf(120, 3, 'SEK', VAT.SE));

  // Another market reprices in its pricelist and currency; back in Sweden, the new Swedish price.
  const germany = await checkoutCall(endpoints, 'PUT', '/countries/DE', { token: traveller['token'] });
  expect(germany.body['selection']).toMatchObject({ currency: 'EUR' });
  expect(germany.body['selection'].items).toEqual([expect.objectContaining({ item, priceEachAsNumber: 10 })]);
  expect(germany.body['selection'].totals).toMatchObject(totalsOf(10, 2, 'EUR', VAT.DE));
  const sweden = await checkoutCall(endpoints, 'PUT', '/countries/SE', { token: traveller['token'] });
  expect(sweden.body['selection']).toMatchObject({ currency: 'SEK' });
  expect(sweden.body['selection'].items).toEqual([expect.objectContaining({ item, priceEachAsNumber: 120 })]);
  expect(sweden.body['selection'].totals).toMatchObject(totalsOf(120, 2, 'SEK', VAT.SE));
}
