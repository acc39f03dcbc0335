import { AccountUpsertReceived, CustomerUpsertReceived, MarketUpsertReceived, ProductUpsertReceived } from '@commerce/erp-contracts';
import { ProductUpserted, StockChanged, StockCommitted } from '@commerce/catalog-contracts';
import { CustomerChanged, CustomerRegistered } from '@commerce/account-contracts';
import { CHANGE_EVENT_MAPPERS, changeEventsOf, changeEventTopics, offsetDate, type MapperContext } from './change-event.mappers';

const context = (echo: boolean, soapRequests: string[] = []): MapperContext => ({
  echo,
  causedBySoap: async (e) => e.requestId !== undefined && soapRequests.includes(e.requestId),
});

describe('the change-event mappers', () => {
  it('subscribe to the catalog, the orders and the customers always and to the SOAP upserts only when echoing', () => {
    expect(changeEventTopics(CHANGE_EVENT_MAPPERS, false).sort()).toEqual([
      'account.customer.v1',
      'catalog.product.v1',
      'catalog.stock.v1',
      'order.order.v1',
    ]);
    expect(changeEventTopics(CHANGE_EVENT_MAPPERS, true).sort()).toEqual([
      'account.customer.v1',
      'backoffice.upsert.v1',
      'catalog.product.v1',
      'catalog.stock.v1',
      'order.order.v1',
    ]);
  });

  it('map CustomerRegistered and CustomerChanged to a customer event in the SOAP shape, by the ERP id when the ERP sent the customer', async () => {
    const address = {
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      address1: 'Street 1',
      address2: '',
      city: 'London',
      state: '',
      country: 'GB',
      phoneNumber: '+44 1',
      zipCode: 'N1',
    };
    const registered = CustomerRegistered.create('u-1', { customerId: 'u-1', address });
    expect(await changeEventsOf(CHANGE_EVENT_MAPPERS, registered, context(false))).toEqual([
      {
        type: 'customer',
        entry: 'u-1',
        mission: 'update',
        date: offsetDate(registered.occurredAt),
        data: {
          customer: {
            id: 'u-1',
            firstname: 'Ada',
            lastname: 'Lovelace',
            address1: 'Street 1',
            address2: '',
            city: 'London',
            state: '',
            zipcode: 'N1',
            country: 'GB',
            email: 'ada@example.com',
            telephone: '+44 1',
          },
        },
      },
    ]);
    const changed = CustomerChanged.create('u-2', { customerId: 'u-2', externalId: 'C-7', address });
    expect(await changeEventsOf(CHANGE_EVENT_MAPPERS, changed, context(false))).toMatchObject([
      { entry: 'C-7', data: { customer: { id: 'C-7' } } },
    ]);
  });

  it('map ProductUpserted to a stock event naming the ERP product, unless a SOAP request of ours caused it', async () => {
    const event = ProductUpserted.create('7', { productId: '7', externalId: 'P7' }, 'req-1');
    expect(await changeEventsOf(CHANGE_EVENT_MAPPERS, event, context(false))).toEqual([
      { type: 'stock', entry: 'P7', mission: 'update', date: offsetDate(event.occurredAt), data: { stock: { product: { id: 'P7' } } } },
    ]);
    expect(await changeEventsOf(CHANGE_EVENT_MAPPERS, event, context(false, ['req-1']))).toEqual([]);
    expect(await changeEventsOf(CHANGE_EVENT_MAPPERS, event, context(true, ['req-1']))).toHaveLength(1);
  });

  it('map StockChanged to one stock event per item with its quantities, unless a SOAP request of ours caused it', async () => {
    const event = StockChanged.create(
      '7',
      {
        productId: '7',
        externalId: 'P7',
        items: [
          {
            variation: 'P7-V1',
            size: 'S-M',
            sku: 'SK-M',
            ean: '735',
            qty: 5,
            warehouses: [
              { id: 'W-STO', qty: 3 },
              { id: 'W-BER', qty: 2 },
            ],
          },
          { variation: 'P7-V1', size: 'S-L', sku: 'SK-L', ean: '736', qty: 0 },
        ],
      },
      'req-2',
    );
    expect(await changeEventsOf(CHANGE_EVENT_MAPPERS, event, context(false))).toEqual([
      {
        type: 'stock',
        entry: 'P7',
        mission: 'update',
        date: offsetDate(event.occurredAt),
        data: {
          stock: {
            product: { id: 'P7' },
            variation: { id: 'P7-V1' },
            size: { id: 'S-M' },
            sku: 'SK-M',
            ean: '735',
            qty: '5',
            warehouseitems: [
              { id: 'W-STO', qty: '3' },
              { id: 'W-BER', qty: '2' },
            ],
          },
        },
      },
      {
        type: 'stock',
        entry: 'P7',
        mission: 'update',
        date: offsetDate(event.occurredAt),
        data: { stock: { product: { id: 'P7' }, variation: { id: 'P7-V1' }, size: { id: 'S-L' }, sku: 'SK-L', ean: '736', qty: '0' } },
      },
    ]);
    expect(await changeEventsOf(CHANGE_EVENT_MAPPERS, event, context(false, ['req-2']))).toEqual([]);
    expect(await changeEventsOf(CHANGE_EVENT_MAPPERS, event, context(true, ['req-2']))).toHaveLength(2);
  });

  it('map an order’s StockCommitted to the events a StockChanged of each of its products gave, in its order, unless a SOAP request of ours caused it', async () => {
    const quiet = { productId: '7', externalId: 'P7', items: [{ variation: 'P7-V1', size: 'S-M', sku: 'SK-M', ean: '735', qty: 4 }] };
    const soldOut = {
      productId: '3',
      externalId: 'P3',
      items: [
        { variation: 'P3-V1', size: 'S-S', sku: 'SK3-S', ean: '301', qty: 0 },
        { variation: 'P3-V2', size: 'S-S', sku: 'SK3-T', ean: '302', qty: 2 },
      ],
    };
    const committed = StockCommitted.create('stock-commits', { products: [{ ...quiet, republished: false }, soldOut] }, 'req-9');
    const undated = (events: Array<{ date: string }>) => events.map(({ date: _date, ...rest }) => rest);
    const each = [
      ...(await changeEventsOf(CHANGE_EVENT_MAPPERS, StockChanged.create('7', { ...quiet, republished: false }), context(false))),
      ...(await changeEventsOf(CHANGE_EVENT_MAPPERS, StockChanged.create('3', soldOut), context(false))),
    ];
    const mapped = await changeEventsOf(CHANGE_EVENT_MAPPERS, committed, context(false));
    expect(undated(mapped)).toEqual(undated(each));
    expect(mapped.map((e) => [e.entry, (e.data as { stock: { sku?: string } }).stock.sku])).toEqual([
      ['P7', undefined],
      ['P7', 'SK-M'],
      ['P3', 'SK3-S'],
      ['P3', 'SK3-T'],
    ]);
    expect(new Set(mapped.map((e) => e.date))).toEqual(new Set([offsetDate(committed.occurredAt)]));
    expect(await changeEventsOf(CHANGE_EVENT_MAPPERS, committed, context(false, ['req-9']))).toEqual([]);
  });

  it('map a StockChanged the catalog did not re-publish the product for to the product-level stock event its ProductUpserted gave, then the items', async () => {
    const item = { variation: 'P7-V1', size: 'S-M', sku: 'SK-M', ean: '735', qty: 4 };
    const quiet = StockChanged.create('7', { productId: '7', externalId: 'P7', items: [item], republished: false });
    const upserted = ProductUpserted.create('7', { productId: '7', externalId: 'P7' });
    const republishedFeed = [
      ...(await changeEventsOf(CHANGE_EVENT_MAPPERS, upserted, context(false))),
      ...(await changeEventsOf(
        CHANGE_EVENT_MAPPERS,
        StockChanged.create('7', { productId: '7', externalId: 'P7', items: [item] }),
        context(false),
      )),
    ].map(({ date: _date, ...rest }) => rest);
    const quietFeed = (await changeEventsOf(CHANGE_EVENT_MAPPERS, quiet, context(false))).map(({ date: _date, ...rest }) => rest);
    // The same feed events as a ProductUpserted beside the StockChanged.
    expect(quietFeed).toEqual(republishedFeed);
    expect(quietFeed).toEqual([
      { type: 'stock', entry: 'P7', mission: 'update', data: { stock: { product: { id: 'P7' } } } },
      {
        type: 'stock',
        entry: 'P7',
        mission: 'update',
        data: { stock: { product: { id: 'P7' }, variation: { id: 'P7-V1' }, size: { id: 'S-M' }, sku: 'SK-M', ean: '735', qty: '4' } },
      },
    ]);
  });

  it('map SOAP upserts only when echoing: market and account by market, no password hash, products none', async () => {
    const customer = CustomerUpsertReceived.envelopeOf({ id: 'C1', firstname: 'A' });
    expect(await changeEventsOf(CHANGE_EVENT_MAPPERS, customer, context(false))).toEqual([]);
    expect(await changeEventsOf(CHANGE_EVENT_MAPPERS, customer, context(true))).toMatchObject([
      { type: 'customer', entry: 'C1', data: { customer: { id: 'C1', firstname: 'A' } } },
    ]);
    const [market] = await changeEventsOf(CHANGE_EVENT_MAPPERS, MarketUpsertReceived.envelopeOf({ id: 'EU' }), context(true));
    expect(market?.market).toBe('EU');
    const account = AccountUpsertReceived.envelopeOf({ id: 'A1', market: { id: 'US' }, buyers: [{ id: 'B', passwordhash: 'scrypt$x$y' }] });
    const [mapped] = await changeEventsOf(CHANGE_EVENT_MAPPERS, account, context(true));
    expect(mapped).toMatchObject({ type: 'account', market: 'US', data: { account: { id: 'A1', buyers: [{ id: 'B' }] } } });
    expect(JSON.stringify(mapped)).not.toContain('scrypt');
    expect(await changeEventsOf(CHANGE_EVENT_MAPPERS, ProductUpsertReceived.envelopeOf({ id: 'P' }), context(true))).toEqual([]);
  });

  it('write dates with an explicit offset', () => {
    expect(offsetDate('2026-03-01T08:00:00.123Z')).toBe('2026-03-01T08:00:00+00:00');
  });
});
