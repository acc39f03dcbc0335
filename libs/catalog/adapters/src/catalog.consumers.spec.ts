import { randomUUID } from 'node:crypto';
import { BackofficeTopics, PricelistUpsertReceived, ProductUpsertReceived, SizeUpsertReceived } from '@commerce/erp-contracts';
import { createMemoryBus, deadLetterTopic, type EventEnvelope, type MemoryBus } from '@commerce/shared-bus';
import { createDbEngine, type Db, type DbEngine } from '@commerce/shared-db';
import { createLogger, withRequestContext } from '@commerce/shared-logging';
import { uniqueName } from '@commerce/shared-testing';
import { ProductUpserted } from '@commerce/catalog-contracts';
import { AppliedProducts, catalogUseCases, defaultCatalogSettings, type CatalogRepository } from '@commerce/catalog-core';
import { OutboxRelay } from '@commerce/shared-bus';
import { migrate } from '@commerce/shared-db';
import { catalogMigrations } from './catalog.migrations';
import { createCatalogRepository } from './catalog.knex-repository';
import { buildCatalogService, type CatalogService } from './catalog.service';
import { productIndexerConsumer } from './consumers/product-indexer.consumer';
import { upsertReceivedConsumer } from './consumers/upsert-received.consumer';
import { productViewsConsumer } from './consumers/product-views.consumer';
import { emptyDemoCatalog } from './demo-catalog';
import { MiniSearchIndex } from './search/minisearch.search-index';
import { soapProduct } from './testing/soap-product.fixture';
import { settle } from './testing/settle';

let engine: DbEngine;
beforeAll(async () => {
  engine = await createDbEngine('pglite://memory');
}, 60_000);
afterAll(() => engine?.close());

const logger = createLogger('catalog-test', 'silent');
let running: Array<{ service: CatalogService; bus: MemoryBus }> = [];
afterEach(async () => {
  for (const { service, bus } of running) {
    await service.stop();
    await bus.close();
  }
  running = [];
});

async function start(): Promise<{ db: Db; bus: MemoryBus; service: CatalogService; search: MiniSearchIndex }> {
  const db = engine.forSchema(uniqueName('catalog'));
  const bus = createMemoryBus({ logger, retryBaseMs: 1 });
  const search = new MiniSearchIndex();
  const service = await buildCatalogService({ db, bus, search, logger });
  await service.start();
  running.push({ service, bus });
  return { db, bus, service, search };
}

const received = (product = soapProduct()) => ProductUpsertReceived.envelopeOf(product);

