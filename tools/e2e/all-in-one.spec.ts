import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as soap from 'soap';
import { checkoutCall, postSoap, runBadInputScenario, runSkeletonScenario, type Endpoints } from './skeleton.scenario';
import { parseDemoCatalog } from '@commerce/catalog-adapters';
import type { AllInOne } from '../../apps/all-in-one/src/all-in-one';
import { AllInOneConfigSchema } from '../../apps/all-in-one/src/config';
import { startEmbeddedAllInOne } from './embedded-all-in-one';
import { runLoginScenario } from './login-api.contract';
import { runOneTokenScenario } from './one-token.scenario';
import { runBuyerPricingScenario } from './buyer-pricing.scenario';
import { runPriceChangeScenario } from './price-change.scenario';

// The walking skeleton on the embedded adapters (PGlite in memory, in-memory bus and sessions,
// embedded search), through the public HTTP and SOAP interfaces of the all-in-one.
describe('all-in-one on embedded adapters', () => {
  let running: AllInOne;
  let endpoints: Endpoints;

  beforeAll(async () => {
    ({ running, endpoints } = await startEmbeddedAllInOne('all-in-one-test'));
  }, 60_000);

  afterAll(async () => {
    await running?.close();
  });

  it('takes a SOAP product through the catalog and search into a selection', async () => {
    const result = await runSkeletonScenario(endpoints);
    expect(result.searchVisibleAfterMs).toBeLessThan(15_000);
    // The scenario waits up to 15 s for search; jest's default 5 s ended it first on a loaded machine.
  }, 30_000);

  it('registers, logs out and logs in a customer with the production argon2id cost', async () => {
    await runLoginScenario(endpoints.checkout);
  }, 60_000);

  it('carries a storefront client that reads its token once through add, register, logout, login, profile changes and order history', async () => {
    await runOneTokenScenario(endpoints);
  }, 90_000);

  it('logs in a buyer of accounts_Update with the password the ERP gave; a registration reaches events_Get as a customer', async () => {
    const buyer = `buyer-${process.pid}-${Date.now()}@example.com`;
    const account = `A-${process.pid}-${Date.now()}`;
    const sent = await postSoap(
      endpoints,
      'accounts_Update',
      `<accounts><account><id>${account}</id><market><id>1</id></market><buyers><buyer><id>${account}-1</id>` +
        `<firstname>Bea</firstname><email>${buyer}</email><password>erp given secret</password></buyer></buyers></account></accounts>`,
    );
    expect(sent.status).toBe(200);
    // Applied asynchronously (backoffice.upsert.v1): the login works once the account service has it.
    const until = Date.now() + 20_000;
    let login = await checkoutCall(endpoints, 'POST', `/login/${encodeURIComponent(buyer)}`, { body: { password: 'erp given secret' } });
    // Once a second: every refused try counts against this address's limit (50 in 15 minutes).
    while (login.status !== 200 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 1000));
      login = await checkoutCall(endpoints, 'POST', `/login/${encodeURIComponent(buyer)}`, { body: { password: 'erp given secret' } });
    }
    expect(login.status).toBe(200);
    expect(login.body['loggedIn']).toMatchObject({ email: buyer, firstName: 'Bea' });

    const shopper = `shopper-${process.pid}-${Date.now()}@example.com`;
    const registered = await checkoutCall(endpoints, 'POST', '/register', {
      body: { email: shopper, password: 'correct horse battery', firstName: 'Sam', zipCode: '111 51' },
    });
    expect(registered.status).toBe(200);
    type Client = soap.Client & Record<string, (args: unknown) => Promise<[any, string]>>;
    const client = (await soap.createClientAsync(`${endpoints.soap}?wsdl`)) as Client;
    const customers = async () => {
      const events = (await client['events_GetAsync']!({ login: { username: 'demo', password: 'demo-secret' }, type: 'customer' }))[0]
        ?.events?.event;
      return (events === undefined ? [] : Array.isArray(events) ? events : [events]) as Array<Record<string, any>>;
    };
    let event: Record<string, any> | undefined;
    while (!event && Date.now() < until + 20_000) {
      event = (await customers()).find((e) => e.data?.customer?.email === shopper);
      if (!event) await new Promise((r) => setTimeout(r, 200));
    }
    expect(event).toMatchObject({
      type: 'customer',
      mission: 'update',
      data: { customer: { firstname: 'Sam', zipcode: '111 51', email: shopper } },
    });
  }, 90_000);

  it("prices a logged-in buyer in the buyer's market and pricelist; PUT countries keeps them, logout drops them", async () => {
    await runBuyerPricingScenario(endpoints);
  }, 90_000);

  it("keeps a line's price through a SOAP price change until its item is added again or the selection changes market", async () => {
    await runPriceChangeScenario(endpoints);
  }, 60_000);

  it('answers bad input with the error envelope and writes nothing', async () => {
    await runBadInputScenario(endpoints);
  });

  it('answers a SOAP body over 10 MB with a SOAP Fault, not the JSON error of the checkout API', async () => {
    const huge = `<products>${'<product><id>x</id></product>'.repeat(400_000)}</products>`;
    const res = await postSoap(endpoints, 'products_Update', huge);
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toMatch(/^text\/xml/);
    expect(res.text).toContain('<faultcode>');
  });

  it('serves its OpenAPI document and health endpoints', async () => {
    const doc = (await (await fetch(`${endpoints.checkout}/openapi.json`)).json()) as { openapi: string; paths: object };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/selection', '/items/{item}', '/products']));
    expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${running.url}/readyz`);
    expect(ready.status).toBe(200);
  });

  it("serves the checkout edge's checkout_wait_seconds on its /metrics once a request waited", async () => {
    expect((await fetch(`${endpoints.checkout}/selection`)).status).toBe(200);
    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    expect(metrics).toMatch(/^checkout_wait_seconds_count\{[^}]*stage="[a-z_]+"[^}]*\} [1-9]/m);
  });

  it('allows no other origin unless CORS_ORIGINS names it: no CORS headers, the preflight answered as before', async () => {
    const origin = { Origin: 'https://shop.test' };
    const preflight = await fetch(`${endpoints.checkout}/items/1-1`, {
      method: 'OPTIONS',
      headers: { ...origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'api-token' },
    });
    expect(preflight.status).toBe(200);
    const answer = await fetch(`${endpoints.checkout}/selection`, { headers: origin });
    for (const res of [preflight, answer]) expect([...res.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });
});

describe('all-in-one with CORS_ORIGINS', () => {
  let running: AllInOne;
  let endpoints: Endpoints;
  beforeAll(async () => {
    ({ running, endpoints } = await startEmbeddedAllInOne('cors-test', [], { CORS_ORIGINS: 'https://shop.test, https://www.shop.test' }));
  }, 120_000);
  afterAll(() => running?.close());

  it('answers a preflight of a listed origin and names it on the answers', async () => {
    const preflight = await fetch(`${endpoints.checkout}/items/1-1`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://www.shop.test',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'api-token, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://www.shop.test');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('API-Token, Content-Type');
    const answer = await fetch(`${endpoints.checkout}/selection`, { headers: { Origin: 'https://shop.test' } });
    expect(answer.headers.get('access-control-allow-origin')).toBe('https://shop.test');
  });

  it('refuses a CORS_ORIGINS entry that is not an origin', () => {
    expect(() => AllInOneConfigSchema.parse({ STORE_CONFIG: 'x', CORS_ORIGINS: 'https://shop.test/path' })).toThrow(/must be origins/);
  });
});

describe('all-in-one with SESSION_ROTATE_ON_LOGIN=true and SESSION_NEW_PER_ADDRESS=3', () => {
  let running: AllInOne;
  let endpoints: Endpoints;
  beforeAll(async () => {
    ({ running, endpoints } = await startEmbeddedAllInOne('rotate-test', [], {
      SESSION_ROTATE_ON_LOGIN: 'true',
      SESSION_NEW_PER_ADDRESS: '3',
      LOGIN_TRUST_PROXY: 'true',
    }));
  }, 120_000);
  afterAll(() => running?.close());

  it('answers register and logout with a new token each; the token before carries no login', async () => {
    const visitor = await checkoutCall(endpoints, 'GET', '/selection');
    const email = `rotate-${process.pid}-${Date.now()}@example.com`;
    const body = { email, password: 'correct horse battery' };
    const registered = await checkoutCall(endpoints, 'POST', '/register', { token: visitor.body['token'], body });
    expect(registered.status).toBe(200);
    expect(registered.body['token']).not.toBe(visitor.body['token']);
    expect(registered.body['loggedIn']).toMatchObject({ email });
    expect((await checkoutCall(endpoints, 'GET', '/selection', { token: visitor.body['token'] })).body['loggedIn']).toBeUndefined();
    const out = await checkoutCall(endpoints, 'POST', '/logout', { token: registered.body['token'] });
    expect(out.body['token']).not.toBe(registered.body['token']);
    expect((await checkoutCall(endpoints, 'GET', '/selection', { token: registered.body['token'] })).body['loggedIn']).toBeUndefined();
  }, 60_000);

  it('stores 3 new sessions of a client address, then answers 429 with Retry-After; reads go on', async () => {
    const from = { 'x-forwarded-for': '192.0.2.77' };
    for (let i = 0; i < 3; i++) expect((await checkoutCall(endpoints, 'PUT', '/countries/DE', { headers: from })).status).toBe(200);
    const refused = await checkoutCall(endpoints, 'PUT', '/countries/DE', { headers: from });
    expect([refused.status, refused.body['errors']]).toEqual([
      429,
      { session: 'too many new sessions from this address, try again later' },
    ]);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await checkoutCall(endpoints, 'GET', '/categories', { headers: from })).status).toBe(200);
    expect((await checkoutCall(endpoints, 'PUT', '/countries/DE', { headers: { 'x-forwarded-for': '192.0.2.78' } })).status).toBe(200);
  });

  it('is off unless set, and refuses a value that is not a flag; 600 new sessions an address a minute unless set', () => {
    const config = AllInOneConfigSchema.parse({ STORE_CONFIG: 'x' });
    expect([config.SESSION_ROTATE_ON_LOGIN, config.SESSION_NEW_PER_ADDRESS, config.SESSION_NEW_WINDOW_SECONDS]).toEqual([false, 600, 60]);
    expect(() => AllInOneConfigSchema.parse({ STORE_CONFIG: 'x', SESSION_ROTATE_ON_LOGIN: 'yes' })).toThrow(/SESSION_ROTATE_ON_LOGIN/);
  });
});

// The spec's Language: "When the store is not localized there is exactly one language. The main language id
// of non-localized data defaults to en (name English)"; and Location's "null when undetected". The demo store
// without its languages and without a default country, a new visitor's address not looked up.
describe('all-in-one with a store that is not localized and has no default country', () => {
  let running: AllInOne | undefined;
  let endpoints: Endpoints;
  let dir: string;

  beforeAll(async () => {
    const demo = JSON.parse(await readFile('infra/config/demo-store.json', 'utf8')) as Record<string, unknown>;
    delete demo['mainLanguage'];
    delete demo['languages'];
    delete demo['defaultCountry'];
    demo['countries'] = (demo['countries'] as Array<Record<string, unknown>>).map(({ language: _language, ...country }) => country);
    dir = await mkdtemp(join(tmpdir(), 'not-localized-'));
    await writeFile(join(dir, 'store.json'), JSON.stringify(demo));
    const catalog = parseDemoCatalog(JSON.parse(await readFile('infra/config/demo-catalog.json', 'utf8')));
    ({ running, endpoints } = await startEmbeddedAllInOne('not-localized-test', catalog, {
      STORE_CONFIG: join(dir, 'store.json'),
      GEOIP_DB: 'off',
    }));
  }, 60_000);

  afterAll(async () => {
    await running?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('starts undetected: country null, name and stateName empty, shipTo false; no purchase until a shippable country is set', async () => {
    const res = await checkoutCall(endpoints, 'POST', '/items/1-2');
    expect(res.status).toBe(200);
    expect(res.body['location']).toEqual({ country: null, name: '', state: null, stateName: '', eu: false, shipTo: false });
    const token = res.body['token'] as string;
    const payment = {
      paymentReturnPage: 'https://shop.example/ok',
      paymentFailedPage: 'https://shop.example/failed',
      termsAndConditions: true,
      address: {
        email: 'a@example.com',
        firstName: 'A',
        lastName: 'B',
        address1: 'Gatan 1',
        city: 'Stockholm',
        zipCode: '111 51',
        country: 'SE',
      },
    };
    // No country set: the payment's address must name one (it is where prices are computed), and one shipped to.
    const { country: _country, ...withoutCountry } = payment.address;
    const noCountry = await checkoutCall(endpoints, 'POST', '/payment', { token, body: { ...payment, address: withoutCountry } });
    expect({ status: noCountry.status, body: noCountry.body }).toEqual({
      status: 400,
      body: { token, errors: { 'address.country': 'required' } },
    });
    const norway = await checkoutCall(endpoints, 'POST', '/payment', {
      token,
      body: { ...payment, address: { ...payment.address, country: 'NO' } },
    });
    expect({ status: norway.status, body: norway.body }).toEqual({ status: 406, body: { token, errors: { country: 'not shippable' } } });
    // A refused payment writes nothing: the session is still in no country.
    expect((await checkoutCall(endpoints, 'GET', '/selection', { token })).body['location']).toMatchObject({
      country: null,
      shipTo: false,
    });
    // Nor does one refused for its address: Germany is shipped to, but not to a Swedish postal code.
    const badZip = await checkoutCall(endpoints, 'POST', '/payment', {
      token,
      body: { ...payment, address: { ...payment.address, country: 'DE', zipCode: '111 51' } },
    });
    expect({ status: badZip.status, errors: badZip.body['errors'] }).toEqual({
      status: 400,
      errors: { 'address.zipCode': expect.stringMatching(/^must be in the format/) },
    });
    const after = await checkoutCall(endpoints, 'GET', '/selection', { token });
    expect(after.body['location']).toMatchObject({ country: null, shipTo: false });
    expect(after.body['selection']['items']).toHaveLength(1);
    const se = await checkoutCall(endpoints, 'PUT', '/countries/SE', { token });
    expect(se.body['location']).toEqual({ country: 'SE', name: 'Sweden', state: null, stateName: '', eu: true, shipTo: true });
  }, 30_000);

  it('has exactly one language, en (English), every country defaults to it, and location shows no language', async () => {
    const res = await checkoutCall(endpoints, 'PUT', '/countries/DE');
    expect(res.status).toBe(200);
    expect(res.body['languages']).toEqual([{ language: 'en', name: 'English' }]);
    expect(res.body['language']).toEqual({ language: 'en', name: 'English' });
    expect(res.body['location']).toEqual({ country: 'DE', name: 'Germany', state: null, stateName: '', eu: true, shipTo: true });
    expect(new Set(res.body['countries'].map((c: { language: string }) => c.language))).toEqual(new Set(['en']));
    const token = res.body['token'] as string;
    expect((await checkoutCall(endpoints, 'PUT', '/languages/en', { token })).status).toBe(200);
    const sv = await checkoutCall(endpoints, 'PUT', '/languages/sv', { token });
    expect({ status: sv.status, errors: sv.body['errors'] }).toEqual({ status: 404, errors: { language: 'not found' } });
  });
});
