import { Client } from 'pg';
import type { EventEnvelope } from '@commerce/shared-events';
import { createEventBus, type EventBus, type Subscription } from '@commerce/shared-bus';
import { createLogger } from '@commerce/shared-logging';
import { describeWithEngines, uniqueName } from '@commerce/shared-testing';
import { OrderPlaced, OrderTopics, type OrderDto } from '@commerce/order-contracts';
import { placeOrderCommand } from '../../libs/order/adapters/src/testing/place-order.fixture';
import { runKafkaNamespace, startApp, stopApp, type ServiceProcess } from './processes';

// Issue 10's crash check with a real process kill: apps/order places an order (the order and its
// OrderPlaced outbox row commit together) while its outbox relay is held back, is SIGKILLed before it
// publishes, and the restarted process publishes the event exactly once. Real Postgres (a schema of its
// own) and Kafka (a namespace of its own, so it takes no events from other order services and reads no backlog).
describeWithEngines('the order service killed between placing and publishing', ['postgres', 'kafka'], ({ url }) => {
  const schema = uniqueName('order_crash');
  let env: Record<string, string>;
  const seen: EventEnvelope[] = [];
  let watcher: EventBus;
  let watching: Subscription;
  let sql: Client;
  const running: ServiceProcess[] = [];

  beforeAll(async () => {
    const namespace = runKafkaNamespace('order-crash');
    env = {
      DATABASE_URL: url('postgres'),
      DATABASE_SCHEMA: schema,
      KAFKA_BROKERS: url('kafka'),
      KAFKA_NAMESPACE: namespace,
      STORE_CONFIG: 'infra/config/demo-store.json',
      // Never reached: no payment is completed here.
      PAYMENT_URL: 'http://127.0.0.1:1',
      CATALOG_URL: 'http://127.0.0.1:1',
      CART_URL: 'http://127.0.0.1:1',
    };
    // A group of its own reading the namespace's order topic from the start: every OrderPlaced the processes publish.
    watcher = await createEventBus(url('kafka'), { clientId: 'order-crash-e2e', logger: createLogger('order-crash', 'silent'), namespace });
    watching = await watcher.subscribe({
      groupId: uniqueName('order_crash_watch'),
      topics: [OrderTopics.ORDER],
      fromBeginning: true,
      handle: async (e) => void seen.push(e),
    });
    sql = new Client({ connectionString: url('postgres') });
    await sql.connect();
  }, 60_000);

  afterAll(async () => {
    await Promise.all(running.filter((s) => s.child.exitCode === null && s.child.signalCode === null).map(stopApp));
    await watching?.stop();
    await watcher?.close();
    await sql?.query(`drop schema if exists "${schema}" cascade`);
    await sql?.end();
  }, 60_000);

  const placedEventsOf = (orderId: string) => seen.filter((e) => e.key === orderId && OrderPlaced.matches(e));
  const pendingRowsOf = async (orderId: string) =>
    (await sql.query(`select id from "${schema}".outbox where key = $1 and sent_at is null`, [orderId])).rows as Array<{ id: string }>;
  const place = async (service: ServiceProcess, command: ReturnType<typeof placeOrderCommand>) => {
    const res = await fetch(`${service.url}/internal/order/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(command),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as OrderDto;
  };

  it('publishes the OrderPlaced of an order placed just before a SIGKILL exactly once after the restart', async () => {
    // The relay is held back for ten minutes: the order is committed, its event is not published.
    const first = await startApp('order', { ...env, OUTBOX_RELAY_START_DELAY_MS: '600000' });
    running.push(first);
    const command = placeOrderCommand();
    const order = await place(first, command);
    const pending = await pendingRowsOf(order.id);
    expect(pending).toHaveLength(1);

    const killed = new Promise<NodeJS.Signals | null>((resolve) => first.child.once('exit', (_code, signal) => resolve(signal)));
    first.child.kill('SIGKILL');
    expect(await killed).toBe('SIGKILL');
    expect(placedEventsOf(order.id)).toEqual([]);
    expect(await pendingRowsOf(order.id)).toHaveLength(1);

    // Restarted normally: the relay publishes what the dead process committed.
    const second = await startApp('order', env);
    running.push(second);
    const started = Date.now();
    while (placedEventsOf(order.id).length === 0 && Date.now() - started < 45_000) await new Promise((r) => setTimeout(r, 100));
    // As long again (at least 3 s) for a duplicate that must not come; the same placing again answers the same order.
    expect((await place(second, command)).id).toBe(order.id);
    await new Promise((r) => setTimeout(r, Math.max(3000, Date.now() - started)));
    const events = placedEventsOf(order.id);
    expect(events).toHaveLength(1);
    expect(events[0]!.id).toBe(pending[0]!.id);
    expect(OrderPlaced.parse(events[0]!).payload.order.order).toBe(order.order);
    expect(await pendingRowsOf(order.id)).toEqual([]);
    expect(await stopApp(second)).toBe(0);
  }, 180_000);
});
