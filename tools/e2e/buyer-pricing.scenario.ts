import { checkoutCall, postSoap, searchUntilFound, uniqueWord, type Endpoints } from './skeleton.scenario';

/** `markets_Update` answers `<marketsUpdateResponse>OK</marketsUpdateResponse>`. */
const OK = (operation: string) => {
  const name = operation.replace('_Update', 'Update');
  return new RegExp(`<${name}Response(\\s[^>]*)?>OK</${name}Response>`);
};

/**
 * A B2B buyer shops in its own market and pricelist (decision 46), through the public interfaces only: SOAP
 * `markets_Update`, `pricelists_Update`, `products_Update` and `accounts_Update` make a product with a variant
 * shown in every market and one shown only in the buyer's market, priced in the Swedish pricelist (SEK) and in
 * the buyer's own (EUR); the buyer logs in on a Swedish visitor's token and sees its prices, currency and
 * variant; `PUT countries` keeps them; logout gives the country's back. Run on the all-in-one (embedded) and
 * on the separate processes (real engines).
 */
export async function runBuyerPricingScenario(endpoints: Endpoints): Promise<void> {
  const word = uniqueWord();
  const market = `M-${word}`;
  const pricelist = `PL-${word}`;
  const productId = `ext-${word}`;
  const email = `buyer-${word}@example.com`;
  const password = 'erp given secret';
  const soap = async (operation: string, xml: string) => expect((await postSoap(endpoints, operation, xml)).text).toMatch(OK(operation));

  await soap('markets_Update', `<markets><market><id>${market}</id><description>B2B ${word}</description></market></markets>`);
  await soap(
    'pricelists_Update',
    `<pricelists>` +
      `<pricelist><id>1</id><currency>SEK</currency><items><product><id>${productId}</id><price>199.00</price></product></items></pricelist>` +
      `<pricelist><id>${pricelist}</id><currency>EUR</currency><items><product><id>${productId}</id><price>80.00</price></product></items></pricelist>` +
      `</pricelists>`,
  );
  const variation = (id: string, colour: string, markets: string[]) =>
    `<variation><id>${id}</id><description>${colour}</description><sku>SK-${id}</sku>` +
    `<sizes><size><id>${id}-s1</id><qty>7</qty><description>M</description><sku>SK-${id}-M</sku></size></sizes>` +
    `<displays><display><markets>${markets.map((m) => `<market><id>${m}</id></market>`).join('')}</markets></display></displays>` +
    `</variation>`;
  await soap(
    'products_Update',
    `<products><product><id>${productId}</id><status>active</status><sku>SK-${productId}</sku><description>Buyer ${word} Coat</description>` +
      `<variations>${variation(`${productId}-v1`, 'Black', ['1', market])}${variation(`${productId}-v2`, 'Navy', [market])}</variations>` +
      `</product></products>`,
  );
  await soap(
    'accounts_Update',
    `<accounts><account><id>A-${word}</id><market><id>${market}</id></market><pricelist><id>${pricelist}</id></pricelist>` +
      `<buyers><buyer><id>B-${word}</id><firstname>Bea</firstname><email>${email}</email><password>${password}</password></buyer></buyers>` +
      `</account></accounts>`,
  );

  // A Swedish visitor: the variant shown in every market, in SEK; the buyer's variant is invisible.
  const visitor = await searchUntilFound(endpoints, word);
  expect(visitor.body['products']).toEqual([expect.objectContaining({ variantName: 'Black', priceAsNumber: 199 })]);
  const black: string = visitor.body['products'][0].items[0].item;
  const added = await checkoutCall(endpoints, 'POST', `/items/${black}`, { token: visitor.body['token'] });
  expect(added.body['selection']).toMatchObject({
    currency: 'SEK',
    items: [expect.objectContaining({ item: black, priceEachAsNumber: 199 })],
  });

  // The buyer logs in on that token (the account service applies accounts_Update asynchronously): EUR, its pricelist's price.
  const logIn = (token?: string) =>
    checkoutCall(endpoints, 'POST', `/login/${encodeURIComponent(email)}`, { ...(token ? { token } : {}), body: { password } });
  const until = Date.now() + 20_000;
  let login = await logIn(added.body['token']);
  // Once a second: every refused try counts against this address's limit.
  while (login.status !== 200 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 1000));
    login = await logIn(login.body['token']);
  }
  expect(login.status).toBe(200);
  expect(login.body['loggedIn']).toMatchObject({ email, firstName: 'Bea' });
  const token: string = login.body['token'];
  const inEuro = (body: Record<string, any>) => {
    expect(body['selection'].currency).toBe('EUR');
    expect(body['selection'].currencyFormat).toMatchObject({ currency: 'EUR' });
    expect(body['selection'].items).toEqual([expect.objectContaining({ item: black, priceEachAsNumber: 80 })]);
    expect(body['selection'].totals.itemsTotalPriceAsNumber).toBe(80);
  };
  // The anonymous line, merged into the buyer's saved selection, is repriced in the buyer's pricelist.
  inEuro(login.body);
  inEuro((await checkoutCall(endpoints, 'GET', '/selection', { token })).body);

  // POST products: both variants, in the buyer's pricelist.
  const asBuyer = await checkoutCall(endpoints, 'POST', '/products', { token, body: { search: word } });
  expect(asBuyer.body['products'].map((p: { variantName: string }) => p.variantName).sort()).toEqual(['Black', 'Navy']);
  for (const p of asBuyer.body['products']) expect(p).toMatchObject({ priceAsNumber: 80 });
  const navy: string = asBuyer.body['products'].find((p: { variantName: string }) => p.variantName === 'Navy').items[0].item;
  const withNavy = await checkoutCall(endpoints, 'POST', `/items/${navy}`, { token });
  expect(withNavy.status).toBe(200);
  expect(withNavy.body['selection'].items).toEqual([
    expect.objectContaining({ item: black, priceEachAsNumber: 80 }),
    expect.objectContaining({ item: navy, priceEachAsNumber: 80 }),
  ]);

  // Another country: the buyer's pricelist stays (shipping and tax follow the country); nothing is removed.
  const denmark = await checkoutCall(endpoints, 'PUT', '/countries/DK', { token });
  expect(denmark.status).toBe(200);
  expect(denmark.body['location'].country).toBe('DK');
  expect(denmark.body['removedItems']).toBeUndefined();
  expect(denmark.body['selection']).toMatchObject({ currency: 'EUR' });
  expect(denmark.body['selection'].items.map((i: { priceEachAsNumber: number }) => i.priceEachAsNumber)).toEqual([80, 80]);
  await checkoutCall(endpoints, 'PUT', '/countries/SE', { token });

  // Logout: the country's market again.
  const out = await checkoutCall(endpoints, 'POST', '/logout', { token });
  expect(out.body['loggedIn']).toBeUndefined();
  expect(out.body['selection']).toMatchObject({ currency: 'SEK', items: [] });
  const after = await checkoutCall(endpoints, 'POST', '/products', { token: out.body['token'], body: { search: word } });
  expect(after.body['products']).toEqual([expect.objectContaining({ variantName: 'Black', priceAsNumber: 199 })]);
}
