import { Kafka, logLevel } from 'kafkajs';
import pino from 'pino';
import { createDbEngine, DbAcquireTimeoutError, type Db, type DbEngine } from '@commerce/shared-db';
import { describeWithEngines, uniqueName } from '@commerce/shared-testing';
import { envelope, eventually } from './event-bus.contract';
import { deadLetterTopic, type EventBus, type SubscribeOptions } from './event-bus.port';
import { createKafkaBus } from './kafka-bus';
import { createMemoryBus } from './memory-bus';

// A handler's statement that waits for a pooled connection past DB_ACQUIRE_TIMEOUT_MS (DbAcquireTimeoutError,
// decision 98) used up one of its event's attempts: a pool starved for a few seconds sent a good event to the
// dead-letter topic. Now such a wait is tried again without counting (decision 105). A real Postgres pool of one
// connection, held by a transaction until the handler has been called more often than its attempts allow.
describeWithEngines('Event buses on a starved Postgres pool', ['postgres', 'kafka'], (engines) => {
  const logger = pino({ level: process.env['LOG_LEVEL'] ?? 'silent' });
  const maxAttempts = 3;
  let engine: DbEngine;
  let db: Db;

  beforeAll(async () => {
    engine = await createDbEngine(engines.url('postgres'), { poolMax: 1, acquireTimeoutMs: 300 });
    db = engine.forSchema('public');
  }, 30_000);
  afterAll(() => engine?.close(), 30_000);

  /** Holds the pool's one connection in a transaction until `release` (or 20 s at most). */
  const starvePool = async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
      setTimeout(resolve, 20_000);
    });
    let taken!: () => void;
    const holding = engine.knex.transaction(async (trx) => {
      await trx.raw('select 1');
      taken();
      await held;
    });
    await new Promise<void>((resolve) => (taken = resolve));
    return { release, holding };
  };

  /**
   * Starves the pool, publishes `events` (one request), and frees the pool once the handler met the time-out
   * more often than `maxAttempts`; then every event is applied once, and nothing is dead-lettered.
   */
  const appliedAfterTheWait = async (
    bus: EventBus,
    deadLetters: (topic: string) => Promise<number>,
    subscription: (work: (ids: string[]) => Promise<void>) => Omit<SubscribeOptions, 'groupId' | 'topics'>,
    count: number,
  ) => {
    const topic = uniqueName('starved_pool');
    const applied: string[] = [];
    const timeouts: unknown[] = [];
    /** The handler's work: one statement on the pool, then the events count as applied. */
    const work = async (ids: string[]) => {
      const rows = await db.query<{ n: number }>('select ?::int as n', [ids.length]).catch((error: unknown) => {
        timeouts.push(error);
        throw error;
      });
      expect(rows).toEqual([{ n: ids.length }]);
      applied.push(...ids);
    };
    await bus.subscribe({ groupId: uniqueName('starved_pool'), topics: [topic], maxAttempts, ...subscription(work) });
    const { release, holding } = await starvePool();
    try {
      const requestId = uniqueName('request');
      const events = Array.from({ length: count }, () => envelope(topic, 'k', {}, { requestId }));
      await bus.publish(events);
      await eventually(() => expect(timeouts.length).toBeGreaterThan(maxAttempts), 20_000);
      expect(applied).toEqual([]);
      release();
      await holding;
      await eventually(() => expect(applied).toEqual(events.map((e) => e.id)), 20_000);
      for (const error of timeouts) expect(error).toBeInstanceOf(DbAcquireTimeoutError);
      expect(await deadLetters(topic)).toBe(0);
    } finally {
      release();
      await holding;
    }
  };

  describe('Kafka', () => {
    let bus: Awaited<ReturnType<typeof createKafkaBus>>;
    const admin = () =>
      new Kafka({ clientId: 'starved-pool-admin', brokers: engines.url('kafka').split(','), logLevel: logLevel.NOTHING }).admin();
    /** Messages on the topic's dead-letter topic (created with the subscription), by its partitions' high offsets. */
    const deadLetters = async (topic: string) => {
      const client = admin();
      await client.connect();
      try {
        return (await client.fetchTopicOffsets(deadLetterTopic(topic))).reduce((sum, p) => sum + Number(p.high), 0);
      } finally {
        await client.disconnect();
      }
    };
    beforeAll(async () => {
      bus = await createKafkaBus(engines.url('kafka').split(','), { clientId: 'starved-pool-test', logger });
    }, 30_000);
    afterAll(() => bus?.close(), 30_000);

    it('applies an event whose handler waited for a connection more often than its attempts allow, once the pool frees; nothing dead-lettered', async () => {
      await appliedAfterTheWait(bus, deadLetters, (work) => ({ handle: (e) => work([e.id]) }), 1);
    }, 60_000);

    it('applies a run of one request (handleBatch) that waited so, once the pool frees; nothing dead-lettered', async () => {
      await appliedAfterTheWait(
        bus,
        deadLetters,
        (work) => ({ handle: (e) => work([e.id]), handleBatch: (events) => work(events.map((e) => e.id)) }),
        3,
      );
    }, 60_000);
  });

  describe('the memory bus', () => {
    it('applies an event whose handler waited for a connection more often than its attempts allow, once the pool frees; nothing dead-lettered', async () => {
      const bus = createMemoryBus({ logger });
      try {
        await appliedAfterTheWait(
          bus,
          async (topic) => bus.messages(deadLetterTopic(topic)).length,
          (work) => ({ handle: (e) => work([e.id]) }),
          1,
        );
      } finally {
        await bus.close();
      }
    }, 60_000);
  });
});
