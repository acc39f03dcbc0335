import type { EventEnvelope } from '@commerce/shared-events';
import { createEventBus, type EventBus, type Subscription } from '@commerce/shared-bus';
import { createDbEngine, type Db, type DbEngine } from '@commerce/shared-db';
import { createLogger } from '@commerce/shared-logging';
import { describeWithEngines, uniqueName } from '@commerce/shared-testing';
import { OrderPlaced, OrderTopics } from '@commerce/order-contracts';
import { buildOrderService, type OrderService } from './order.service';
import { placeOrderCommand } from './testing/place-order.fixture';

// The order service on real Postgres and Kafka (issue 10's reliability checks): one order and one event
// per payment attempt however many placings race, and an event committed but never published by a
// process that died is published exactly once by the next one.
describeWithEngines('order service on Postgres and Kafka', ['postgres', 'kafka'], ({ url }) => {
  const logger = createLogger('order-int', 'silent');
  const opened: Array<() => Promise<void>> = [];
  let schema: string;
  let watcher: EventBus;
  let watching: Subscription;
  const seen: EventEnvelope[] = [];

  const open = async (): Promise<{ engine: DbEngine; db: Db; bus: EventBus; service: OrderService }> => {
    const engine = await createDbEngine(url('postgres'), { poolMax: 10 });
    const db = engine.forSchema(schema);
    const bus = await openBus();
    const service = await buildOrderService({ db, bus, logger });
    opened.push(async () => {
      await service.stop();
      await bus.close();
      await engine.close();
    });
    return { engine, db, bus, service };
  };
  // A Kafka namespace of the suite's own: the order topic holds only this run's events, not every earlier run's backlog.
  const namespace = uniqueName('order_int');
  const openBus = () => createEventBus(url('kafka'), { clientId: 'order-int', logger, namespace });

  beforeAll(async () => {
    schema = uniqueName('order');
    // A group of its own reading the order topic from the start: every order event any process publishes.
    watcher = await openBus();
    watching = await watcher.subscribe({
      groupId: uniqueName('order_int_watch'),
      topics: [OrderTopics.ORDER],
      fromBeginning: true,
      handle: async (e) => void seen.push(e),
    });
  }, 60_000);
  afterAll(async () => {
    for (const close of opened.reverse()) await close().catch(() => undefined);
    await watching?.stop();
    await watcher?.close();
  }, 60_000);

  const placedEventsOf = (orderId: string) => seen.filter((e) => e.key === orderId && OrderPlaced.matches(e));
  /** Waits until the order's OrderPlaced arrived, then as long again (at least 3 s) for any duplicate. */
  const settledEventsOf = async (orderId: string) => {
    const started = Date.now();
    while (placedEventsOf(orderId).length === 0 && Date.now() - started < 30_000) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, Math.max(3000, Date.now() - started)));
    return placedEventsOf(orderId);
  };

  it('50 concurrent placings of one payment attempt make one order, one number and one OrderPlaced on Kafka', async () => {
    const { db, service } = await open();
    await service.start();
    const command = placeOrderCommand({ customerId: uniqueName('c') });
    const answers = await Promise.all(Array.from({ length: 50 }, () => service.client.placeOrder(command)));
    expect(new Set(answers.map((o) => o.id)).size).toBe(1);
    expect(new Set(answers.map((o) => o.order)).size).toBe(1);
    const rows = await db
      .table('orders')
      .where({ payment_attempt_id: command.paymentAttemptId })
      .count<Array<{ count: string }>>({ count: '*' });
    expect(Number(rows[0]!.count)).toBe(1);
    const events = await settledEventsOf(answers[0]!.id);
    expect(events).toHaveLength(1);
    expect(OrderPlaced.parse(events[0]!).payload.order.order).toBe(answers[0]!.order);
  }, 90_000);

  it('an order placed by a process that died before its outbox was relayed is published exactly once by the next process', async () => {
    // The first process places the order (state and outbox row commit together) but dies before its
    // relay runs: it was never started, and its connections are dropped without a flush.
    const first = await open();
    const order = await first.service.client.placeOrder(placeOrderCommand());
    const pending = await first.db.table('outbox').where({ key: order.id }).whereNull('sent_at').select('id');
    expect(pending).toHaveLength(1);
    await first.bus.close();
    await first.engine.close();
    expect(placedEventsOf(order.id)).toEqual([]);

    // The restarted service publishes it, once, and marks it sent; a second replica starting too does not repeat it.
    const second = await open();
    const third = await open();
    await Promise.all([second.service.start(), third.service.start()]);
    const events = await settledEventsOf(order.id);
    expect(events).toHaveLength(1);
    expect(events[0]!.id).toBe(pending[0]!.id);
    const left = await second.db.table('outbox').where({ key: order.id }).whereNull('sent_at').select('id');
    expect(left).toEqual([]);
  }, 120_000);
});
