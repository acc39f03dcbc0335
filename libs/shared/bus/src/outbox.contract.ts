import { migrate, type Db, type DbEngine } from '@commerce/shared-db';
import { withRequestContext } from '@commerce/shared-logging';
import { uniqueName } from '@commerce/shared-testing';
import type { EventEnvelope } from '@commerce/shared-events';
import type { EncodedEvent, EventBus, Subscription } from './event-bus.port';
import { encodeEnvelope, headersOf } from './envelope-codec';
import { envelope, eventually } from './event-bus.contract';
import {
  consumeOnce,
  enqueue,
  outboxBatch,
  outboxInputSql,
  outboxInsertSql,
  outboxMigrations,
  OutboxRelay,
  recordConsumed,
} from './outbox';

export interface OutboxHarness {
  /** The SQL engine `openDb` opens: Postgres's relays hold a lease and mark a batch at their next turn (decision 186). */
  engine: 'postgres' | 'pglite';
  openDb(): Promise<DbEngine>;
  openBus(): Promise<EventBus>;
  timeoutMs: number;
}

/**
 * A bus that can be made to fail, as Kafka does when the broker is down, and that records what it was
 * given through each of its two ways of publishing.
 */
function breakableBus(bus: EventBus): EventBus & { down: boolean; published: EventEnvelope[][]; encoded: EncodedEvent[][] } {
  const wrapper = {
    down: false,
    published: [] as EventEnvelope[][],
    encoded: [] as EncodedEvent[][],
    kind: bus.kind,
    publish: (events: EventEnvelope[]) => {
      if (wrapper.down) return Promise.reject(new Error('broker down'));
      wrapper.published.push(events);
      return bus.publish(events);
    },
    publishEncoded: (messages: readonly EncodedEvent[]) => {
      if (wrapper.down) return Promise.reject(new Error('broker down'));
      wrapper.encoded.push([...messages]);
      return bus.publishEncoded ? bus.publishEncoded(messages) : Promise.reject(new Error('the bus has no publishEncoded'));
    },
    subscribe: bus.subscribe.bind(bus),
    ping: bus.ping.bind(bus),
    close: bus.close.bind(bus),
  };
  return wrapper;
}

/**
 * The transactional outbox and consumer dedupe: run on PGlite + memory bus (`outbox.spec.ts`) and on
 * Postgres + Kafka (`outbox.int-spec.ts`).
 */
