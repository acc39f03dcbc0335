import { PaymentAuthorized, PaymentCancelled, PaymentDeclined } from '@commerce/payment-contracts';
import type { OrderClient, OrderDto, PaidAttemptCompletion } from '@commerce/order-contracts';
import { createDbEngine, migrate, type Db, type DbEngine } from '@commerce/shared-db';
import { createLogger } from '@commerce/shared-logging';
import { uniqueName } from '@commerce/shared-testing';
import { placeOrder } from '@commerce/order-core';
import { orderMigrations } from '../order.migrations';
import { createOrderRepository } from '../order.knex-repository';
import { placeOrderCommand } from '../testing/place-order.fixture';
import { paymentAuthorizedConsumer } from './payment-authorized.consumer';

const logger = createLogger('order-test', 'silent');
let engine: DbEngine;
let db: Db;

beforeAll(async () => {
  engine = await createDbEngine('pglite://memory');
  db = engine.forSchema(uniqueName('order'));
  await migrate(db, orderMigrations);
}, 60_000);
afterAll(async () => {
  await engine?.close();
});

const T0 = Date.parse('2026-11-22T12:00:00.000Z');
const authorized = (attemptId: string, occurredAt: number) => ({
  ...PaymentAuthorized.create(attemptId, { attemptId, selectionId: 's1', paymentMethod: 'test-card', amountMinor: 100, currency: 'SEK' }),
  occurredAt: new Date(occurredAt).toISOString(),
});
const anOrder = { id: 'o1', order: '1001' } as OrderDto;

/**
 * The consumer with a clock standing at `at`, a wait that moves it, and an order client whose edge places
 * the attempt's order at `edgePlacesAt` (never when undefined).
 */
function harness(options: { at: number; graceMs?: number; edgePlacesAt?: number; selectionLeftOpen?: boolean; cartFails?: boolean }) {
  let clock = options.at;
  const waits: number[] = [];
  const completed: string[] = [];
  const closed: string[] = [];
  const orders: Pick<OrderClient, 'completePaidAttempt'> = {
    completePaidAttempt: async (attemptId): Promise<PaidAttemptCompletion> => {
      completed.push(attemptId);
      return { placed: true, order: anOrder };
    },
  };
  const repository = createOrderRepository(db);
  const placed = new Set<string>();
  /** The order service's own read (and record) on its real repository; the edge's order placed once its time came. */
  const checkoutOf = async (attemptId: string, consumed?: { consumer: string; eventId: string }) => {
    if (options.edgePlacesAt !== undefined && clock >= options.edgePlacesAt && !placed.has(attemptId)) {
      placed.add(attemptId);
      await placeOrder({ orders: repository }, placeOrderCommand({ paymentAttemptId: attemptId }), {
        selectionLeftOpen: options.selectionLeftOpen ?? false,
      });
    }
    return repository.checkoutOf(attemptId, consumed);
  };
  const consumer = paymentAuthorizedConsumer({
    db,
    logger,
    orders,
    checkoutOf: (attemptId, consumed) => checkoutOf(attemptId, consumed),
    cart: {
      closeSelection: async (id) => {
        if (options.cartFails) throw new Error('cart down');
        closed.push(id);
      },
    },
    ...(options.graceMs === undefined ? {} : { graceMs: options.graceMs }),
    now: () => clock,
    sleep: async (ms) => {
      waits.push(ms);
      clock += ms;
    },
  });
  return { consumer, waits, completed, closed, checkoutOf };
}

