import { randomUUID } from 'node:crypto';
import { BackofficeTopics, ProductUpsertReceived, upsertKey } from '@commerce/erp-contracts';
import { createEventBus, createMemoryBus, type EventBus } from '@commerce/shared-bus';
import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { createLogger } from '@commerce/shared-logging';
import pino from 'pino';
import { describeWithEngines, uniqueName } from '@commerce/shared-testing';
import { buildCatalogService, type CatalogService } from './catalog.service';
import { MiniSearchIndex } from './search/minisearch.search-index';
import { soapProduct } from './testing/soap-product.fixture';
import { settle } from './testing/settle';

/** Polls until check passes (Kafka delivers asynchronously; there is no drain). */
async function eventually(check: () => Promise<void>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

describeWithEngines('catalog consumers on Postgres and Kafka', ['postgres', 'kafka'], (engines) => {
  const logger = createLogger('catalog-int', 'silent');
  let engine: DbEngine;
  let bus: EventBus;
  let service: CatalogService;

  beforeAll(async () => {
    engine = await createDbEngine(engines.url('postgres'));
    // A Kafka namespace of the suite's own: its consumers read none of the shared broker's backlog.
    bus = await createEventBus(engines.url('kafka'), { clientId: uniqueName('catalog'), logger, namespace: uniqueName('catalog_int') });
    service = await buildCatalogService({ db: engine.forSchema(uniqueName('catalog')), bus, search: new MiniSearchIndex(), logger });
    await service.start();
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await bus?.close();
    await engine?.close();
  });

  it('takes a ProductUpsertReceived from Kafka to a searchable product with resolvable items, applying a redelivery once', async () => {
    // Unique external ids: the topics are shared with other suites and runs.
    const externalId = uniqueName('P');
    const product = soapProduct({ id: externalId, description: `Kafka Sweater ${externalId}` });
    const first = ProductUpsertReceived.create(upsertKey('product', externalId), { entity: 'product', product });
    await bus.publish([first]);
    await eventually(async () => {
      const found = await service.client.searchProducts({ search: externalId }, {});
      expect(found.productCount).toBe(2);
      expect(await service.client.getItem(found.products[0]!.items[0]!.item, {})).toMatchObject({ stock: 4 });
    });

    await bus.publish([
      ProductUpsertReceived.create(upsertKey('product', externalId), {
        entity: 'product',
        product: { ...product, description: `Renamed ${externalId}` },
      }),
    ]);
    await bus.publish([first]);
    await eventually(async () => {
      const found = await service.client.searchProducts({ search: `renamed ${externalId}` }, {});
      expect(found.productCount).toBe(2);
    });
    // The old event came again after the rename; had it been applied twice the name would be back.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await service.client.searchProducts({ search: `renamed ${externalId}` }, {})).products[0]!.name).toBe(`Renamed ${externalId}`);
  }, 90_000);

  it('dead-letters an invalid payload', async () => {
    const dlq = `${BackofficeTopics.UPSERT}.dlq`;
    const seen: string[] = [];
    const sub = await bus.subscribe({ groupId: uniqueName('dlq-watch'), topics: [dlq], handle: async (e) => void seen.push(e.id) });
    const poisonId = randomUUID();
    await bus.publish([
      {
        id: poisonId,
        topic: BackofficeTopics.UPSERT,
        key: 'product:poison',
        type: 'ProductUpsertReceived',
        version: 1,
        occurredAt: new Date().toISOString(),
        payload: { entity: 'product', product: { id: '' } },
      },
    ]);
    try {
      await eventually(async () => expect(seen).toContain(poisonId), 60_000);
    } finally {
      await sub.stop();
    }
  }, 90_000);
});

describeWithEngines('catalog upsert runs on Postgres, across partitions', ['postgres'], (engines) => {
  it('applies the runs of one request in turn: no deadlock or unique-key fallback when they create the same new brands', async () => {
    const warnings: string[] = [];
    const recording = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) });
    const engine = await createDbEngine(engines.url('postgres'));
    const bus = createMemoryBus({ logger: recording, partitions: 3, retryBaseMs: 1 });
    const service = await buildCatalogService({
      db: engine.forSchema(uniqueName('catalog')),
      bus,
      search: new MiniSearchIndex(),
      logger: createLogger('catalog-int', 'silent'),
    });
    try {
      await service.start();
      const word = uniqueName('runs').replace(/[^a-z0-9]/gi, '');
      // 60 products of one SOAP request over 3 partitions, every run creating the same 4 new brands and collection.
      const products = Array.from({ length: 60 }, (_, i) => {
        const product = soapProduct({
          id: `${word}-P${i}`,
          description: `${word} Sweater ${i}`,
          brand: { id: `${word}-B${i % 4}`, description: `Brand ${i % 4}` },
          collection: { id: `${word}-C`, description: 'Runs' },
        });
        return JSON.parse(JSON.stringify(product).replace(/"V-/g, `"${word}-${i}-V-`)) as typeof product;
      });
      const requestId = randomUUID();
      await bus.publish(products.map((p) => ProductUpsertReceived.envelopeOf(p, requestId)));
      await settle(bus, service.relay);
      expect(warnings.filter((w) => w.includes('event batch failed') || w.includes('event handler failed'))).toEqual([]);
      expect((await service.client.searchProducts({ search: word, limit: 1 }, {})).productCount).toBe(120);
    } finally {
      await service.stop();
      await bus.close();
      await engine.close();
    }
  }, 120_000);
});
