import { BackofficeTopics, ProductUpsertReceived, upsertKey } from '@commerce/erp-contracts';
import { createMemoryBus, encodeEnvelope, OutboxRelay, startRetentionPruner } from '@commerce/shared-bus';
import { migrate, type Db, type DbEngine } from '@commerce/shared-db';
import { uniqueName } from '@commerce/shared-testing';
import type { EventEnvelope } from '@commerce/shared-events';
import { backofficeMigrations } from './backoffice.migrations';
import { createReceivedUpsertsStore, readReceivedUpserts, receivedUpsertsRetention } from './received-upserts.store';

const event = (id: string) => ProductUpsertReceived.create(upsertKey('product', id), { entity: 'product', product: { id } }, 'req-1');

/** The UpsertStore's behaviour, run on PGlite (unit) and on Postgres (int) so the two cannot drift. */
export function receivedUpsertsStoreContract(engine: () => DbEngine): void {
  async function freshDb() {
    const db = engine().forSchema(uniqueName('bo_store'));
    await migrate(db, backofficeMigrations);
    return db;
  }

  /** The backoffice's pruner as configured by default: outbox 7 days, received batches 30; runs when asked. */
  const backofficePruner = (db: Db) => {
    const day = 86_400_000;
    return startRetentionPruner(db, {
      outboxRetentionMs: 7 * day,
      processedEventsRetentionMs: 14 * day,
      intervalMs: 3_600_000,
      batchSize: 100,
      tables: [receivedUpsertsRetention(30 * day)],
    });
  };

  it('writes the entities in order and their outbox events together', async () => {
    const db = await freshDb();
    const store = createReceivedUpsertsStore(db);

    await store.saveBatch('product', [event('a'), event('b')], 'req-1');

    const rows = (await readReceivedUpserts(db)).upserts.map(({ entity, external_id, payload, request_id }) => ({
      entity,
      external_id,
      payload,
      request_id,
    }));
    expect(rows).toEqual([
      { entity: 'product', external_id: 'a', payload: { id: 'a' }, request_id: 'req-1' },
      { entity: 'product', external_id: 'b', payload: { id: 'b' }, request_id: 'req-1' },
    ]);
    expect(await db.table('outbox').orderBy('seq').pluck('key')).toEqual(['product:a', 'product:b']);
  });

  it('keeps a large batch in its order, each entity and envelope exactly as sent (quotes, backslashes, any script)', async () => {
    const db = await freshDb();
    const store = createReceivedUpsertsStore(db);
    const products = Array.from({ length: 2500 }, (_, i) => ({
      id: `p${i}`,
      description: `Sweater "${i}" \\ back\\slash, ünïcödé ✓ 漢字 \u2028 'quoted'`,
      variations: [{ id: `p${i}-v`, sizes: [{ id: 's', qty: String(i) }] }],
    }));
    const events = products.map((product) =>
      ProductUpsertReceived.create(upsertKey('product', product.id), { entity: 'product', product }, 'req-big'),
    );

    await store.saveBatch('product', events, 'req-big');

    const rows = (await readReceivedUpserts(db)).upserts;
    expect(rows.map((r) => r.external_id)).toEqual(products.map((p) => p.id));
    expect(rows.map((r) => r.payload)).toEqual(products);
    expect(new Set(rows.map((r) => r.request_id))).toEqual(new Set(['req-big']));
    const outbox = (await db.table('outbox').orderBy('seq').select('id', 'key', 'envelope')) as Array<{
      id: string;
      key: string;
      envelope: unknown;
    }>;
    expect(outbox.map((r) => r.id)).toEqual(events.map((e) => e.id));
    expect(outbox.map((r) => (typeof r.envelope === 'string' ? JSON.parse(r.envelope) : r.envelope))).toEqual(events);
  });

  it('publishes each event of a stored batch byte for byte as the bus publishes the event itself', async () => {
    const db = await freshDb();
    const events = ['a', 'b', 'c'].map((id) =>
      ProductUpsertReceived.create(
        upsertKey('product', id),
        { entity: 'product', product: { id, description: `"${id}" \\ ✓ 漢字 \u2028` } },
        'req-bytes',
      ),
    );
    await createReceivedUpsertsStore(db).saveBatch('product', events, 'req-bytes');
    const bus = createMemoryBus();
    try {
      expect(await new OutboxRelay(db, bus).flush()).toBe(3);

      expect(bus.messages(BackofficeTopics.UPSERT).map((m) => [m.key, m.value])).toEqual(events.map((e) => [e.key, encodeEnvelope(e)]));
    } finally {
      await bus.close();
    }
  });

  it('writes nothing at all when the outbox insert fails', async () => {
    const db = await freshDb();
    const store = createReceivedUpsertsStore(db);
    const same = event('a');

    // Two events with one id break the outbox's unique id: the entity rows must roll back with them.
    await expect(store.saveBatch('product', [same, same])).rejects.toThrow();

    expect(await db.table('received_upserts').count({ n: '*' })).toEqual([{ n: 0 }]);
    expect(await db.table('outbox').count({ n: '*' })).toEqual([{ n: 0 }]);
  });

  describe('saveChunks (a batch written as it is made, decision 79)', () => {
    const chunked = (...chunks: Array<EventEnvelope[] | Error>): Iterable<EventEnvelope[]> => ({
      *[Symbol.iterator]() {
        for (const chunk of chunks) {
          if (chunk instanceof Error) throw chunk;
          yield chunk;
        }
      },
    });
    const nothingWritten = async (db: Db) => {
      expect(await db.table('received_upserts').count({ n: '*' })).toEqual([{ n: 0 }]);
      expect(await db.table('outbox').count({ n: '*' })).toEqual([{ n: 0 }]);
    };

    it('writes every chunk, in order, as one batch, and publishes it once committed', async () => {
      const db = await freshDb();
      const bus = createMemoryBus();
      const relay = new OutboxRelay(db, bus, { intervalMs: 600_000 });
      relay.start();
      try {
        const events = ['a', 'b', 'c', 'd', 'e'].map(event);
        await createReceivedUpsertsStore(db).saveChunks(
          'product',
          chunked(events.slice(0, 2), [], events.slice(2, 3), events.slice(3)),
          'req-c',
        );

        expect((await readReceivedUpserts(db)).upserts.map((r) => [r.external_id, r.payload, r.request_id])).toEqual(
          ['a', 'b', 'c', 'd', 'e'].map((id) => [id, { id }, 'req-c']),
        );
        expect(await db.table('outbox').orderBy('seq').pluck('id')).toEqual(events.map((e) => e.id));
        // Nudged at commit: published without a flush or a poll (the relay polls every ten minutes).
        const published = () => bus.messages(BackofficeTopics.UPSERT).map((m) => m.key);
        for (const until = Date.now() + 10_000; published().length < events.length && Date.now() < until;)
          await new Promise((resolve) => setTimeout(resolve, 20));
        // (In order per key, the bus's promise: these are five keys.)
        expect(published().sort()).toEqual(events.map((e) => e.key).sort());
      } finally {
        await relay.stop();
        await bus.close();
      }
    });

    it('writes nothing when the batch is refused after chunks of it were written, and rethrows the refusal', async () => {
      const db = await freshDb();
      const refused = new Error('products[250]: refused');

      await expect(
        createReceivedUpsertsStore(db).saveChunks('product', chunked([event('a'), event('b')], [event('c')], refused, [event('d')])),
      ).rejects.toBe(refused);

      await nothingWritten(db);
      expect(await new OutboxRelay(db, createMemoryBus()).flush()).toBe(0);
    });

    it('writes the batch once, whole, when Db.transaction runs it again (a stale prepared plan, decision 179), its chunks read once', async () => {
      const db = await freshDb();
      const rolledBack = new Error('rolled back');
      let runs = 0;
      // As `Db.transaction` does when a statement met a stale plan: the first run rolled back, the function run again.
      const rerunning: Db = {
        ...db,
        transaction: async (fn) => {
          runs++;
          await db
            .transaction(async (trx) => {
              await fn(trx);
              throw rolledBack;
            })
            .catch((error: unknown) => {
              if (error !== rolledBack) throw error;
            });
          return db.transaction(fn);
        },
      };
      let reads = 0;
      async function* parsed(): AsyncGenerator<EventEnvelope[]> {
        reads++;
        yield [event('a'), event('b')];
        yield [event('c')];
      }

      await createReceivedUpsertsStore(rerunning).saveChunks('product', parsed(), 'req-r');

      expect({ runs, reads }).toEqual({ runs: 1, reads: 1 });
      expect((await readReceivedUpserts(db)).upserts.map((r) => r.external_id)).toEqual(['a', 'b', 'c']);
      expect(await db.table('outbox').count({ n: '*' })).toEqual([{ n: 3 }]);
    });

    it("writes nothing when a chunk's write fails, and a refusal made after it still comes first", async () => {
      const db = await freshDb();
      const store = createReceivedUpsertsStore(db);
      const same = event('a');

      // The same event id twice breaks the outbox's unique id in the second chunk.
      await expect(store.saveChunks('product', chunked([same], [same], [event('b')]))).rejects.toThrow();
      await nothingWritten(db);

      const refused = new Error('refused after the failed write');
      await expect(store.saveChunks('product', chunked([same], [same], [event('b')], refused))).rejects.toBe(refused);
      await nothingWritten(db);

      // The store is usable after both.
      await store.saveChunks('product', chunked([event('z')]));
      expect((await readReceivedUpserts(db)).upserts.map((r) => r.external_id)).toEqual(['z']);
    });
  });

  it('under retention, keeps the events of a batch younger than the received retention, however long ago they were sent', async () => {
    const db = await freshDb();
    await createReceivedUpsertsStore(db).saveBatch('product', [event('a'), event('b')], 'req-1');
    // Twenty days on, published on the day: past the outbox's 7 days, within the received batches' 30.
    await db.table('received_upserts').update({ received_at: db.knex.raw(`received_at - interval '20 days'`) });
    await db
      .table('outbox')
      .update({ created_at: db.knex.raw(`created_at - interval '20 days'`), sent_at: db.knex.raw(`now() - interval '20 days'`) });
    const pruner = backofficePruner(db);
    try {
      expect(await pruner.pruneNow()).toMatchObject({ outbox: 0, received_upserts: 0 });
      expect((await readReceivedUpserts(db)).upserts.map((r) => r.payload)).toEqual([{ id: 'a' }, { id: 'b' }]);
    } finally {
      await pruner.stop();
    }
  });

  it('under retention, keeps an old batch while its events are unpublished, and deletes it once they are', async () => {
    const db = await freshDb();
    await createReceivedUpsertsStore(db).saveBatch('product', [event('a')]);
    // Forty days on, and Kafka never took the event.
    await db.table('received_upserts').update({ received_at: db.knex.raw(`received_at - interval '40 days'`) });
    await db.table('outbox').update({ created_at: db.knex.raw(`created_at - interval '40 days'`) });
    const pruner = backofficePruner(db);
    try {
      expect((await pruner.pruneNow())['received_upserts']).toBe(0);

      await db.table('outbox').update({ sent_at: db.knex.fn.now() });

      expect((await pruner.pruneNow())['received_upserts']).toBe(1);
      expect(await db.table('received_upserts').count({ n: '*' })).toEqual([{ n: 0 }]);
    } finally {
      await pruner.stop();
    }
  });

  it('skips and reports a received row whose outbox row was deleted by hand, and reads the others', async () => {
    const db = await freshDb();
    const events = [event('a'), event('b'), event('c')];
    await createReceivedUpsertsStore(db).saveBatch('product', events, 'req-1');
    // An operator's delete, not the pruner's (which keeps an outbox row a received row refers to).
    await db.table('outbox').where({ id: events[1]!.id }).delete();

    const read = await readReceivedUpserts(db);

    expect(read.upserts.map((r) => [r.external_id, r.payload])).toEqual([
      ['a', { id: 'a' }],
      ['c', { id: 'c' }],
    ]);
    expect(read.orphans).toEqual([
      expect.objectContaining({ entity: 'product', external_id: 'b', event_id: events[1]!.id, request_id: 'req-1' }),
    ]);
    expect(read.orphans[0]).not.toHaveProperty('payload');
  });

  it('reads a row written before decision 73 (its own payload, no event) as an entity, not an orphan', async () => {
    const db = await freshDb();
    await db.table('received_upserts').insert({ entity: 'product', external_id: 'old', payload: JSON.stringify({ id: 'old' }) });

    const read = await readReceivedUpserts(db);

    expect(read.upserts.map((r) => [r.external_id, r.payload])).toEqual([['old', { id: 'old' }]]);
    expect(read.orphans).toEqual([]);
  });
}
