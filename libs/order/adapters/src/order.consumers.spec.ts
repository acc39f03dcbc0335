import { InvoiceUpsertReceived, OrderUpsertReceived, type SoapOrder } from '@commerce/erp-contracts';
import { OrderCancelled, OrderInvoiced, OrderShipped, OrderStatusChanged, OrderTopics } from '@commerce/order-contracts';
import { createMemoryBus, decodeEnvelope, type MemoryBus } from '@commerce/shared-bus';
import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { createLogger } from '@commerce/shared-logging';
import { uniqueName } from '@commerce/shared-testing';
import { buildOrderService, type OrderService } from './order.service';
import { placeOrderCommand } from './testing/place-order.fixture';

const logger = createLogger('order-test', 'silent');
let engine: DbEngine;
let bus: MemoryBus;
let service: OrderService;

beforeAll(async () => {
  engine = await createDbEngine('pglite://memory');
  bus = createMemoryBus({ logger, retryBaseMs: 1 });
  service = await buildOrderService({
    db: engine.forSchema(uniqueName('order')),
    bus,
    logger,
    trackingUrls: { DHL: 'https://dhl.example/track?id={trackingId}' },
  });
  await service.start();
}, 60_000);
afterAll(async () => {
  await service?.stop();
  await bus?.close();
  await engine?.close();
});

/** The back office's upsert as backoffice-soap publishes it, delivered and settled (outbox published). */
async function receive(envelope: ReturnType<typeof OrderUpsertReceived.envelopeOf> | ReturnType<typeof InvoiceUpsertReceived.envelopeOf>) {
  await bus.publish([envelope]);
  await bus.drain();
  await service.relay.flush();
  await bus.drain();
}
const orderEvents = (orderId: string) =>
  bus
    .messages(OrderTopics.ORDER)
    .filter((m) => m.key === orderId)
    .map((m) => decodeEnvelope(m.value));

describe('the back office’s orders and invoices reaching the order service', () => {
  it('applies status, shipments with their tracking page and cancelled lines once, however often the upsert is delivered', async () => {
    const order = await service.client.placeOrder(placeOrderCommand());
    const soap: SoapOrder = {
      id: order.order,
      status: 'Processing',
      shipments: [
        { id: 'S1', shipped: '2026-11-21 08:30:00', carrierinformation: { carrier: 'dhl', service: 'Express', tracking: 'JD0001' } },
      ],
      cancelled: [{ id: 'x', sku: 'SKU-2-3', qty: '1' }],
    };
    const envelope = OrderUpsertReceived.envelopeOf(soap);
    await receive(envelope);
    await receive(envelope);
    const after = (await service.client.getOrder(order.id))!;
    expect(after).toMatchObject({
      status: 'processing',
      statusDescription: 'Processing',
      version: 2,
      shipments: [
        {
          shipment: 'S1',
          shippedDate: '2026-11-21 08:30:00',
          carrier: 'dhl',
          service: 'Express',
          trackingId: 'JD0001',
          trackingUrl: 'https://dhl.example/track?id=JD0001',
        },
      ],
      cancelled: [{ item: '2-3', sku: 'SKU-2-3', quantity: 1 }],
      lines: order.lines,
      totals: order.totals,
    });
    expect(orderEvents(order.id).map((e) => e.type)).toEqual(['OrderPlaced', 'OrderStatusChanged', 'OrderShipped', 'OrderCancelled']);
    const changed = OrderStatusChanged.parse(orderEvents(order.id)[1]!).payload;
    expect(changed).toMatchObject({ previousStatus: 'untouched', status: 'processing', order: { version: 2 } });
    expect(OrderShipped.parse(orderEvents(order.id)[2]!).payload.shipments).toHaveLength(1);
    expect(OrderCancelled.parse(orderEvents(order.id)[3]!).payload.cancelled).toEqual([{ item: '2-3', sku: 'SKU-2-3', quantity: 1 }]);
  });

  it('keeps what a later upsert leaves out, adds a second shipment, and publishes only what changed', async () => {
    const order = await service.client.placeOrder(placeOrderCommand());
    await receive(
      OrderUpsertReceived.envelopeOf({ id: order.order, shipments: [{ id: 'A', carrierinformation: { carrier: 'UPS', tracking: '1Z' } }] }),
    );
    await receive(
      OrderUpsertReceived.envelopeOf({
        id: order.order,
        shipments: [{ id: 'B', carrierinformation: { carrier: 'Bring', tracking: 'https://bring.example/t/77' } }],
      }),
    );
    await receive(OrderUpsertReceived.envelopeOf({ id: order.order, status: 'untouched' }));
    const after = (await service.client.getOrder(order.id))!;
    expect(after.status).toBe('untouched');
    expect(after.shipments.map((s) => [s.shipment, s.carrier, s.trackingId, s.trackingUrl])).toEqual([
      ['A', 'UPS', '1Z', ''],
      ['B', 'Bring', '', 'https://bring.example/t/77'],
    ]);
    expect(orderEvents(order.id).map((e) => e.type)).toEqual(['OrderPlaced', 'OrderShipped', 'OrderShipped']);
  });

  it('keeps an invoice on the order it names, and skips an order or invoice of an order it never placed', async () => {
    const order = await service.client.placeOrder(placeOrderCommand());
    await receive(
      InvoiceUpsertReceived.envelopeOf({
        id: 'INV-1',
        order: { id: order.order },
        total: '274.00',
        currency: 'SEK',
        duedate: '2026-12-22',
      }),
    );
    await receive(OrderUpsertReceived.envelopeOf({ id: '999999', status: 'confirmed' }));
    await receive(InvoiceUpsertReceived.envelopeOf({ id: 'INV-2', order: { id: '999999' } }));
    const after = (await service.client.getOrder(order.id))!;
    expect(after.invoices).toEqual([
      expect.objectContaining({ invoice: 'INV-1', total: '274.00', currency: 'SEK', dueDate: '2026-12-22' }),
    ]);
    expect(OrderInvoiced.parse(orderEvents(order.id).at(-1)!).payload.invoice).toBe('INV-1');
    expect(bus.messages('backoffice.upsert.v1.dlq')).toEqual([]);
  });
});