describe('catalog consumers (PGlite, in-memory bus)', () => {
  it('a ProductUpsertReceived becomes a searchable product whose items resolve', async () => {
    const { bus, service } = await start();
    await bus.publish([received()]);
    await settle(bus, service.relay);

    const found = await service.client.searchProducts({ search: 'cafe' }, {});
    expect(found.products.map((p) => p.variantName)).toEqual(['Brown', 'Oat']);
    const item = await service.client.getItem(found.products[0]!.items[1]!.item, {});
    expect(item).toMatchObject({ productName: 'Café Sweater', sizeName: 'M', stock: 5 });
    expect(bus.messages('catalog.product.v1')).toHaveLength(1);
  });

  it('applies a redelivered event once: an old event delivered again does not undo a newer one', async () => {
    const { db, bus, service } = await start();
    const first = received();
    await bus.publish([first]);
    await settle(bus, service.relay);
    await bus.publish([received(soapProduct({ description: 'Crème Pullover' }))]);
    await settle(bus, service.relay);
    await bus.publish([first]);
    await settle(bus, service.relay);

    const list = await service.client.searchProducts({}, {});
    expect(list.products.map((p) => p.name)).toEqual(['Crème Pullover', 'Crème Pullover']);
    expect(await db.table('processed_events').where({ consumer: 'catalog-upserts' }).count({ n: '*' })).toEqual([{ n: 2 }]);
  });

  it('sends an invalid payload to backoffice.upsert.v1.dlq after retries, and goes on with the next event', async () => {
    const { bus, service } = await start();
    const poison: EventEnvelope = {
      id: randomUUID(),
      topic: BackofficeTopics.UPSERT,
      key: 'product:P-1',
      type: 'ProductUpsertReceived',
      version: 1,
      occurredAt: new Date().toISOString(),
      payload: { entity: 'product', product: { id: '' } },
    };
    await bus.publish([poison, received()]);
    await settle(bus, service.relay);

    expect(bus.messages(deadLetterTopic(BackofficeTopics.UPSERT))).toHaveLength(1);
    expect((await service.client.searchProducts({ search: 'sweater' }, {})).productCount).toBe(2);
  });

  it('dead-letters a product whose stock is not a number, rather than storing it', async () => {
    const { bus, service } = await start();
    // backoffice-soap refuses such a batch; an event from an older or broken producer still must not be stored.
    const valid = received();
    const product = soapProduct({ variations: [{ id: 'V', sizes: [{ id: 'S', qty: 'many' }] }] });
    await bus.publish([{ ...valid, payload: { entity: 'product', product } }]);
    await settle(bus, service.relay);
    expect(bus.messages(deadLetterTopic(BackofficeTopics.UPSERT))).toHaveLength(1);
    expect((await service.client.searchProducts({}, {})).productCount).toBe(0);
  });

  it('applies pricelists and sizes from the bus and re-indexes the products they change', async () => {
    const { bus, service } = await start();
    await bus.publish([received()]);
    await settle(bus, service.relay);
    const SE = { market: '1', pricelist: 'SE' };
    expect((await service.client.searchProducts({}, SE)).productCount).toBe(0);

    await bus.publish([
      PricelistUpsertReceived.envelopeOf({ id: 'SE', currency: 'SEK', items: [{ id: 'P-1', price: '499.00' }] }),
      SizeUpsertReceived.envelopeOf({ id: 'S-M', description: 'Medium' }),
    ]);
    await settle(bus, service.relay);
    const found = await service.client.searchProducts({ search: 'sweater' }, SE);
    expect(found.products.map((p) => [p.variantName, p.priceAsNumber, p.items.map((i) => i.name)])).toEqual([
      ['Brown', 499, ['S', 'Medium', 'L']],
      ['Oat', 499, ['S', 'Medium']],
    ]);
  });

  it('skips upserts of entities other services own, without dead-lettering them', async () => {
    const { bus, service } = await start();
    await bus.publish([
      {
        id: randomUUID(),
        topic: BackofficeTopics.UPSERT,
        key: 'customer:1',
        type: 'CustomerUpsertReceived',
        version: 1,
        occurredAt: new Date().toISOString(),
        payload: { entity: 'customer', customer: { id: '1' } },
      },
    ]);
    await settle(bus, service.relay);
    expect(bus.messages(deadLetterTopic(BackofficeTopics.UPSERT))).toHaveLength(0);
  });

  it('seeds the demo data straight into store and index, and a second seed changes nothing', async () => {
    const { db, service } = await start();
    await service.seed([
      soapProduct(),
      soapProduct({ id: 'P-2', description: 'Sun Hat', variations: [{ id: 'V-H', sizes: [{ id: 'S-ONE', qty: '3' }] }] }),
    ]);
    expect((await service.client.searchProducts({ search: 'hat' }, {})).productCount).toBe(1);
    await service.seed([soapProduct()]);
    // One ProductUpserted per product; the second seed changed nothing.
    expect(await db.table('outbox').where({ topic: 'catalog.product.v1' }).count({ n: '*' })).toEqual([{ n: 2 }]);
  });

  it('seeds a demo catalog of every entity, prices first, so its products are visible in their market at once', async () => {
    const { service } = await start();
    const demo = {
      ...emptyDemoCatalog(),
      markets: [{ id: '1', description: 'Sweden' }],
      warehouses: [{ id: 'W1', description: 'Stockholm' }],
      sizes: [{ id: 'S-M', description: 'M', sizetable: { id: 'ST', stockunit: 'pcs' } }],
      pricelists: [{ id: 'SE', currency: 'SEK', items: [{ id: 'P-1', price: '499.00' }] }],
      products: [soapProduct()],
    };
    await service.seed(demo);
    const found = await service.client.searchProducts({ search: 'sweater' }, { market: '1', pricelist: 'SE' });
    expect(found.products.map((p) => [p.price, p.stockUnit])).toEqual([
      ['499.00 SEK', 'pcs'],
      ['499.00 SEK', 'pcs'],
    ]);
  });

  it('rebuilds an embedded index from the store at start', async () => {
    const { db, bus, service } = await start();
    await service.seed([soapProduct()]);
    await service.stop();
    const search = new MiniSearchIndex();
    const restarted = await buildCatalogService({ db, bus, search, logger });
    await restarted.start();
    running.push({ service: restarted, bus });
    expect((await restarted.client.searchProducts({ search: 'sweater' }, {})).productCount).toBe(2);
  });

  it('a replica shows another replica’s change once it hears the product event, its views kept for long otherwise (decision 58)', async () => {
    const db = engine.forSchema(uniqueName('catalog'));
    const bus = createMemoryBus({ logger, retryBaseMs: 1 });
    const replica = async () => {
      const service = await buildCatalogService({ db, bus, search: new MiniSearchIndex(), logger, readCacheMs: 0, viewCacheMs: 600_000 });
      await service.start();
      running.push({ service, bus });
      return service;
    };
    const a = await replica();
    await a.seed([soapProduct()]);
    const b = await replica();
    const names = async () => (await a.client.searchProducts({}, {})).products.map((p) => [p.name, p.items.map((i) => i.stock)]);
    expect(await names()).toEqual([
      ['Café Sweater', ['yes', 'yes', 'no']],
      ['Café Sweater', ['yes', 'yes']],
    ]);
    await b.useCases.applyProductUpsert(
      soapProduct({ description: 'Café Cardigan', variations: [{ id: 'V-OAT', sizes: [{ id: 'S-S', qty: '0' }] }] }),
    );
    await settle(bus, b.relay);
    expect(await names()).toEqual([
      ['Café Cardigan', ['yes', 'yes', 'no']],
      ['Café Cardigan', ['no', 'yes']],
    ]);
  });
});

