import { CHANGE_EVENT_MAPPERS } from '@commerce/backoffice-core';
import { StockChanged } from '@commerce/catalog-contracts';
import { createDbEngine, migrate, type Db, type DbEngine } from '@commerce/shared-db';
import { createLogger } from '@commerce/shared-logging';
import { uniqueName } from '@commerce/shared-testing';
import { backofficeMigrations } from '../backoffice.migrations';
import { changeEventsConsumer } from './change-events.consumer';
import { createChangeEventStore } from './change-events.store';

let engine: DbEngine;
let db: Db;
beforeAll(async () => {
  engine = await createDbEngine('pglite://memory');
  db = engine.forSchema(uniqueName('bo_consumer'));
  await migrate(db, backofficeMigrations);
}, 60_000);
afterAll(async () => {
  await engine?.close();
});

/** A checkout's stock commit: a StockChanged per product, as one run (`handleBatch`). */
const commitOf = (products: number) =>
  Array.from({ length: products }, (_, p) =>
    StockChanged.create(
      `${p}`,
      {
        productId: `${p}`,
        externalId: `P${p}`,
        items: [
          { variation: `P${p}-V`, size: 'S', sku: `SK${p}-S`, ean: '1', qty: 3 },
          { variation: `P${p}-V`, size: 'M', sku: `SK${p}-M`, ean: '2', qty: 4 },
        ],
        republished: false,
      },
      'req-checkout',
    ),
  );

describe('the change-event feed consumer', () => {
  it('records a run of owner events with one dedupe insert and one feed insert, in order, each row naming its event; a redelivery adds nothing', async () => {
    const store = createChangeEventStore(db);
    const consumer = changeEventsConsumer({
      db,
      store,
      mappers: CHANGE_EVENT_MAPPERS,
      echo: false,
      logger: createLogger('bo-test', 'silent'),
    });
    const run = commitOf(5);
    const seen: string[] = [];
    const listen = (q: { sql: string }) => void seen.push(q.sql);
    db.knex.on('query', listen);
    try {
      await consumer.handleBatch!(run);
    } finally {
      db.knex.off('query', listen);
    }
    expect(seen.filter((sql) => /^insert into "[^"]+"\."change_events"/i.test(sql.trim()))).toHaveLength(1);
    expect(seen.filter((sql) => /^insert into "[^"]+"\."processed_events"/i.test(sql.trim()))).toHaveLength(1);

    // Per product: its product-level stock event, then its two items; products in the run's order.
    const listed = await store.list('erp', { limit: 100 });
    expect(listed.map((e) => [e.entry, (e.data['stock'] as { sku?: string }).sku ?? null])).toEqual(
      run.flatMap((e) => [
        [e.payload.externalId, null],
        [e.payload.externalId, `SK${e.key}-S`],
        [e.payload.externalId, `SK${e.key}-M`],
      ]),
    );
    const sources = (await db.table('change_events').orderBy('id').select('source_event_id')) as Array<{ source_event_id: string }>;
    expect(sources.map((r) => r.source_event_id)).toEqual(run.flatMap((e) => [e.id, e.id, e.id]));

    await consumer.handleBatch!(run);
    expect(await store.list('erp', { limit: 100 })).toHaveLength(15);
  });
});
