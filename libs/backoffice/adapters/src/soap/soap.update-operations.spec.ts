import * as soap from 'soap';
import {
  AccountUpsertReceived,
  BackofficeTopics,
  CustomerUpsertReceived,
  InvoiceUpsertReceived,
  OrderUpsertReceived,
  PaymentTermsUpsertReceived,
  SalesRepUpsertReceived,
  ShippingTermsUpsertReceived,
  DeliveryWindowUpsertReceived,
  MarketUpsertReceived,
  PricelistUpsertReceived,
  SizeUpsertReceived,
  WarehouseUpsertReceived,
} from '@commerce/erp-contracts';
import { DEFAULT_SOAP_NAMESPACE } from '@commerce/backoffice-contracts';
import type { EventEnvelope } from '@commerce/shared-bus';
import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { verify as argon2Verify } from '@node-rs/argon2';
import { HARNESS_USER, testPasswordHash, startSoapService, type SoapServiceHarness } from '../testing/soap-service.harness';

const ns = DEFAULT_SOAP_NAMESPACE;

let engine: DbEngine;
let passwordHash: string;

beforeAll(async () => {
  engine = await createDbEngine('pglite://memory');
  passwordHash = await testPasswordHash(HARNESS_USER.password);
}, 60_000);

afterAll(async () => {
  await engine?.close();
});

/** `<ns1:tag>…</ns1:tag>` for each [tag, content]; content is text or nested elements. */
const el = (tag: string, ...children: (string | [string, string])[]): string =>
  `<ns1:${tag}>${children.map((c) => (typeof c === 'string' ? c : el(c[0], c[1]))).join('')}</ns1:${tag}>`;

interface Case {
  op: string;
  entity: string;
  list: string;
  event: { type: string; parse(e: EventEnvelope): EventEnvelope };
  /** Two entities as XML, and the JSON each must become. */
  xml: [string, string];
  json: [Record<string, unknown>, Record<string, unknown>];
  /** An invalid entity (id `BAD`), and the fault string when it is second in the batch. */
  bad: string;
  fault: string;
}