describe('the product indexer and the upsert consumer of one process (decision 64)', () => {
  it('indexes the products the consumer applied as committed, without reading them back; a change made elsewhere is read', async () => {
    const db = engine.forSchema(uniqueName('catalog'));
    await migrate(db, catalogMigrations);
    const bus = createMemoryBus({ logger, retryBaseMs: 1 });
    const repository = createCatalogRepository(db);
    const readBack: number[] = [];
    const counting: CatalogRepository = {
      ...repository,
      loadProducts: (ids) => {
        readBack.push(...ids);
        return repository.loadProducts(ids);
      },
    };
    const applied = new AppliedProducts();
    const relay = new OutboxRelay(db, bus, { logger });
    const search = new MiniSearchIndex();
    const subscriptions = [
      await bus.subscribe(upsertReceivedConsumer({ db, logger, applied })),
      await bus.subscribe(productIndexerConsumer({ catalog: counting, search, logger, applied })),
    ];
    const useCases = catalogUseCases({ catalog: repository, search, settings: defaultCatalogSettings });
    const listed = async () =>
      (await useCases.searchProducts({}, {})).products.map((p) => [p.name, p.variantName, p.items.map((i) => i.stock)]).sort();
    try {
      await bus.publish([
        received(),
        received(soapProduct({ id: 'P-2', description: 'Sun Hat', variations: [{ id: 'V-H', sizes: [{ id: 'S-ONE', qty: '3' }] }] })),
      ]);
      await settle(bus, relay);
      expect(await listed()).toEqual([
        ['Café Sweater', 'Brown', ['yes', 'yes', 'no']],
        ['Café Sweater', 'Oat', ['yes', 'yes']],
        ['Sun Hat', '', ['yes']],
      ]);
      expect(readBack).toEqual([]);
      expect(applied.size).toBe(0);

      const { productId } = await useCases.applyProductUpsert(
        soapProduct({ variations: [{ id: 'V-OAT', sizes: [{ id: 'S-S', qty: '0' }] }] }),
      );
      await settle(bus, relay);
      expect(readBack).toEqual([productId]);
      expect((await listed())[1]).toEqual(['Café Sweater', 'Oat', ['no', 'yes']]);
    } finally {
      for (const subscription of subscriptions) await subscription.stop();
      await bus.close();
    }
  });
});

