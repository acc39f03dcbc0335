import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Koa from 'koa';
import pino from 'pino';
import * as soap from 'soap';
import { BackofficeTopics, ProductUpsertReceived } from '@commerce/erp-contracts';
import { DEFAULT_SOAP_NAMESPACE } from '@commerce/backoffice-contracts';
import { createMemoryBus, type EventEnvelope, type MemoryBus } from '@commerce/shared-bus';
import { createDbEngine, type Db, type DbEngine } from '@commerce/shared-db';
import { uniqueName } from '@commerce/shared-testing';
import { buildBackofficeService, type BackofficeService } from '../backoffice.service';
import { readReceivedUpserts, type ReceivedUpsert } from '../received-upserts.store';
import { createScryptPasswordHasher } from '../scrypt.password-hasher';
import { TEST_SCRYPT_PARAMS, testPasswordHash } from '../testing/soap-service.harness';
import { soapHeaders, soapRequest } from '../testing/soap-request';

const SOAP_PATH = '/ams/system/service/module/soap/api';
const ns = DEFAULT_SOAP_NAMESPACE;
const logger = pino({ level: 'silent' });

let engine: DbEngine;
let passwordHash: string;

beforeAll(async () => {
  engine = await createDbEngine('pglite://memory');
  passwordHash = await testPasswordHash('s3cret');
}, 60_000);

afterAll(async () => {
  await engine?.close();
});

interface Harness {
  db: Db;
  bus: MemoryBus;
  service: BackofficeService;
  url: string;
  post(xml: string | Buffer, headers?: Record<string, string>): Promise<{ status: number; headers: Headers; body: string }>;
  close(): Promise<void>;
}