export function outboxContract(harness: OutboxHarness): void {
  const { timeoutMs } = harness;
  let engine: DbEngine;
  let rawBus: EventBus;
  let bus: ReturnType<typeof breakableBus>;
  let db: Db;
  let topic: string;
  const relays: OutboxRelay[] = [];
  const subscriptions: Subscription[] = [];

  beforeAll(async () => {
    [engine, rawBus] = await Promise.all([harness.openDb(), harness.openBus()]);
  }, 60_000);
  afterAll(async () => {
    await rawBus?.close();
    await engine?.close();
  }, 30_000);
  beforeEach(async () => {
    bus = breakableBus(rawBus);
    db = engine.forSchema(uniqueName('outbox'));
    topic = uniqueName('outbox_t');
    await migrate(db, outboxMigrations);
  });
  afterEach(async () => {
    await Promise.all(relays.splice(0).map((r) => r.stop()));
    await Promise.all(subscriptions.splice(0).map((s) => s.stop()));
  }, 30_000);

  const relay = (options: ConstructorParameters<typeof OutboxRelay>[2] = {}) => {
    const r = new OutboxRelay(db, bus, options);
    relays.push(r);
    return r;
  };

  async function received(): Promise<EventEnvelope[]> {
    const got: EventEnvelope[] = [];
    subscriptions.push(await rawBus.subscribe({ groupId: uniqueName('outbox_g'), topics: [topic], handle: async (e) => void got.push(e) }));
    return got;
  }

  /** An outbox row as another process's `enqueue` writes it (the same statement): no relay here hears of it. */
  const writtenElsewhere = (event: EventEnvelope) =>
    db.knex.raw(`with input as (${outboxInputSql}) ${outboxInsertSql('input', ':outbox:')}`, {
      ...outboxBatch([event]),
      outbox: `${db.schema}.outbox`,
    });

  /** Starts a relay and waits out its first poll (a timer of 0 ms), so only a nudge or a later poll publishes. */
  const started = async (r: OutboxRelay) => {
    r.start();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await r.flush();
  };

  const pending = async () => (await db.table('outbox').whereNull('sent_at').count({ n: '*' }))[0]?.n;

  describe('enqueue and OutboxRelay', () => {
    it('publishes nothing that was enqueued in a transaction rolled back', async () => {
      await expect(
        db.transaction(async (trx) => {
          await enqueue(db, trx, [envelope(topic, 'k1')]);
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');

      expect(await relay().flush()).toBe(0);
      expect(await db.table('outbox').count({ n: '*' })).toEqual([{ n: 0 }]);
    });

    it('publishes committed events once, in order, and marks them sent', async () => {
      const got = await received();
      const first = [envelope(topic, 'k1', { n: 1 }), envelope(topic, 'k2', { n: 2 }), envelope(topic, 'k1', { n: 3 })];
      const second = [envelope(topic, 'k1', { n: 4 })];
      await db.transaction((trx) => enqueue(db, trx, first));
      await db.transaction((trx) => enqueue(db, trx, second));
      const r = relay();

      expect(await r.flush()).toBe(4);
      expect(await r.flush()).toBe(0);

      await eventually(() => expect(got).toHaveLength(4), timeoutMs);
      expect(got.filter((e) => e.key === 'k1').map((e) => e.payload)).toEqual([{ n: 1 }, { n: 3 }, { n: 4 }]);
      expect(got.find((e) => e.key === 'k2')).toEqual(first[1]);
      expect(await pending()).toBe(0);
      expect(await db.table('outbox').whereNull('sent_at').select('id')).toEqual([]);
    });

    it('enqueues more events at once than a statement has bind parameters, in order, as written', async () => {
      // 20,000 events × 4 columns was past Postgres's 65,535 parameters of a multi-row insert.
      const events = Array.from({ length: 20_000 }, (_, i) => envelope(topic, `k${i % 7}`, { n: i, text: `"${i}" \\ ✓ 漢` }));
      await db.transaction((trx) => enqueue(db, trx, events));

      const rows = (await db.table('outbox').orderBy('seq').select('id', 'topic', 'key', 'envelope')) as Array<{
        id: string;
        topic: string;
        key: string;
        envelope: unknown;
      }>;
      expect(rows.map((r) => [r.id, r.topic, r.key])).toEqual(events.map((e) => [e.id, e.topic, e.key]));
      expect(rows.map((r) => (typeof r.envelope === 'string' ? JSON.parse(r.envelope) : r.envelope))).toEqual(events);
      // ~5 s on a loaded two-core box against Postgres: more than jest's default.
    }, 30_000);

    it('publishes a batch in one statement on Postgres (issue 28, decision 186): no transaction, the mark carried by the next turn', async () => {
      await db.transaction((trx) => enqueue(db, trx, [envelope(topic, 'k1'), envelope(topic, 'k2')]));
      const r = relay({ batchSize: 2 });
      const sent: string[] = [];
      const listen = (q: { sql: string }) => void sent.push(q.sql);
      db.knex.on('query', listen);
      try {
        expect(await r.flush()).toBe(2);
      } finally {
        db.knex.off('query', listen);
      }
      // A full batch looks again: the second turn finds nothing and marks the first batch sent. PGlite: a read and an
      // update a batch, then the read that finds nothing.
      expect(sent).toHaveLength(db.engine === 'postgres' ? 2 : 3);
      expect(sent.filter((q) => /^(begin|commit)/i.test(q))).toEqual([]);
      expect(await pending()).toBe(0);
    });

    it('publishes in batches until nothing is pending', async () => {
      const events = Array.from({ length: 25 }, (_, i) => envelope(topic, `k${i}`));
      await db.transaction((trx) => enqueue(db, trx, events));

      const r = relay({ batchSize: 10 });
      expect(await r.flush()).toBe(25);
      expect(await r.flush()).toBe(0);
      expect(await pending()).toBe(0);
    });

    it('marks its last batch sent when it stops', async () => {
      const got = await received();
      await db.transaction((trx) => enqueue(db, trx, [envelope(topic, 'k1'), envelope(topic, 'k2'), envelope(topic, 'k3')]));
      const r = relay();

      expect(await r.flush()).toBe(3);
      // On Postgres the batch is marked by the relay's next statement (decision 186); PGlite's as soon as it is out.
      expect(await pending()).toBe(db.engine === 'postgres' ? 3 : 0);
      await r.stop();

      expect(await pending()).toBe(0);
      await eventually(() => expect(got).toHaveLength(3), timeoutMs);
    });

    it('keeps a batch whose publish failed pending, the batch before it marked sent, and publishes each once', async () => {
      const got = await received();
      const first = envelope(topic, 'k1', { n: 1 });
      const second = [envelope(topic, 'k1', { n: 2 }), envelope(topic, 'k2', { n: 3 })];
      await db.transaction((trx) => enqueue(db, trx, [first]));
      const r = relay();
      expect(await r.flush()).toBe(1);
      await db.transaction((trx) => enqueue(db, trx, second));
      bus.down = true;

      await expect(r.flush()).rejects.toThrow('broker down');

      const left = (await db.table('outbox').whereNull('sent_at').orderBy('seq').select('id')) as Array<{ id: string }>;
      expect(left.map((row) => row.id)).toEqual(second.map((e) => e.id));
      bus.down = false;
      expect(await r.flush()).toBe(2);
      await r.stop();
      expect(await pending()).toBe(0);
      // Each once; a key's events in their order.
      await eventually(() => expect(got.map((e) => e.id).sort()).toEqual([first, ...second].map((e) => e.id).sort()), timeoutMs);
      expect(got.filter((e) => e.key === 'k1').map((e) => e.id)).toEqual([first.id, second[0]!.id]);
    });

    it('keeps events pending while the bus fails, and publishes them once it is back', async () => {
      const got = await received();
      const sent = envelope(topic, 'k1');
      await db.transaction((trx) => enqueue(db, trx, [sent]));
      bus.down = true;
      const r = relay({ intervalMs: 20 });

      await expect(r.flush()).rejects.toThrow('broker down');
      expect(await pending()).toBe(1);

      r.start();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await pending()).toBe(1);
      bus.down = false;

      await eventually(() => expect(got.map((e) => e.id)).toEqual([sent.id]), timeoutMs);
      await r.stop();
      expect(await pending()).toBe(0);
    });

    it('publishes a write as soon as its transaction commits, without a nudge or a poll', async () => {
      const got = await received();
      const r = relay({ intervalMs: 600_000 });
      await started(r);
      const sent = envelope(topic, 'k1');

      await db.transaction((trx) => enqueue(db, trx, [sent]));

      await eventually(() => expect(got.map((e) => e.id)).toEqual([sent.id]), timeoutMs);
      // Marked sent after the bus acknowledged: stop waits for that publish.
      await r.stop();
      expect(await pending()).toBe(0);
    });

    it('publishes a write in a nested transaction once the outer one commits, and nothing of one rolled back', async () => {
      const got = await received();
      const r = relay({ intervalMs: 600_000 });
      await started(r);
      const kept = envelope(topic, 'k1');
      const dropped = envelope(topic, 'k2');

      await expect(
        db.transaction(async (trx) => {
          await enqueue(db, trx, [dropped]);
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      await db.transaction(async (trx) => {
        await trx.transaction((inner) => enqueue(db, inner, [kept]));
        // The savepoint is released, the outer transaction is still open: nothing is visible to the relay yet.
        await new Promise((resolve) => setTimeout(resolve, 50));
      });

      await eventually(() => expect(got.map((e) => e.id)).toEqual([kept.id]), timeoutMs);
      expect(await db.table('outbox').count({ n: '*' })).toEqual([{ n: 1 }]);
    });

    it('still finds, at its poll, a row no relay of this process was told about (another replica wrote it)', async () => {
      const got = await received();
      const r = relay({ intervalMs: 50 });
      await started(r);
      const sent = envelope(topic, 'k1');

      // What another process's enqueue writes: the same statement, without this process's nudge.
      await writtenElsewhere(sent);

      await eventually(() => expect(got.map((e) => e.id)).toEqual([sent.id]), timeoutMs);
      // Marked sent after the bus acknowledged: stop waits for that publish.
      await r.stop();
      expect(await pending()).toBe(0);
    });

    it('publishes soon after a nudge, without waiting for the next poll', async () => {
      const got = await received();
      const r = relay({ intervalMs: 60_000 });
      r.start();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const sent = envelope(topic, 'k1');

      await writtenElsewhere(sent);
      r.nudge();

      await eventually(() => expect(got.map((e) => e.id)).toEqual([sent.id]), timeoutMs);
    });

    it('stamps events enqueued inside a request with its request id', async () => {
      const sent = envelope(topic, 'k1');
      await withRequestContext({ requestId: 'req-42' }, () => db.transaction((trx) => enqueue(db, trx, [sent])));

      const [row] = await db.table('outbox').select('envelope', 'type', 'request_id');
      expect(row.envelope).toEqual({ ...sent, requestId: 'req-42' });
      expect([row.type, row.request_id]).toEqual([sent.type, 'req-42']);
    });

    it('publishes each row as the text it was written as, with the headers publish gives it, unparsed (decision 99)', async () => {
      const got = await received();
      const inRequest = envelope(
        topic,
        'k1',
        { text: '"quoted" \\ ✓ 漢 \u0000', n: -0.5, list: [1, null, { a: true }] },
        { type: 'ProductUpserted' },
      );
      const outside = envelope(topic, 'k2', { n: 2 });
      await withRequestContext({ requestId: 'req-7' }, () => db.transaction((trx) => enqueue(db, trx, [inRequest])));
      await db.transaction((trx) => enqueue(db, trx, [outside]));
      const r = relay();

      // Flushed inside another request: what was written goes out, not this request's id.
      expect(await withRequestContext({ requestId: 'req-other' }, () => r.flush())).toBe(2);

      const written = [{ ...inRequest, requestId: 'req-7' }, outside];
      expect(bus.published).toEqual([]);
      expect(bus.encoded.flat()).toEqual(
        written.map((e) => ({ topic: e.topic, key: e.key, value: encodeEnvelope(e), headers: headersOf(e) })),
      );
      await eventually(() => expect(got).toHaveLength(2), timeoutMs);
      expect([...got].sort((a, b) => a.key.localeCompare(b.key))).toEqual(written);
    });

    it('parses and publishes as before a row written before its headers were kept beside it (no type)', async () => {
      const got = await received();
      const old = envelope(topic, 'k1', { n: 1 });
      await writtenElsewhere(old);
      await db.table('outbox').update({ type: null, request_id: null });
      const r = relay();

      expect(await r.flush()).toBe(1);

      expect(bus.encoded).toEqual([]);
      expect(bus.published).toEqual([[old]]);
      await eventually(() => expect(got).toEqual([old]), timeoutMs);
      await r.stop();
      expect(await pending()).toBe(0);
    });

    it('publishes through publish when the bus has no publishEncoded', async () => {
      const got = await received();
      const sent = envelope(topic, 'k1', { n: 1 });
      await db.transaction((trx) => enqueue(db, trx, [sent]));
      const plain: EventBus = { kind: bus.kind, publish: bus.publish, subscribe: bus.subscribe, ping: bus.ping, close: bus.close };
      const r = new OutboxRelay(db, plain);
      relays.push(r);

      expect(await r.flush()).toBe(1);

      expect(bus.published).toEqual([[sent]]);
      await eventually(() => expect(got).toEqual([sent]), timeoutMs);
    });

    it('with two relays on one outbox, publishes every event exactly once', async () => {
      const events = Array.from({ length: 40 }, (_, i) => envelope(topic, `k${i % 4}`, { n: i }));
      await db.transaction((trx) => enqueue(db, trx, events));
      const a = relay({ batchSize: 5 });
      const b = relay({ batchSize: 5 });

      const counts = await Promise.all([a.flush(), b.flush(), a.flush(), b.flush()]);

      expect(counts.reduce((x, y) => x + y, 0)).toBe(40);
      await Promise.all([a.stop(), b.stop()]);
      expect(await pending()).toBe(0);
    });
  });

  if (harness.engine === 'postgres')
    describe("the Postgres relays' lease (decision 186)", () => {
      const leaseRow = async () =>
        (await db.knex.raw('select holder, xmin::text as version from ??.outbox_lease', [db.schema])).rows as Array<{
          holder: string | null;
          version: string;
        }>;

      it('a relay that died after publishing, before marking, is replaced once its lease lapsed, and its batch is published again', async () => {
        const got = await received();
        const events = [envelope(topic, 'k1', { n: 1 }), envelope(topic, 'k2', { n: 2 }), envelope(topic, 'k1', { n: 3 })];
        await db.transaction((trx) => enqueue(db, trx, events));
        // Never stopped: what a process killed between its publish and its next turn leaves behind.
        const dead = new OutboxRelay(db, bus, { leaseMs: 1000 });
        expect(await dead.flush()).toBe(3);
        await eventually(() => expect(got).toHaveLength(3), timeoutMs);
        expect(await pending()).toBe(3);
        const next = relay();

        // The dead relay's lease still holds: nothing is published twice at the same time.
        expect(await next.flush()).toBe(0);
        await eventually(async () => expect(await next.flush()).toBe(3), timeoutMs);

        await eventually(() => expect(got).toHaveLength(6), timeoutMs);
        for (const key of ['k1', 'k2']) {
          const ids = events.filter((e) => e.key === key).map((e) => e.id);
          expect(got.filter((e) => e.key === key).map((e) => e.id)).toEqual([...ids, ...ids]);
        }
        await next.stop();
        expect(await pending()).toBe(0);
      });

      it('two started relays publish one at a time in seq order, and when the holder stops the other takes over at once', async () => {
        const got = await received();
        const buses = [breakableBus(rawBus), breakableBus(rawBus)];
        // A lease far longer than the test: a takeover seen here is the stopped holder's release, not a lapse.
        const both = buses.map((b) => {
          const r = new OutboxRelay(db, b, { intervalMs: 50, leaseMs: 120_000 });
          relays.push(r);
          r.start();
          return r;
        });
        const written: EventEnvelope[] = [];
        const write = async (n: number) => {
          for (let i = 0; i < n; i++) {
            const e = [envelope(topic, `k${i % 3}`, { n: written.length })];
            written.push(...e);
            // Half through this process's enqueue (its relays nudged), half as another replica writes them (the polls).
            if (i % 2 === 0) await db.transaction((trx) => enqueue(db, trx, e));
            else await writtenElsewhere(e[0]!);
          }
        };
        const publishedBy = () => buses.map((b) => b.encoded.flat().length);
        const inOrder = () => {
          for (const key of ['k0', 'k1', 'k2'])
            expect(got.filter((e) => e.key === key).map((e) => e.id)).toEqual(written.filter((e) => e.key === key).map((e) => e.id));
        };

        await write(30);
        await eventually(() => expect(got).toHaveLength(30), timeoutMs);
        inOrder();
        const holder = publishedBy().findIndex((n) => n > 0);
        expect(publishedBy()).toEqual(holder === 0 ? [30, 0] : [0, 30]);
        const [lease] = await leaseRow();
        expect(lease?.holder).not.toBeNull();

        await both[holder]!.stop();
        await write(12);

        await eventually(() => expect(got).toHaveLength(42), timeoutMs);
        inOrder();
        expect(publishedBy()).toEqual(holder === 0 ? [30, 12] : [12, 30]);
        await both[1 - holder]!.stop();
        expect(await pending()).toBe(0);
      });

      it('a nudge queued right before stop does not take the lease back: nothing published after it left, the next relay takes over at its first turn', async () => {
        const got = await received();
        const a = relay({ leaseMs: 120_000 });
        await started(a);
        await writtenElsewhere(envelope(topic, 'k1', { n: 1 }));
        a.nudge();
        await a.stop();
        // A turn after stop, had one run, would publish through a's bus; a flush after stop turns no more.
        expect(await a.flush()).toBe(0);
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(bus.encoded.flat()).toHaveLength(0);

        const next = new OutboxRelay(db, rawBus, { leaseMs: 120_000 });
        relays.push(next);
        expect(await next.flush()).toBe(1);
        await eventually(() => expect(got).toHaveLength(1), timeoutMs);
        await next.stop();
        expect(await pending()).toBe(0);
      });

      it('a holder with more than half its lease left writes nothing at an idle turn', async () => {
        await db.transaction((trx) => enqueue(db, trx, [envelope(topic, 'k1')]));
        const r = relay({ leaseMs: 60_000 });
        expect(await r.flush()).toBe(1);
        expect(await r.flush()).toBe(0);
        const [taken] = await leaseRow();
        const marked = await db.knex.raw('select xmin::text as version from ??.outbox', [db.schema]);

        for (let i = 0; i < 3; i++) expect(await r.flush()).toBe(0);

        expect(await leaseRow()).toEqual([taken]);
        expect((await db.knex.raw('select xmin::text as version from ??.outbox', [db.schema])).rows).toEqual(marked.rows);
        expect(await pending()).toBe(0);
      });
    });

  describe('consumeOnce', () => {
    const applyMigration = async () =>
      migrate(db, [
        ...outboxMigrations,
        { name: 'stock', up: (knex, schema) => knex.schema.withSchema(schema).createTable('stock', (t) => void t.integer('moves')) },
      ]);

    it('records an event whose work was done elsewhere in one statement, without a transaction, once (recordConsumed)', async () => {
      const event = envelope(topic, 'k1');
      const sent: string[] = [];
      const listen = (q: { sql: string }) => void sent.push(q.sql);
      db.knex.on('query', listen);
      try {
        expect(await recordConsumed(db, 'order', event)).toBe(true);
      } finally {
        db.knex.off('query', listen);
      }
      expect(sent).toHaveLength(1);
      expect(await recordConsumed(db, 'order', event)).toBe(false);
      expect(await consumeOnce(db, 'order', event, async () => undefined)).toBe(false);
    });

    it('applies an event once, however often it is delivered', async () => {
      await applyMigration();
      await db.table('stock').insert({ moves: 0 });
      const event = envelope(topic, 'k1');
      const apply = (trx: Parameters<Parameters<typeof consumeOnce>[3]>[0]) =>
        db
          .table('stock', trx)
          .increment('moves', 1)
          .then(() => undefined);

      expect(await consumeOnce(db, 'catalog.stock', event, apply)).toBe(true);
      expect(await consumeOnce(db, 'catalog.stock', event, apply)).toBe(false);

      expect(await db.table('stock').select('moves')).toEqual([{ moves: 1 }]);
    });

    it('keeps consumers apart: another consumer still applies the same event', async () => {
      await applyMigration();
      const event = envelope(topic, 'k1');
      const applied: string[] = [];

      await consumeOnce(db, 'cart', event, async () => void applied.push('cart'));
      await consumeOnce(db, 'order', event, async () => void applied.push('order'));

      expect(applied).toEqual(['cart', 'order']);
    });

    it('records nothing when apply fails, so a redelivery applies it', async () => {
      await applyMigration();
      const event = envelope(topic, 'k1');

      await expect(consumeOnce(db, 'cart', event, async () => Promise.reject(new Error('db full')))).rejects.toThrow('db full');

      expect(await consumeOnce(db, 'cart', event, async () => undefined)).toBe(true);
    });
  });
}