describe('the upsert consumer applies the waiting runs of one request together (decision 68)', () => {
  const product = (id: string) => received(soapProduct({ id, variations: [{ id: `V-${id}`, sizes: [{ id: `S-${id}`, qty: '1' }] }] }));
  const stored = async (db: Db) => (await db.table('processed_events').where({ consumer: 'catalog-upserts' }).count({ n: '*' }))[0];

  async function consumer() {
    const db = engine.forSchema(uniqueName('catalog'));
    await migrate(db, catalogMigrations);
    let commits = 0;
    const subscription = upsertReceivedConsumer({ db, logger, onCommitted: () => void commits++ });
    const handleBatch = subscription.handleBatch!;
    // As Kafka's bus hands them over: each partition's run on its own worker, in its request's context.
    const partitions = (requestIds: string[], runs: EventEnvelope[][]) =>
      Promise.allSettled(runs.map((run, i) => withRequestContext({ requestId: requestIds[i]! }, () => handleBatch(run))));
    return { db, partitions, commits: () => commits };
  }

  it('one transaction for the partitions’ runs of a request; runs of different requests each their own', async () => {
    const { db, partitions, commits } = await consumer();
    const same = await partitions(['r-1', 'r-1', 'r-1'], [[product('A1'), product('A2')], [product('A3')], [product('A4')]]);
    expect(same.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    expect(commits()).toBe(1);
    expect(await stored(db)).toEqual({ n: 4 });

    const different = await partitions(['r-2', 'r-3'], [[product('B1')], [product('B2')]]);
    expect(different.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(commits()).toBe(3);
    expect(await stored(db)).toEqual({ n: 6 });
  });

  it('a run that fails together with others is retried on its own: only its own handing over fails', async () => {
    const { db, partitions, commits } = await consumer();
    const poison: EventEnvelope = { ...product('X'), payload: { entity: 'product', product: { id: '' } } };
    const results = await partitions(['r-1', 'r-1', 'r-1'], [[product('C1')], [poison, product('X2')], [product('C3')]]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(commits()).toBe(2);
    expect(await stored(db)).toEqual({ n: 2 });
  });
});

describe('the product views consumer (decision 58)', () => {
  it('is a group of its own in every process, from now on, and forgets the products of ProductUpserted only', async () => {
    const forgotten: number[][] = [];
    const consumer = productViewsConsumer((ids) => forgotten.push(ids));
    expect(consumer).toMatchObject({ topics: ['catalog.product.v1'], fromBeginning: false });
    expect(consumer.groupId).toMatch(/^catalog-views-.+-\d+-[0-9a-z]+$/);
    const upserted = (id: string) => ProductUpserted.create(id, { productId: id, externalId: `P-${id}` });
    await consumer.handleBatch!([upserted('4'), received(), upserted('9')] as EventEnvelope[]);
    await consumer.handle(received());
    expect(forgotten).toEqual([[4, 9]]);
  });
});
