import { randomUUID } from 'node:crypto';
import { createMemoryBus, type EventEnvelope, type MemoryBus } from '@commerce/shared-bus';
import type { Db } from '@commerce/shared-db';
import { rowsRead } from '@commerce/shared-testing';
import { createLogger } from '@commerce/shared-logging';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpApp, mountRouters } from '@commerce/shared-http';
import { createOrderHttpClient, OrderPlaced, type OrderClient } from '@commerce/order-contracts';
import { buildOrderService, type OrderService } from './order.service';
import { placeOrderCommand } from './testing/place-order.fixture';

const logger = createLogger('order-test', 'silent');

/**
 * The order service's behaviour through its client, run on PGlite (unit) and on Postgres (int), in process
 * or over its internal HTTP API (`createOrderHttpClient`, as the edge calls it in a deployment).
 */
export function orderContract(name: string, db: () => Promise<Db>, options: { overHttp?: boolean } = {}) {
  describe(`order service on ${name}${options.overHttp ? ' over HTTP' : ''}`, () => {
    let service: OrderService;
    let client: OrderClient;
    let server: Server | undefined;
    let bus: MemoryBus;
    let schemaDb: Db;

    beforeAll(async () => {
      schemaDb = await db();
      bus = createMemoryBus({ logger, retryBaseMs: 1 });
      service = await buildOrderService({ db: schemaDb, bus, logger });
      client = service.client;
      if (options.overHttp) {
        const app = createHttpApp({ service: 'order', logger, metrics: false });
        mountRouters(app, [service.router]);
        const listening = createServer(app.callback());
        server = listening;
        await new Promise<void>((r) => listening.listen(0, '127.0.0.1', r));
        client = createOrderHttpClient(`http://127.0.0.1:${(listening.address() as AddressInfo).port}`);
      }
    }, 60_000);
    afterAll(async () => {
      await new Promise((r) => (server ? server.close(r) : r(undefined)));
      await service?.stop();
      await bus?.close();
    });

    const outboxOf = async (orderId: string): Promise<EventEnvelope[]> =>
      ((await schemaDb.table('outbox').where({ key: orderId }).orderBy('seq').select('envelope')) as Array<{ envelope: unknown }>).map(
        (r) => (typeof r.envelope === 'string' ? JSON.parse(r.envelope) : r.envelope) as EventEnvelope,
      );

    it('places an order as untouched (Pending) with the snapshot it was given, and records OrderPlaced in the outbox', async () => {
      const command = placeOrderCommand({ customerId: 'c-place' });
      const order = await client.placeOrder(command);
      expect(order).toMatchObject({
        status: 'untouched',
        statusDescription: 'Pending',
        paymentAttemptId: command.paymentAttemptId,
        customerId: 'c-place',
        lines: command.lines,
        totals: command.totals,
        shipments: [],
        cancelled: [],
        invoices: [],
      });
      expect(order.order).toMatch(/^\d+$/);
      expect(await client.getOrder(order.id)).toEqual(order);
      const events = await outboxOf(order.id);
      expect(events.map((e) => e.type)).toEqual(['OrderPlaced']);
      expect(OrderPlaced.parse(events[0]!).payload.order).toEqual(order);
    });

    it('places an order in one statement (no look first, no transaction around it) and reads one with its lists in one (issue 28)', async () => {
      const sent: string[] = [];
      const listen = (q: { sql: string }) => void sent.push(q.sql);
      const statementsOf = async (run: () => Promise<unknown>) => {
        sent.length = 0;
        schemaDb.knex.on('query', listen);
        try {
          await run();
        } finally {
          schemaDb.knex.off('query', listen);
        }
        return [...sent];
      };
      const command = placeOrderCommand({ customerId: 'c-statements' });
      const placing = await statementsOf(() => client.placeOrder(command));
      // The number, the order, the customer's count and OrderPlaced: one statement, its own transaction.
      expect(placing).toHaveLength(1);
      expect(placing[0]).toMatch(/^with number as /);
      expect((await client.listCustomerOrders('c-statements', 0, null)).totalSize).toBe(1);
      let order;
      const reading = await statementsOf(async () => (order = await client.getOrderByPaymentAttempt(command.paymentAttemptId)));
      expect(reading).toHaveLength(1);
      expect(order).toMatchObject({ paymentAttemptId: command.paymentAttemptId, shipments: [], cancelled: [], invoices: [] });
    });

    it('reads an attempt’s checkout and records a consumed event with it only when its selection is closed (issue 28)', async () => {
      const consumer = `c-${Date.now()}`;
      const records = async () =>
        (await schemaDb.table('processed_events').where({ consumer }).orderBy('event_id').select('event_id')).map(
          (r: { event_id: string }) => r.event_id,
        );
      const closed = await client.placeOrder(placeOrderCommand());
      const left = placeOrderCommand();
      await service.orders.place(
        (number) => ({ ...closed, paymentAttemptId: left.paymentAttemptId, id: randomUUID(), order: number }),
        () => [],
        { selectionLeftOpen: true },
      );
      expect(await service.orders.checkoutOf(closed.paymentAttemptId, { consumer, eventId: 'e1' })).toEqual({
        order: closed.order,
        selectionLeftOpen: false,
      });
      expect(await service.orders.checkoutOf(closed.paymentAttemptId, { consumer, eventId: 'e1' })).toEqual({
        order: closed.order,
        selectionLeftOpen: false,
      });
      expect(await service.orders.checkoutOf(left.paymentAttemptId, { consumer, eventId: 'e2' })).toMatchObject({
        selectionLeftOpen: true,
      });
      expect(await service.orders.checkoutOf('no-such-attempt', { consumer, eventId: 'e3' })).toBeNull();
      expect(await records()).toEqual(['e1']);
    });

    it('answers the same order for every placing of one payment attempt, concurrent ones included, with one event', async () => {
      const command = placeOrderCommand({ customerId: 'c-dup' });
      const orders = await Promise.all(Array.from({ length: 20 }, () => client.placeOrder(command)));
      expect(new Set(orders.map((o) => o.id)).size).toBe(1);
      expect(new Set(orders.map((o) => o.order)).size).toBe(1);
      expect(await client.placeOrder({ ...command, message: 'a later, different command' })).toEqual(orders[0]);
      expect(await outboxOf(orders[0]!.id)).toHaveLength(1);
      expect((await client.listCustomerOrders('c-dup', 0, null)).totalSize).toBe(1);
      expect(await client.getOrderByPaymentAttempt(command.paymentAttemptId)).toEqual(orders[0]);
      // Twenty transactions on one PGlite connection: seconds on a loaded machine, past jest's default 5 s.
    }, 30_000);

    it('numbers orders per store, increasing and unique, and gives a number back when a duplicate placing rolls back', async () => {
      const store = `store-${Date.now()}`;
      const first = await client.placeOrder(placeOrderCommand({ store }));
      const command = placeOrderCommand({ store });
      await Promise.all([client.placeOrder(command), client.placeOrder(command)]);
      const third = await client.placeOrder(placeOrderCommand({ store }));
      const numbers = [first.order, (await client.getOrderByPaymentAttempt(command.paymentAttemptId))!.order, third.order].map(Number);
      expect(numbers).toEqual([1, 2, 3]);
      const elsewhere = await client.placeOrder(placeOrderCommand({ store: `${store}-b` }));
      expect(elsewhere.order).toBe('1');
    });

    it('lists a customer’s orders newest first, paged, with the total, and no one else’s', async () => {
      const customer = `c-list-${Date.now()}`;
      const placed = [];
      for (let i = 0; i < 5; i++) placed.push(await client.placeOrder(placeOrderCommand({ customerId: customer })));
      await client.placeOrder(placeOrderCommand({ customerId: `${customer}-other` }));
      const all = await client.listCustomerOrders(customer, 0, null);
      expect(all.totalSize).toBe(5);
      expect(all.orders.map((o) => o.id)).toEqual(placed.map((o) => o.id).reverse());
      const page = await client.listCustomerOrders(customer, 1, 2);
      expect(page).toEqual({ orders: all.orders.slice(1, 3), totalSize: 5 });
      expect(await client.listCustomerOrders(customer, 10, 2)).toEqual({ orders: [], totalSize: 5 });
      expect(await client.listCustomerOrders('nobody', 0, 10)).toEqual({ orders: [], totalSize: 0 });
    });

    if (!options.overHttp) {
      it('reads a page of history, not the history: the same rows at 10 orders and at 10,010', async () => {
        const few = `c-few-${Date.now()}`;
        const many = `c-many-${Date.now()}`;
        for (let i = 0; i < 10; i++) await client.placeOrder(placeOrderCommand({ customerId: few }));
        const first = await client.placeOrder(placeOrderCommand({ customerId: many }));
        for (let i = 0; i < 9; i++) await client.placeOrder(placeOrderCommand({ customerId: many }));
        // 10,000 older orders of the same shape at once (placing them one by one would take minutes here).
        await schemaDb.knex.raw(
          `insert into ??.orders (id, store, number, payment_attempt_id, customer_id, placed_at, status, version, snapshot)
           select gen_random_uuid(), 'bulk-' || o.id, g, 'bulk-' || o.id || '-' || g, o.customer_id,
                  o.placed_at - make_interval(secs => g), 'untouched', 1, o.snapshot
           from ??.orders o, generate_series(1, 10000) g where o.id = ?`,
          [schemaDb.schema, schemaDb.schema, first.id],
        );
        await schemaDb.knex.raw('update ??.customer_order_counts set orders = orders + 10000 where customer_id = ?', [
          schemaDb.schema,
          many,
        ]);
        await schemaDb.knex.raw('analyze ??.orders', [schemaDb.schema]);

        const page = (customer: string) => client.listCustomerOrders(customer, 0, 10);
        expect((await page(many)).totalSize).toBe(10_010);
        expect((await page(many)).orders.map((o) => o.id)).toContain(first.id);
        const atTen = await rowsRead(schemaDb, 'orders', () => page(few));
        const atTenThousand = await rowsRead(schemaDb, 'orders', () => page(many));
        expect(atTen).toBe(10);
        expect(atTenThousand).toBe(10);
      }, 120_000);
    }

    it('refuses an invalid command naming the fields, and places nothing', async () => {
      const command = placeOrderCommand();
      const bad = { ...command, currency: 'kronor', lines: [] } as never;
      await expect(client.placeOrder(bad)).rejects.toMatchObject({
        kind: 'invalid',
        fields: { currency: expect.any(String), lines: expect.any(String) },
      });
      expect(await client.getOrderByPaymentAttempt(command.paymentAttemptId)).toBeNull();
    });

    it('refuses paging that is not a whole number in range', async () => {
      await expect(client.listCustomerOrders('c', -1, 10)).rejects.toMatchObject({ kind: 'invalid', fields: { from: expect.any(String) } });
      await expect(client.listCustomerOrders('c', 0, 1.5)).rejects.toMatchObject({ kind: 'invalid', fields: { size: expect.any(String) } });
    });

    it('answers null for an order that does not exist, whatever the id looks like', async () => {
      expect(await client.getOrder('00000000-0000-4000-8000-000000000000')).toBeNull();
      expect(await client.getOrder('not-a-uuid')).toBeNull();
    });
  });
}