const cases: Case[] = [
  {
    op: 'sizes_Update',
    entity: 'size',
    list: 'sizes',
    event: SizeUpsertReceived,
    xml: [
      el(
        'size',
        ['id', 'M'],
        ['description', 'Medium'],
        ['sku', 'SZ-M'],
        ['ean', '0001'],
        ['comment', 'c'],
        el('sizetable', ['id', 'T1'], ['description', 'Tops'], ['stockdivisor', '2'], ['stockunit', 'pcs']),
      ),
      el('size', ['id', 'L'], el('sizetable', ['id', 'T1'])),
    ],
    json: [
      {
        id: 'M',
        description: 'Medium',
        sku: 'SZ-M',
        ean: '0001',
        comment: 'c',
        sizetable: { id: 'T1', description: 'Tops', stockdivisor: '2', stockunit: 'pcs' },
      },
      { id: 'L', sizetable: { id: 'T1' } },
    ],
    bad: el('size', ['id', 'BAD'], el('sizetable', ['id', 'T1'], ['stockdivisor', 'two'])),
    fault: 'sizes[1] (id BAD): sizetable.stockdivisor must be a whole number ≥ 1',
  },
  {
    op: 'pricelists_Update',
    entity: 'pricelist',
    list: 'pricelists',
    event: PricelistUpsertReceived,
    xml: [
      el(
        'pricelist',
        ['id', 'PL-EU'],
        ['store', '1'],
        ['type', 'retail'],
        ['currency', 'EUR'],
        ['description', 'Europe'],
        el(
          'items',
          el(
            'product',
            ['id', 'P1'],
            ['price', '59.90'],
            ['priceb', '79'],
            el('variation', ['id', 'P1-V1'], ['price', '49.9'], ['priceb', '0']),
          ),
          el('product', ['id', 'P2'], ['price', '10']),
        ),
      ),
      el('pricelist', ['id', 'PL-SE'], ['currency', 'SEK'], '<ns1:items/>'),
    ],
    json: [
      {
        id: 'PL-EU',
        store: '1',
        type: 'retail',
        currency: 'EUR',
        description: 'Europe',
        items: [
          { id: 'P1', price: '59.90', priceb: '79', variation: { id: 'P1-V1', price: '49.9', priceb: '0' } },
          { id: 'P2', price: '10' },
        ],
      },
      { id: 'PL-SE', currency: 'SEK', items: [] },
    ],
    bad: el('pricelist', ['id', 'BAD'], ['currency', 'EUR'], el('items', el('product', ['id', 'P1'], ['price', '12,50']))),
    fault: 'pricelists[1] (id BAD): items.0.price must be a decimal number ≥ 0 with at most 2 decimals, e.g. 19.90',
  },
  {
    op: 'markets_Update',
    entity: 'market',
    list: 'markets',
    event: MarketUpsertReceived,
    xml: [el('market', ['id', 'EU'], ['store', '1'], ['type', 'b2c'], ['description', 'Europe']), el('market', ['id', 'SE'])],
    json: [{ id: 'EU', store: '1', type: 'b2c', description: 'Europe' }, { id: 'SE' }],
    bad: el('market', ['id', ''], ['description', 'no id']),
    fault: 'markets[1]: id must not be empty',
  },
  {
    op: 'warehouses_Update',
    entity: 'warehouse',
    list: 'warehouses',
    event: WarehouseUpsertReceived,
    xml: [el('warehouse', ['id', 'W1'], ['description', 'Main']), el('warehouse', ['id', 'W2'], ['description', ''])],
    json: [
      { id: 'W1', description: 'Main' },
      { id: 'W2', description: '' },
    ],
    bad: el('warehouse', ['description', 'Nameless']),
    fault: 'warehouses[1]: id is required',
  },
  {
    op: 'deliverywindows_Update',
    entity: 'deliverywindow',
    list: 'deliverywindows',
    event: DeliveryWindowUpsertReceived,
    xml: [
      el(
        'deliverywindow',
        ['id', 'DW-SS26'],
        ['status', 'active'],
        ['description', 'Spring'],
        ['startdate', '2026-03-01'],
        ['stopdate', '2026-05-31T23:59:59+02:00'],
        ['atonce', 'false'],
        el('variations', el('variation', ['id', 'V1'], ['type', 'pre'], ['productlimit', '100'], ['variationlimit', '20'])),
        el('variationsremove', el('variation', ['id', 'V9'])),
      ),
      el('deliverywindow', ['id', 'DW-NOW'], ['atonce', '1']),
    ],
    json: [
      {
        id: 'DW-SS26',
        status: 'active',
        description: 'Spring',
        startdate: '2026-03-01',
        stopdate: '2026-05-31T23:59:59+02:00',
        atonce: false,
        variations: [{ id: 'V1', type: 'pre', productlimit: 100, variationlimit: 20 }],
        variationsremove: [{ id: 'V9' }],
      },
      { id: 'DW-NOW', atonce: true },
    ],
    bad: el('deliverywindow', ['id', 'BAD'], el('variations', el('variation', ['id', 'V1'], ['productlimit', '-1']))),
    fault: 'deliverywindows[1] (id BAD): variations.0.productlimit must be a whole number from 0 to 2147483647',
  },
];

