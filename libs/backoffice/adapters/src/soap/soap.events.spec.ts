import * as soap from 'soap';
import { ProductUpserted } from '@commerce/catalog-contracts';
import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { HARNESS_USER, testPasswordHash, startSoapService, type SoapServiceHarness } from '../testing/soap-service.harness';
import { soapHeaders, soapRequest } from '../testing/soap-request';

let engine: DbEngine;
let passwordHash: string;
const login = { username: HARNESS_USER.username, password: HARNESS_USER.password };
const OTHER = { username: 'erp2', password: 'other-secret' };

beforeAll(async () => {
  engine = await createDbEngine('pglite://memory');
  passwordHash = await testPasswordHash(HARNESS_USER.password);
}, 60_000);
afterAll(async () => {
  await engine?.close();
});

interface SoapEvent {
  id: string;
  type: string;
  entry: string;
  mission: string;
  date: string;
  data: Record<string, any>;
}
type Client = soap.Client & Record<string, (args: unknown) => Promise<[any, string]>>;

const eventsOf = (result: any): SoapEvent[] => {
  const list = result?.events?.event;
  return list === undefined ? [] : Array.isArray(list) ? list : [list];
};

async function publishProduct(h: SoapServiceHarness, externalId: string, requestId?: string) {
  await h.bus.publish([ProductUpserted.create(externalId, { productId: `p-${externalId}`, externalId }, requestId)]);
  await h.bus.drain();
}

/** A products_Update of one product through the endpoint, as the request `requestId`. */
async function updateProductAs(h: SoapServiceHarness, requestId: string, productId: string) {
  const res = await fetch(h.url, {
    method: 'POST',
    headers: { ...soapHeaders('products_Update'), 'x-request-id': requestId },
    body: soapRequest('products_Update', `<products><product><id>${productId}</id></product></products>`, HARNESS_USER),
  });
  expect(res.status).toBe(200);
}

describe('the change-event feed over SOAP', () => {
  let h: SoapServiceHarness;
  let client: Client;
  beforeEach(async () => {
    h = await startSoapService(engine, passwordHash, {
      start: true,
      users: [{ username: OTHER.username, passwordHash: await testPasswordHash(OTHER.password) }],
    });
    client = (await soap.createClientAsync(`${h.url}?wsdl`)) as Client;
  });
  afterEach(async () => {
    await h.close();
  });

  it('a catalog product change becomes a stock event a WSDL-generated client reads, and events_Done removes it', async () => {
    await publishProduct(h, 'P1');
    await publishProduct(h, 'P2');

    const [result] = await client['events_GetAsync']!({ login, type: 'all' });
    const events = eventsOf(result);

    expect(events.map((e) => [e.type, e.entry, e.mission])).toEqual([
      ['stock', 'P1', 'update'],
      ['stock', 'P2', 'update'],
    ]);
    expect(Number(events[1]!.id)).toBeGreaterThan(Number(events[0]!.id));
    expect(events[0]!.date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    expect(events[0]!.data).toEqual({ stock: { product: { id: 'P1' } } });

    const [done] = await client['events_DoneAsync']!({ login, event: [events[0]!.id] });
    expect(done).toBe('OK');
    // Again: nothing changes, still OK.
    expect((await client['events_DoneAsync']!({ login, event: [events[0]!.id] }))[0]).toBe('OK');

    expect(eventsOf((await client['events_GetAsync']!({ login, type: 'all' }))[0]).map((e) => e.entry)).toEqual(['P2']);
    // Another SOAP user keeps its own state.
    expect(eventsOf((await client['events_GetAsync']!({ login: OTHER, type: 'all' }))[0]).map((e) => e.entry)).toEqual(['P1', 'P2']);
    // A kind with nothing: an empty list.
    expect(eventsOf((await client['events_GetAsync']!({ login, type: 'order' }))[0])).toEqual([]);
  });

  it('a redelivered catalog event adds no second event', async () => {
    const event = ProductUpserted.create('P1', { productId: 'p1', externalId: 'P1' });
    await h.bus.publish([event]);
    await h.bus.publish([event]);
    await h.bus.drain();

    expect(eventsOf((await client['events_GetAsync']!({ login, type: 'all' }))[0])).toHaveLength(1);
  });

  it('a product change caused by a SOAP request of ours does not echo back', async () => {
    const requestId = 'req-echo-1';
    await updateProductAs(h, requestId, 'P9');
    await publishProduct(h, 'P9', requestId);
    await publishProduct(h, 'P10', 'req-from-elsewhere');
    expect((await client['customers_UpdateAsync']!({ login, customers: { customer: [{ id: 'C1' }] } }))[0]).toBe('OK');
    await h.service.relay.flush();
    await h.bus.drain();

    expect(eventsOf((await client['events_GetAsync']!({ login, type: 'all' }))[0]).map((e) => e.entry)).toEqual(['P10']);
  });

  it('a run of one request’s events is recorded together: once, and not at all when a SOAP call of ours caused it', async () => {
    const requestId = 'req-run-1';
    await updateProductAs(h, requestId, 'R1');
    // One publish of many events with one request id: the memory bus hands them to handleBatch as a run.
    const ours = ['R1', 'R2', 'R3'].map((id) => ProductUpserted.create(id, { productId: `p-${id}`, externalId: id }, requestId));
    const theirs = ['S1', 'S2', 'S3'].map((id) =>
      ProductUpserted.create(id, { productId: `p-${id}`, externalId: id }, 'req-run-elsewhere'),
    );
    await h.bus.publish([...ours, ...theirs]);
    await h.bus.drain();
    // The same run again (a redelivery): nothing more.
    await h.bus.publish(theirs);
    await h.bus.drain();

    // Keys spread over partitions: each partition's run is in order, the partitions' runs in any order.
    expect(
      eventsOf((await client['events_GetAsync']!({ login, type: 'all' }))[0])
        .map((e) => e.entry)
        .sort(),
    ).toEqual(['S1', 'S2', 'S3']);
  });

  it('refuses an unknown event number with a Client fault and marks none of the call done', async () => {
    await publishProduct(h, 'P1');
    const [event] = eventsOf((await client['events_GetAsync']!({ login, type: 'all' }))[0]);

    const res = await h.call('events_Done', `<event>${event!.id}</event><event>999999</event>`);

    expect(res.status).toBe(500);
    expect(res.body).toMatch(/<faultcode>[A-Za-z-]+:Client<\/faultcode>/);
    expect(res.body).toContain('unknown event number: 999999; nothing was marked done');
    expect(res.body).toContain('<code>BACKOFFICE.UNKNOWN_EVENT</code>');
    expect(eventsOf((await client['events_GetAsync']!({ login, type: 'all' }))[0])).toHaveLength(1);
  });

  it('refuses a type outside the spec’s list, and events_Done without a number', async () => {
    const bad = await h.call('events_Get', '<type>products</type>');
    expect(bad.status).toBe(500);
    expect(bad.body).toContain('type must be one of all, account, customer');
    const none = await h.call('events_Done', '');
    expect(none.body).toContain('events_Done needs at least one event number');
  });

  it('answers the spec’s element names on the wire: events_Get > events > event, un-prefixed', async () => {
    await publishProduct(h, 'P1');
    const res = await h.call('events_Get', '<type>all</type>');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/xml; charset=utf-8');
    expect(res.body).toMatch(
      /<events_Get xmlns="[^"]+"><events><event><id>\d+<\/id><type>stock<\/type><entry>P1<\/entry><mission>update<\/mission><date>[^<]+<\/date><data><stock><product><id>P1<\/id><\/product><\/stock><\/data><\/event><\/events><\/events_Get>/,
    );
  });
});

