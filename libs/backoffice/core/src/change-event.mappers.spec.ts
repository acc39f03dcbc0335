import { AccountUpsertReceived, CustomerUpsertReceived, MarketUpsertReceived, ProductUpsertReceived } from '@commerce/backoffice-contracts';
import { ProductUpserted } from '@commerce/catalog-contracts';
import { CHANGE_EVENT_MAPPERS, changeEventsOf, changeEventTopics, offsetDate, type MapperContext } from './change-event.mappers';

const context = (echo: boolean, soapRequests: string[] = []): MapperContext => ({
  echo,
  causedBySoap: async (e) => e.requestId !== undefined && soapRequests.includes(e.requestId),
});

describe('the change-event mappers', () => {
  it('subscribe to the catalog and the orders always and to the SOAP upserts only when echoing', () => {
    expect(changeEventTopics(CHANGE_EVENT_MAPPERS, false).sort()).toEqual(['catalog.product.v1', 'order.order.v1']);
    expect(changeEventTopics(CHANGE_EVENT_MAPPERS, true).sort()).toEqual(['backoffice.upsert.v1', 'catalog.product.v1', 'order.order.v1']);
  });

  it('map ProductUpserted to a stock event naming the ERP product, unless a SOAP request of ours caused it', async () => {
    const event = ProductUpserted.create('7', { productId: '7', externalId: 'P7' }, 'req-1');
    expect(await changeEventsOf(CHANGE_EVENT_MAPPERS, event, context(false))).toEqual([
      { type: 'stock', entry: 'P7', mission: 'update', date: offsetDate(event.occurredAt), data: { stock: { product: { id: 'P7' } } } },
    ]);
    expect(await changeEventsOf(CHANGE_EVENT_MAPPERS, event, context(false, ['req-1']))).toEqual([]);
    expect(await changeEventsOf(CHANGE_EVENT_MAPPERS, event, context(true, ['req-1']))).toHaveLength(1);
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