describe('the *_Update operations of the catalog entities over SOAP', () => {
  let h: SoapServiceHarness;
  beforeEach(async () => {
    h = await startSoapService(engine, passwordHash);
  });
  afterEach(async () => {
    await h.close();
  });

  it.each(cases)('$op answers OK once the batch and one $event.type per entity are stored', async (c) => {
    const res = await h.call(c.op, el(c.list, ...c.xml));

    expect(res.status).toBe(200);
    expect(res.body).toContain(`<SOAP-ENV:Body><${c.list}UpdateResponse xmlns="${ns}">OK</${c.list}UpdateResponse></SOAP-ENV:Body>`);
    const { received, outbox } = await h.rows();
    expect(received.map((r) => [r['entity'], r['external_id'], r['payload']])).toEqual(c.json.map((j) => [c.entity, j['id'], j]));
    expect(outbox.map((e) => [e.topic, e.type, e.version, e.key])).toEqual(
      c.json.map((j) => [BackofficeTopics.UPSERT, c.event.type, 1, `${c.entity}:${j['id']}`]),
    );
    // Exact payloads: a field the ERP left out is absent, not an empty string.
    expect(outbox.map((e) => c.event.parse(e).payload)).toEqual(c.json.map((j) => ({ entity: c.entity, [c.entity]: j })));
  });

  it.each(cases)('$op refuses the whole batch when its second entity is invalid, naming list, index, id and field', async (c) => {
    const res = await h.call(c.op, el(c.list, c.xml[0], c.bad));

    expect(res.status).toBe(500);
    expect(res.body).toContain(`<faultcode>SOAP-ENV:Client</faultcode><faultstring>${c.fault}</faultstring>`);
    expect(res.body).toContain('BACKOFFICE.INVALID_ENTITY');
    expect(await h.rows()).toEqual({ received: [], outbox: [] });
  });

  it('publishes one event per entity on backoffice.upsert.v1 when the relay flushes', async () => {
    const seen: EventEnvelope[] = [];
    await h.bus.subscribe({ groupId: 'test', topics: [BackofficeTopics.UPSERT], handle: async (e) => void seen.push(e) });
    for (const c of cases) expect((await h.call(c.op, el(c.list, ...c.xml))).status).toBe(200);

    await h.service.relay.flush();
    await h.bus.drain();

    // Ordered per key (partition), not across keys.
    const byKey = (a: string[], b: string[]) => (a[1] ?? '').localeCompare(b[1] ?? '');
    expect(seen.map((e) => [e.type, e.key]).sort(byKey)).toEqual(
      cases.flatMap((c) => c.json.map((j) => [c.event.type, `${c.entity}:${j['id']}`])).sort(byKey),
    );
  });

  it('refuses an empty element where the spec types a value (int, boolean, date, price)', async () => {
    for (const [op, list, xml, fault] of [
      [
        'deliverywindows_Update',
        'deliverywindows',
        el('deliverywindow', ['id', 'D'], ['atonce', '']),
        'deliverywindows[0] (id D): atonce must be true, false, 1 or 0',
      ],
      [
        'deliverywindows_Update',
        'deliverywindows',
        el('deliverywindow', ['id', 'D'], ['startdate', '']),
        'deliverywindows[0] (id D): startdate must be an ISO 8601',
      ],
      [
        'pricelists_Update',
        'pricelists',
        el('pricelist', ['id', 'P'], el('items', el('product', ['id', 'X'], ['priceb', '']))),
        'pricelists[0] (id P): items.0.priceb must be a decimal',
      ],
    ] as const) {
      const res = await h.call(op, el(list, xml));
      expect(res.status).toBe(500);
      expect(res.body).toContain(`<faultstring>${fault}`);
    }
    expect(await h.rows()).toEqual({ received: [], outbox: [] });
  });

  it('refuses a stray element directly inside the list element', async () => {
    const res = await h.call('sizes_Update', el('sizes', el('size', ['id', 'M']), el('sise', ['id', 'L'])));
    expect(res.status).toBe(500);
    expect(res.body).toContain('<faultstring>sizes may hold only size elements, not sise</faultstring>');
    expect(await h.rows()).toEqual({ received: [], outbox: [] });
  });

  it('refuses a product whose stock is not a whole number, naming the field, instead of publishing poison', async () => {
    const product = el(
      'product',
      ['id', 'P1'],
      el('variations', el('variation', ['id', 'V1'], el('sizes', el('size', ['id', 'M'], ['qty', '2.5'])))),
    );
    const res = await h.call('products_Update', el('products', product));
    expect(res.status).toBe(500);
    expect(res.body).toContain('<faultstring>products[0] (id P1): variations.0.sizes.0.qty must be a whole number ≥ 0</faultstring>');
    expect(await h.rows()).toEqual({ received: [], outbox: [] });
  });

  it('serves every operation in the WSDL, and a client generated from it gets OK with typed values', async () => {
    const wsdl = await (await fetch(`${h.url}?wsdl`)).text();
    for (const c of cases) expect(wsdl).toContain(`soapAction="${ns}${c.op.charAt(0).toUpperCase()}${c.op.slice(1)}"`);
    expect(wsdl).toContain('<xsd:element name="atonce" type="xsd:boolean" minOccurs="0"/>');
    expect(wsdl).toContain('<xsd:element name="productlimit" type="xsd:int" minOccurs="0"/>');

    const client = await soap.createClientAsync(`${h.url}?wsdl`);
    const login = { username: HARNESS_USER.username, password: HARNESS_USER.password };
    const answers = [
      await client.sizes_UpdateAsync({ login, sizes: { size: [{ id: 'M', sizetable: { id: 'T', stockdivisor: '1' } }] } }),
      await client.pricelists_UpdateAsync({
        login,
        pricelists: {
          pricelist: [{ id: 'PL', currency: 'EUR', items: { product: [{ id: 'P', price: '5.00', variation: { id: 'V', price: '4' } }] } }],
        },
      }),
      await client.markets_UpdateAsync({ login, markets: { market: [{ id: 'EU', description: 'Europe' }] } }),
      await client.warehouses_UpdateAsync({ login, warehouses: { warehouse: [{ id: 'W1' }] } }),
      await client.deliverywindows_UpdateAsync({
        login,
        deliverywindows: { deliverywindow: [{ id: 'DW', atonce: true, variations: { variation: [{ id: 'V', productlimit: 3 }] } }] },
      }),
    ];

    expect(answers.map(([result]) => result)).toEqual(['OK', 'OK', 'OK', 'OK', 'OK']);
    const { received } = await h.rows();
    expect(received.map((r) => r['payload'])).toEqual([
      { id: 'M', sizetable: { id: 'T', stockdivisor: '1' } },
      { id: 'PL', currency: 'EUR', items: [{ id: 'P', price: '5.00', variation: { id: 'V', price: '4' } }] },
      { id: 'EU', description: 'Europe' },
      { id: 'W1' },
      { id: 'DW', atonce: true, variations: [{ id: 'V', productlimit: 3 }] },
    ]);
  });
});