describe('the change-event feed with SOAP_ECHO_EVENTS', () => {
  let h: SoapServiceHarness;
  let client: Client;
  beforeEach(async () => {
    h = await startSoapService(engine, passwordHash, { start: true, events: { echo: true, pageSize: 3 } });
    client = (await soap.createClientAsync(`${h.url}?wsdl`)) as Client;
  });
  afterEach(async () => {
    await h.close();
  });

  async function settle() {
    await h.service.relay.flush();
    await h.bus.drain();
  }

  it('SOAP upserts come back as events in their SOAP shape, without a buyer’s password, filtered by market, paged', async () => {
    await client['markets_UpdateAsync']!({ login, markets: { market: [{ id: 'EU', description: 'Europe' }] } });
    await client['customers_UpdateAsync']!({ login, customers: { customer: [{ id: 'C1', store: 2, firstname: 'Åsa' }] } });
    await client['accounts_UpdateAsync']!({
      login,
      accounts: { account: [{ id: 'A1', market: { id: 'EU' }, buyers: { buyer: [{ id: 'B1', store: 1, password: 'pw' }] } }] },
    });
    await client['paymentterms_UpdateAsync']!({ login, paymentterms: { paymentterms: [{ id: 'NET30', duedays: '30' }] } });
    await settle();

    const first = eventsOf((await client['events_GetAsync']!({ login, type: 'all' }))[0]);
    expect(first.map((e) => [e.type, e.entry])).toEqual([
      ['market', 'EU'],
      ['customer', 'C1'],
      ['account', 'A1'],
    ]);
    expect(first[1]!.data).toEqual({ customer: { id: 'C1', store: 2, firstname: 'Åsa' } });
    expect(first[2]!.data['account'].buyers.buyer).toEqual([{ id: 'B1', store: 1 }]);
    const raw = await h.call('events_Get', '<type>account</type>');
    expect(raw.body).not.toMatch(/password|scrypt/);

    await client['events_DoneAsync']!({ login, event: first.map((e) => e.id) });
    const rest = eventsOf((await client['events_GetAsync']!({ login, type: 'all' }))[0]);
    expect(rest.map((e) => [e.type, e.entry, e.data])).toEqual([
      ['paymentterm', 'NET30', { paymentterms: { id: 'NET30', duedays: '30' } }],
    ]);
  });

  it('events_GetByMarkets lists only events of the given markets', async () => {
    await client['markets_UpdateAsync']!({ login, markets: { market: [{ id: 'EU' }, { id: 'US' }] } });
    await client['customers_UpdateAsync']!({ login, customers: { customer: [{ id: 'C1' }] } });
    await client['accounts_UpdateAsync']!({ login, accounts: { account: [{ id: 'A1', market: { id: 'US' } }] } });
    await settle();

    const [result] = await client['events_GetByMarketsAsync']!({ login, type: 'all', markets: { market: [{ id: 'US' }] } });
    expect(eventsOf(result).map((e) => [e.type, e.entry])).toEqual([
      ['market', 'US'],
      ['account', 'A1'],
    ]);
    const [accounts] = await client['events_GetByMarketsAsync']!({ login, type: 'account', markets: { market: [{ id: 'EU' }] } });
    expect(eventsOf(accounts)).toEqual([]);
  });
});