describe('the PaymentAuthorized consumer', () => {
  it('leaves a fresh attempt to the edge for the grace period, and does not complete it again when the edge did', async () => {
    const attemptId = uniqueName('a');
    const { consumer, waits, completed } = harness({ at: T0 + 200, graceMs: 3000, edgePlacesAt: T0 + 400 });

    await consumer.handle(authorized(attemptId, T0));

    expect(waits).toEqual([2800]);
    expect(completed).toEqual([]);
  });

  it('leaves the selection of an attempt the edge placed the order of alone: the saga closed it before placing the order', async () => {
    const { consumer, completed, closed } = harness({ at: T0 + 200, graceMs: 3000, edgePlacesAt: T0 + 400 });

    await consumer.handle(authorized(uniqueName('a'), T0));

    expect(completed).toEqual([]);
    expect(closed).toEqual([]);
  });

  it('closes the selection of an order the saga placed with its selection left open (the cart failed at the closing)', async () => {
    const { consumer, completed, closed } = harness({ at: T0 + 200, graceMs: 3000, edgePlacesAt: T0 + 400, selectionLeftOpen: true });
    const event = authorized(uniqueName('a'), T0);

    await consumer.handle(event);

    expect(completed).toEqual([]);
    expect(closed).toEqual(['s1']);
    expect(await db.table('processed_events').where({ event_id: event.id }).select('consumer')).toEqual([{ consumer: 'order-payments' }]);
  });

  it('reads the order the edge placed and records the event in one statement; a left-open one only once it is closed (issue 28)', async () => {
    const sent: string[] = [];
    const listen = (q: { sql: string }) => void sent.push(q.sql);
    const done = harness({ at: T0 + 200, graceMs: 3000, edgePlacesAt: T0 + 200 });
    const open = harness({ at: T0 + 200, graceMs: 3000, edgePlacesAt: T0 + 200, selectionLeftOpen: true, cartFails: true });
    const [doneEvent, openEvent] = [authorized(uniqueName('a'), T0), authorized(uniqueName('a'), T0)];
    const recorded = async (event: { id: string }) =>
      (await db.table('processed_events').where({ event_id: event.id }).select('consumer')).length;
    // The orders placed by the harness's edge first, so only the consumer's own statements are counted below.
    await done.checkoutOf(doneEvent.payload.attemptId);
    await open.checkoutOf(openEvent.payload.attemptId);

    db.knex.on('query', listen);
    try {
      await done.consumer.handle(doneEvent);
      expect(sent).toHaveLength(1);
    } finally {
      db.knex.off('query', listen);
    }
    expect(await recorded(doneEvent)).toBe(1);
    await expect(open.consumer.handle(openEvent)).rejects.toThrow('cart down');
    expect(await recorded(openEvent)).toBe(0);
  });

  it('reads and records on the all-in-one’s schema, `order`, a keyword of SQL', async () => {
    const keyword = engine.forSchema('order');
    await migrate(keyword, orderMigrations);
    const repository = createOrderRepository(keyword);
    const order = await placeOrder({ orders: repository }, placeOrderCommand());
    const consumed = { consumer: 'order-payments', eventId: uniqueName('e') };
    expect(await repository.checkoutOf(order.paymentAttemptId, consumed)).toEqual({ order: order.order, selectionLeftOpen: false });
    expect(await keyword.table('processed_events').where({ event_id: consumed.eventId }).select('consumer')).toEqual([
      { consumer: 'order-payments' },
    ]);
  });

  it('completes a fresh attempt the edge has not completed when the grace period is over (the visitor never came back)', async () => {
    const attemptId = uniqueName('a');
    const { consumer, waits, completed } = harness({ at: T0 + 50, graceMs: 3000 });

    await consumer.handle(authorized(attemptId, T0));

    expect(waits).toEqual([2950]);
    expect(completed).toEqual([attemptId]);
  });

  it('does not wait for an event older than the grace period (a backlog), and completes it only when it has no order', async () => {
    const done = uniqueName('a');
    const open = uniqueName('a');
    const { consumer, waits, completed } = harness({ at: T0 + 60_000, graceMs: 3000, edgePlacesAt: T0 + 60_000 });
    await consumer.handle(authorized(done, T0));
    expect(completed).toEqual([]);

    const orphan = harness({ at: T0 + 60_000, graceMs: 3000 });
    await orphan.consumer.handle(authorized(open, T0));

    expect([...waits, ...orphan.waits]).toEqual([]);
    expect(orphan.completed).toEqual([open]);
  });

  it('waits no longer than the grace period when the event is stamped ahead of this clock', async () => {
    const { consumer, waits, completed } = harness({ at: T0, graceMs: 3000 });

    await consumer.handle(authorized(uniqueName('a'), T0 + 120_000));

    expect(waits).toEqual([3000]);
    expect(completed).toHaveLength(1);
  });

  it('with no grace period completes at once without asking for the order first', async () => {
    const attemptId = uniqueName('a');
    const { consumer, waits, completed } = harness({ at: T0, graceMs: 0, edgePlacesAt: T0 });

    await consumer.handle(authorized(attemptId, T0));

    expect(waits).toEqual([]);
    expect(completed).toEqual([attemptId]);
  });

  it('records the event as consumed either way, and ignores the topic’s other events', async () => {
    const skipped = uniqueName('a');
    const cancelled = uniqueName('a');
    const { consumer, completed, waits } = harness({ at: T0, graceMs: 1000, edgePlacesAt: T0 });
    const event = authorized(skipped, T0);
    await consumer.handle(event);
    await consumer.handle({
      ...PaymentCancelled.create(cancelled, {
        attemptId: cancelled,
        selectionId: 's',
        paymentMethod: 'm',
        amountMinor: 1,
        currency: 'SEK',
      }),
    });

    expect(completed).toEqual([]);
    expect(waits).toEqual([1000]);
    const recorded = await db.table('processed_events').where({ event_id: event.id }).select('consumer');
    expect(recorded).toEqual([{ consumer: 'order-payments' }]);
  });

  it('applies a PaymentDeclined (a webhook the visitor never followed) at once: the saga releases its stock hold', async () => {
    const declined = uniqueName('a');
    const { consumer, completed, waits } = harness({ at: T0, graceMs: 3000 });
    const event = PaymentDeclined.create(declined, {
      attemptId: declined,
      selectionId: 's',
      paymentMethod: 'm',
      amountMinor: 1,
      currency: 'SEK',
    });

    await consumer.handle(event);

    expect(completed).toEqual([declined]);
    expect(waits).toEqual([]);
    const recorded = await db.table('processed_events').where({ event_id: event.id }).select('consumer');
    expect(recorded).toEqual([{ consumer: 'order-payments' }]);
  });
});
