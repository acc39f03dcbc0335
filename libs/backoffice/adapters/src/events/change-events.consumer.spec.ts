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

const stockChanged = (product: string, requestId: string) => ({
  ...StockChanged.create(product, {
    productId: product,
    externalId: `P-${product}`,
    items: [{ variation: `V-${product}`, size: 'M', sku: `SKU-${product}`, ean: '', qty: 3 }],
  }),
  requestId,
});

describe('the change-event feed consumer', () => {
  it('records a run of owner events in one statement (its dedupe records and its feed rows), in order, each row naming its event; a redelivery adds nothing', async () => {
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
    // One statement records the run: its dedupe records and its feed rows (issue 28), beside the question whether the
    // request was a SOAP call.
    const recording = seen.filter((sql) => sql.includes('"processed_events"'));
    expect(recording).toHaveLength(1);
    expect(recording[0]).toMatch(/insert into "[^"]+"\."change_events"/);
    expect(seen).toHaveLength(2);

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

  it('asks once whether a request was a SOAP call for all the runs of its events, and appends a run in one statement (issue 28)', async () => {
    const own = engine.forSchema(uniqueName('bo_consumer'));
    await migrate(own, backofficeMigrations);
    const store = createChangeEventStore(own);
    let asked = 0;
    const consumer = changeEventsConsumer({
      db: own,
      store: { ...store, isSoapRequest: (trx, id) => (asked++, store.isSoapRequest(trx, id)) },
      mappers: CHANGE_EVENT_MAPPERS,
      echo: false,
      logger: createLogger('bo-consumer-test', 'silent'),
    });
    const checkout = uniqueName('req');
    const sent: string[] = [];
    const listen = (q: { sql: string }) => void sent.push(q.sql);
    own.knex.on('query', listen);
    try {
      // A checkout's stock events, as the partitions hand them over: two runs.
      await consumer.handleBatch!([stockChanged('1', checkout), stockChanged('2', checkout), stockChanged('3', checkout)]);
      await consumer.handleBatch!([stockChanged('4', checkout)]);
    } finally {
      own.knex.off('query', listen);
    }
    expect(asked).toBe(1);
    // Each run one statement (its dedupe records and its events, no BEGIN or COMMIT); the first asks about the request too.
    expect(sent.filter((sql) => sql.includes('change_events'))).toHaveLength(2);
    expect(sent).toHaveLength(3);
    const entries = (await own.table('change_events').orderBy('id').pluck('entry')) as string[];
    expect(entries).toEqual(['P-1', 'P-2', 'P-3', 'P-4']);

    // Another request is asked about; one whose answer is kept is not.
    await consumer.handleBatch!([stockChanged('5', uniqueName('req'))]);
    await consumer.handleBatch!([stockChanged('6', checkout)]);
    expect(asked).toBe(2);
  });
});