// The other owners' entities: stored and published the same way until their services consume them.
const otherCases: Case[] = [
  {
    op: 'customers_Update',
    entity: 'customer',
    list: 'customers',
    event: CustomerUpsertReceived,
    xml: [
      el('customer', ['id', 'C1'], ['store', '1'], ['firstname', 'Åsa'], ['email', 'asa@example.com'], ['country', 'SE']),
      el('customer', ['id', 'C2']),
    ],
    json: [{ id: 'C1', store: 1, firstname: 'Åsa', email: 'asa@example.com', country: 'SE' }, { id: 'C2' }],
    bad: el('customer', ['id', 'BAD'], ['store', 'main']),
    fault: 'customers[1] (id BAD): store must be a whole number from 0 to 2147483647',
  },
  {
    op: 'salesreps_Update',
    entity: 'salesrep',
    list: 'salesreps',
    event: SalesRepUpsertReceived,
    xml: [
      el('salesrep', ['id', 'R1'], ['name', 'Rep'], ['percent', '5'], el('mastersalesrep', el('salesrep', ['id', 'R0'], ['percent', '1']))),
      el('salesrep', ['id', 'R2']),
    ],
    json: [{ id: 'R1', name: 'Rep', percent: '5', mastersalesrep: [{ id: 'R0', percent: '1' }] }, { id: 'R2' }],
    bad: el('salesrep', ['id', 'BAD'], el('mastersalesrep', el('salesrep', ['percent', '1']))),
    fault: 'salesreps[1] (id BAD): mastersalesrep.0.id is required',
  },
  {
    op: 'paymentterms_Update',
    entity: 'paymentterms',
    list: 'paymentterms',
    event: PaymentTermsUpsertReceived,
    xml: [el('paymentterms', ['id', 'NET30'], ['name', 'Net 30'], ['duedays', '30']), el('paymentterms', ['id', 'PREPAID'])],
    json: [{ id: 'NET30', name: 'Net 30', duedays: '30' }, { id: 'PREPAID' }],
    bad: el('paymentterms', ['name', 'no id']),
    fault: 'paymentterms[1]: id is required',
  },
  {
    op: 'shippingterms_Update',
    entity: 'shippingterms',
    list: 'shippingterms',
    event: ShippingTermsUpsertReceived,
    xml: [el('shippingterms', ['id', 'EXW'], ['description', 'Ex works']), el('shippingterms', ['id', 'DAP'])],
    json: [{ id: 'EXW', description: 'Ex works' }, { id: 'DAP' }],
    bad: el('shippingterms', ['id', '']),
    fault: 'shippingterms[1]: id must not be empty',
  },
  {
    op: 'orders_Update',
    entity: 'order',
    list: 'orders',
    event: OrderUpsertReceived,
    xml: [
      el(
        'order',
        ['id', 'O1'],
        ['store', '1'],
        ['status', 'confirmed'],
        ['currency', 'EUR'],
        ['internal', 'false'],
        el('buyer', ['id', 'B1'], ['email', 'b@example.com']),
        el('deliverywindow', ['id', 'DW'], ['atonce', 'true']),
        el('primary_warehouse', el('warehouse', ['id', 'W1'])),
        el('shipping', ['subtotal', '5.00']),
        el(
          'products',
          el(
            'product',
            ['id', 'L1'],
            ['qty', '2'],
            el('sizes', el('size', ['id', 'M'], el('warehouseitems', el('warehouse', ['id', 'W1'], ['qty', '2'])))),
          ),
        ),
        el(
          'shipments',
          el(
            'shipment',
            ['id', 'S1'],
            el('carrierinformation', ['carrier', 'DHL'], ['packages', '2']),
            el('refunds', el('refund', ['id', 'RF1'], el('returnfee', ['subtotal', '3']))),
          ),
        ),
      ),
      el('order', ['id', 'O2'], ['status', 'cancelled']),
    ],
    json: [
      {
        id: 'O1',
        store: 1,
        status: 'confirmed',
        currency: 'EUR',
        internal: false,
        buyer: { id: 'B1', email: 'b@example.com' },
        deliverywindow: { id: 'DW', atonce: true },
        primary_warehouse: [{ id: 'W1' }],
        shipping: { subtotal: '5.00' },
        products: [{ id: 'L1', qty: '2', sizes: [{ id: 'M', warehouseitems: [{ id: 'W1', qty: '2' }] }] }],
        shipments: [
          { id: 'S1', carrierinformation: { carrier: 'DHL', packages: 2 }, refunds: [{ id: 'RF1', returnfee: { subtotal: '3' } }] },
        ],
      },
      { id: 'O2', status: 'cancelled' },
    ],
    bad: el('order', ['id', 'BAD'], el('shipments', el('shipment', ['id', 'S1'], ['currency', 'euro']))),
    fault: 'orders[1] (id BAD): shipments.0.currency must be a 3-letter upper-case currency code, e.g. EUR',
  },
  {
    op: 'invoices_Update',
    entity: 'invoice',
    list: 'invoices',
    event: InvoiceUpsertReceived,
    xml: [
      el(
        'invoice',
        ['id', 'I1'],
        ['currency', 'SEK'],
        ['total', '100.00'],
        el('order', ['id', 'O1']),
        el(
          'items',
          el('invoiceitem', ['itemid', '1'], ['qty', '1'], el('product', ['id', 'P1'])),
          el('additional', ['key', 'shipping'], ['subtotal', '49']),
          el('invoiceitem', ['itemid', '2']),
        ),
      ),
      el('invoice', ['id', 'I2'], ['locked', '1']),
    ],
    json: [
      {
        id: 'I1',
        currency: 'SEK',
        total: '100.00',
        order: { id: 'O1' },
        items: {
          invoiceitem: [{ itemid: '1', qty: '1', product: { id: 'P1' } }, { itemid: '2' }],
          additional: [{ key: 'shipping', subtotal: '49' }],
        },
      },
      { id: 'I2', locked: '1' },
    ],
    bad: el('invoice', ['id', 'BAD'], el('items', el('invoiceitem', el('product', ['description', 'no id'])))),
    fault: 'invoices[1] (id BAD): items.invoiceitem.0.product.id is required',
  },
  {
    op: 'accounts_Update',
    entity: 'account',
    list: 'accounts',
    event: AccountUpsertReceived,
    xml: [
      el(
        'account',
        ['id', 'A1'],
        ['description', 'Boutique'],
        el('pricelist', ['id', 'PL-EU']),
        el('accountaddress', ['company', 'Boutique AB'], ['country', 'SE']),
        el('carrierinformation', ['packages', '1']),
        el('buyers', el('buyer', ['id', 'B1'], ['store', '1'], ['email', 'b@example.com'])),
        el('additionals', el('additional', ['key', 'k'], ['value', 'v'])),
      ),
      el('account', ['id', 'A2'], '<ns1:buyers/>'),
    ],
    json: [
      {
        id: 'A1',
        description: 'Boutique',
        pricelist: { id: 'PL-EU' },
        accountaddress: { company: 'Boutique AB', country: 'SE' },
        carrierinformation: { packages: 1 },
        buyers: [{ id: 'B1', store: 1, email: 'b@example.com' }],
        additionals: [{ key: 'k', value: 'v' }],
      },
      { id: 'A2', buyers: [] },
    ],
    bad: el('account', ['id', 'BAD'], el('buyers', el('buyer', ['id', 'B9'], ['store', '-1']))),
    fault: 'accounts[1] (id BAD): buyers.0.store must be a whole number from 0 to 2147483647',
  },
];