async function harness(): Promise<Harness> {
  const db = engine.forSchema(uniqueName('bo'));
  const bus = createMemoryBus();
  const service = await buildBackofficeService({
    db,
    bus,
    logger,
    namespace: ns,
    users: [{ username: 'erp', passwordHash }],
    correlationPrefix: 'corr-',
    hasher: createScryptPasswordHasher({ params: TEST_SCRYPT_PARAMS }),
  });
  const app = new Koa();
  app.use(service.router.routes());
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${SOAP_PATH}`;
  return {
    db,
    bus,
    service,
    url,
    async post(xml, headers = soapHeaders('products_Update')) {
      const res = await fetch(url, { method: 'POST', headers, body: xml });
      return { status: res.status, headers: res.headers, body: await res.text() };
    },
    async close() {
      await service.stop();
      await new Promise((r) => server.close(r));
      await bus.close();
    },
  };
}

const product = (id: string, variationXml = `<ns1:variations><ns1:variation><ns1:id>${id}-v</ns1:id></ns1:variation></ns1:variations>`) =>
  `<ns1:product><ns1:id>${id}</ns1:id><ns1:sku>SKU-${id}</ns1:sku>${variationXml}</ns1:product>`;
const products = (...items: string[]) => `<ns1:products>${items.join('')}</ns1:products>`;
const request = (inner: string, password = 's3cret', username = 'erp') =>
  soapRequest('products_Update', inner, { username, password, namespace: ns });

const rowsOf = async (db: Db) => ({
  received: (await readReceivedUpserts(db)).upserts as Array<ReceivedUpsert & { payload: any }>,
  outbox: await db.table('outbox').select('*'),
});

describe('products_Update over SOAP', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await harness();
  });
  afterEach(async () => {
    await h.close();
  });

  it('answers 200 with the un-prefixed OK element and both id headers, once the product and its outbox event are stored', async () => {
    const res = await h.post(request(products(product('42'))), { ...soapHeaders('products_Update'), 'X-Request-ID': 'req-abc' });

    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/xml; charset=utf-8');
    expect(res.headers.get('x-service-request-id')).toBe('req-abc');
    expect(res.headers.get('x-correlation-id')).toBe('corr-req-abc');
    expect(res.body).toContain(`<SOAP-ENV:Body><productsUpdateResponse xmlns="${ns}">OK</productsUpdateResponse></SOAP-ENV:Body>`);

    const { received, outbox } = await rowsOf(h.db);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ entity: 'product', external_id: '42', request_id: 'req-abc' });
    expect(received[0]!.payload).toMatchObject({ id: '42', sku: 'SKU-42', variations: [{ id: '42-v' }] });
    expect(outbox).toHaveLength(1);
    expect(outbox[0].topic).toBe(BackofficeTopics.UPSERT);
    const envelope = typeof outbox[0].envelope === 'string' ? JSON.parse(outbox[0].envelope) : outbox[0].envelope;
    const event = ProductUpsertReceived.parse(envelope);
    expect(event.key).toBe('product:42');
    expect(event.payload.product.sku).toBe('SKU-42');
    expect(event.requestId).toBe('req-abc');
  });

  it('publishes the stored ProductUpsertReceived to the bus when the relay flushes', async () => {
    const seen: EventEnvelope[] = [];
    await h.bus.subscribe({ groupId: 'test', topics: [BackofficeTopics.UPSERT], handle: async (e) => void seen.push(e) });
    await h.post(request(products(product('42'))));

    await h.service.relay.flush();
    await h.bus.drain();

    expect(seen).toHaveLength(1);
    const event = ProductUpsertReceived.parse(seen[0] as EventEnvelope);
    expect(event.key).toBe('product:42');
    expect(event.payload.product.variations?.[0]?.id).toBe('42-v');
  });

  it('once started, publishes a committed batch without waiting for a flush', async () => {
    const seen: EventEnvelope[] = [];
    await h.bus.subscribe({ groupId: 'test', topics: [BackofficeTopics.UPSERT], handle: async (e) => void seen.push(e) });
    h.service.start();
    await h.post(request(products(product('5'), product('6'))));

    for (let waited = 0; seen.length < 2 && waited < 3000; waited += 20) await new Promise((r) => setTimeout(r, 20));
    expect(seen.map((e) => e.key)).toEqual(['product:5', 'product:6']);
  });

  it('makes a single <variation> a list of one', async () => {
    await h.post(request(products(product('7'))));
    const { received } = await rowsOf(h.db);
    expect(Array.isArray(received[0]!.payload.variations)).toBe(true);
    expect(received[0]!.payload.variations).toEqual([{ id: '7-v' }]);
  });

  it('answers the same Client fault for a wrong password and an unknown user, and writes nothing', async () => {
    const wrong = await h.post(request(products(product('1')), 'wrong'));
    const unknown = await h.post(request(products(product('1')), 's3cret', 'nobody'));

    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(500);
      expect(res.body).toContain('<faultcode>SOAP-ENV:Client</faultcode><faultstring>login failed</faultstring>');
      expect(res.headers.get('x-service-request-id')).toBeTruthy();
      expect(res.headers.get('x-correlation-id')).toBe(`corr-${res.headers.get('x-service-request-id')}`);
    }
    const strip = (body: string) => body.replace(/\s/g, '');
    expect(strip(wrong.body)).toBe(strip(unknown.body));
    expect(await rowsOf(h.db)).toEqual({ received: [], outbox: [] });
  });

  it('answers a Client fault for malformed XML', async () => {
    const res = await h.post('<SOAP-ENV:Envelope><SOAP-ENV:Body><ns1:products_Update>');
    expect(res.status).toBe(500);
    expect(res.body).toContain('<faultcode>SOAP-ENV:Client</faultcode>');
    expect(res.body).toContain('malformed XML');
    expect(res.body).toContain('BACKOFFICE.MALFORMED_REQUEST');
  });

  // What the W3C XML conformance suite found accepted (xml-conformance.spec.ts): each a Client fault naming it.
  const one = () => request(products(product('1')));
  const notUtf8 = (xml: string): Buffer => {
    const [before, after] = xml.split('SKU-1') as [string, string];
    return Buffer.concat([Buffer.from(`${before}SKU-`), Buffer.from([0xc3, 0x28]), Buffer.from(after)]);
  };
  it.each([
    ['bytes that are not UTF-8', notUtf8(one()), 'the request body is not UTF-8'],
    ['a form feed in text', one().replace('SKU-1', 'SKU\f1'), 'a character XML does not allow (U+000C)'],
    ['U+FFFF in text', one().replace('SKU-1', 'SKU\uffff1'), 'a character XML does not allow (U+FFFE or U+FFFF)'],
    ['two dashes inside a comment', one().replace('<ns1:products>', '<ns1:products><!-- a -- b -->'), 'inside a comment'],
    ['the end of a CDATA section in text', one().replace('SKU-1', 'SKU]]>1'), 'in text (it may only end a CDATA section)'],
    [
      'a declaration of another encoding',
      one().replace('UTF-8', 'ISO-8859-1'),
      'names the encoding ISO-8859-1: a SOAP request here is UTF-8',
    ],
    ['a misspelled declaration', one().replace('<?xml', '<?XML'), 'comes first in the document (the target is reserved)'],
    ['a declaration after white space', `\n${one()}`, 'comes first in the document'],
    ['a bad character in a name', one().replace('<ns1:sku>', '<ns1:sku@>'), 'a bad character in a tag name'],
    ['a processing instruction without a target', one().replace('<ns1:products>', '<ns1:products><? ?>'), 'without a target'],
  ])('answers a Client fault for %s, saying so', async (_what, body, reason) => {
    const res = await h.post(body);
    expect(res.status).toBe(500);
    expect(res.body).toMatch(/<faultcode>SOAP-ENV:Client<\/faultcode><faultstring>malformed XML: [^<]+<\/faultstring>/);
    expect(res.body).toContain(reason);
    expect(res.body).toContain('BACKOFFICE.MALFORMED_REQUEST');
    expect(await rowsOf(h.db)).toEqual({ received: [], outbox: [] });
  });

  it('refuses a batch malformed at its end, after parts of it went to the store as it was parsed, and writes nothing', async () => {
    const many = Array.from({ length: 250 }, (_, k) => product(String(k)));
    many[249] = many[249]!.replace('SKU-249', 'SKU]]>249');
    const res = await h.post(request(products(...many)));
    expect(res.status).toBe(500);
    expect(res.body).toContain('<faultcode>SOAP-ENV:Client</faultcode><faultstring>malformed XML: &quot;]]&gt;&quot; in text');
    expect(await rowsOf(h.db)).toEqual({ received: [], outbox: [] });
  });

  it('refuses a batch whose second product is invalid, naming products[1], and writes nothing of it', async () => {
    const res = await h.post(
      request(
        products(product('1'), product('42', '<ns1:variations><ns1:variation><ns1:sku>x</ns1:sku></ns1:variation></ns1:variations>')),
      ),
    );

    expect(res.status).toBe(500);
    expect(res.body).toContain(
      '<faultcode>SOAP-ENV:Client</faultcode><faultstring>products[1] (id 42): variations.0.id is required</faultstring>',
    );
    expect(res.body).toContain('BACKOFFICE.INVALID_ENTITY');
    expect(await rowsOf(h.db)).toEqual({ received: [], outbox: [] });
  });

  it('takes the SOAPAction with or without the capital first letter, quoted or not (DESIGN §6)', async () => {
    const action = `${DEFAULT_SOAP_NAMESPACE}Products_Update`;
    const lower = `${DEFAULT_SOAP_NAMESPACE}products_Update`;
    for (const SOAPAction of [action, lower, `"${action}"`, `"${lower}"`]) {
      const res = await h.post(request(products(product('1'))), { ...soapHeaders('products_Update'), SOAPAction });
      expect([SOAPAction, res.status]).toEqual([SOAPAction, 200]);
      expect(res.body).toContain('<productsUpdateResponse xmlns="');
    }
  });

  it('refuses a SOAPAction that names another operation', async () => {
    const res = await h.post(request(products(product('1'))), soapHeaders('sizes_Update'));
    expect(res.status).toBe(500);
    expect(res.body).toContain('<faultcode>SOAP-ENV:Client</faultcode>');
    expect(res.body).toContain('BACKOFFICE.UNKNOWN_OPERATION');
    expect(await rowsOf(h.db)).toEqual({ received: [], outbox: [] });
  });

  it('serves every operation of the spec: events_Done of a number the feed never had is a Client fault, not "not implemented"', async () => {
    const res = await h.post(
      soapRequest('events_Done', '<ns1:event>1</ns1:event>', { username: 'erp', password: 's3cret' }),
      soapHeaders('events_Done'),
    );
    expect(res.status).toBe(500);
    expect(res.body).toContain('<faultstring>unknown event number: 1; nothing was marked done</faultstring>');
  });

  it('answers a Server fault without any internal detail when storing fails', async () => {
    await h.db.knex.schema.withSchema(h.db.schema).dropTable('received_upserts');
    const res = await h.post(request(products(product('1'))));
    expect(res.status).toBe(500);
    expect(res.body).toContain('<faultcode>SOAP-ENV:Server</faultcode>');
    expect(res.body).not.toMatch(/received_upserts|relation|at .*\.ts/);
  });

  it('serves a WSDL at ?wsdl that the soap client loads, and a client generated from it gets OK', async () => {
    const wsdl = await fetch(`${h.url}?wsdl`);
    expect(wsdl.status).toBe(200);
    expect(await wsdl.text()).toContain(`soapAction="${ns}Products_Update"`);

    const client = await soap.createClientAsync(`${h.url}?wsdl`);
    const [result] = await client.products_UpdateAsync({
      login: { username: 'erp', password: 's3cret' },
      products: {
        product: [{ id: '99', sku: 'X', variations: { variation: [{ id: '99-a', sizes: { size: [{ id: 'M', qty: '3' }] } }] } }],
      },
    });

    expect(result).toBe('OK');
    const { received } = await rowsOf(h.db);
    expect(received[0]!.payload).toEqual({ id: '99', sku: 'X', variations: [{ id: '99-a', sizes: [{ id: 'M', qty: '3' }] }] });
  });
});