describe('the *_Update operations of the account and order entities over SOAP', () => {
  let h: SoapServiceHarness;
  beforeEach(async () => {
    h = await startSoapService(engine, passwordHash);
  });
  afterEach(async () => {
    await h.close();
  });

  it.each(otherCases)('$op answers OK once the batch and one $event.type per entity are stored', async (c) => {
    const res = await h.call(c.op, el(c.list, ...c.xml));

    expect(res.status).toBe(200);
    expect(res.body).toContain(`<SOAP-ENV:Body><${c.list}UpdateResponse xmlns="${ns}">OK</${c.list}UpdateResponse></SOAP-ENV:Body>`);
    const { received, outbox } = await h.rows();
    expect(received.map((r) => [r['entity'], r['external_id'], r['payload']])).toEqual(c.json.map((j) => [c.entity, j['id'], j]));
    expect(outbox.map((e) => [e.topic, e.type, e.key])).toEqual(
      c.json.map((j) => [BackofficeTopics.UPSERT, c.event.type, `${c.entity}:${j['id']}`]),
    );
    expect(outbox.map((e) => c.event.parse(e).payload)).toEqual(c.json.map((j) => ({ entity: c.entity, [c.entity]: j })));
  });

  it.each(otherCases)('$op refuses the whole batch when its second entity is invalid', async (c) => {
    const res = await h.call(c.op, el(c.list, c.xml[0], c.bad));

    expect(res.status).toBe(500);
    expect(res.body).toContain(`<faultcode>SOAP-ENV:Client</faultcode><faultstring>${c.fault}</faultstring>`);
    expect(await h.rows()).toEqual({ received: [], outbox: [] });
  });

  it('keeps a buyer’s password only as its argon2id hash with the account service’s cost, in the stored batch and in the event', async () => {
    const res = await h.call(
      'accounts_Update',
      el('accounts', el('account', ['id', 'A1'], el('buyers', el('buyer', ['id', 'B1'], ['password', 'Buyer-Secret-1'])))),
    );
    expect(res.status).toBe(200);

    const { received, outbox } = await h.rows();
    const stored = JSON.stringify(received) + JSON.stringify(outbox);
    expect(stored).not.toContain('Buyer-Secret-1');
    const buyer = AccountUpsertReceived.parse(outbox[0] as EventEnvelope).payload.account.buyers?.[0];
    expect(buyer).not.toHaveProperty('password');
    expect(buyer?.id).toBe('B1');
    // The production cost by default: what the account service verifies customers' passwords with (decision 54).
    expect(buyer?.passwordhash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await argon2Verify(buyer?.passwordhash ?? '', 'Buyer-Secret-1')).toBe(true);
    expect(await argon2Verify(buyer?.passwordhash ?? '', 'Buyer-Secret-2')).toBe(false);
    expect(received[0]?.['payload']).toEqual({ id: 'A1', buyers: [{ id: 'B1', passwordhash: buyer?.passwordhash }] });
  });

  it('a client generated from the WSDL calls them and gets OK', async () => {
    const client = await soap.createClientAsync(`${h.url}?wsdl`);
    const login = { username: HARNESS_USER.username, password: HARNESS_USER.password };
    const answers = [
      await client.customers_UpdateAsync({ login, customers: { customer: [{ id: 'C1', store: 2 }] } }),
      await client.paymentterms_UpdateAsync({ login, paymentterms: { paymentterms: [{ id: 'NET30', duedays: '30' }] } }),
      await client.invoices_UpdateAsync({
        login,
        invoices: { invoice: [{ id: 'I1', items: { invoiceitem: [{ itemid: '1' }], additional: [{ key: 'fee' }] } }] },
      }),
      await client.orders_UpdateAsync({
        login,
        orders: {
          order: [{ id: 'O1', internal: true, deliverywindow: { id: 'DW', atonce: false }, products: { product: [{ id: 'L1' }] } }],
        },
      }),
      await client.accounts_UpdateAsync({ login, accounts: { account: [{ id: 'A1', buyers: { buyer: [{ id: 'B1', store: 1 }] } }] } }),
      await client.salesreps_UpdateAsync({ login, salesreps: { salesrep: [{ id: 'R1', mastersalesrep: { salesrep: [{ id: 'R0' }] } }] } }),
      await client.shippingterms_UpdateAsync({ login, shippingterms: { shippingterms: [{ id: 'EXW' }] } }),
    ];

    expect(answers.map(([result]) => result)).toEqual(['OK', 'OK', 'OK', 'OK', 'OK', 'OK', 'OK']);
    const { received } = await h.rows();
    expect(received.map((r) => r['payload'])).toEqual([
      { id: 'C1', store: 2 },
      { id: 'NET30', duedays: '30' },
      { id: 'I1', items: { invoiceitem: [{ itemid: '1' }], additional: [{ key: 'fee' }] } },
      { id: 'O1', internal: true, deliverywindow: { id: 'DW', atonce: false }, products: [{ id: 'L1' }] },
      { id: 'A1', buyers: [{ id: 'B1', store: 1 }] },
      { id: 'R1', mastersalesrep: [{ id: 'R0' }] },
      { id: 'EXW' },
    ]);
  });
});
