import { randomUUID } from 'node:crypto';
import { BackofficeTopics, ProductUpsertReceived, upsertKey } from '@commerce/backoffice-contracts';
import { createEventBus, type EventBus } from '@commerce/shared-bus';
import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { createLogger } from '@commerce/shared-logging';
import { describeWithEngines, uniqueName } from '@commerce/shared-testing';
import { buildCatalogService, type CatalogService } from './catalog.service';
import { MiniSearchIndex } from './search/minisearch.search-index';
import { soapProduct } from './testing/soap-product.fixture';

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
    bus = await createEventBus(engines.url('kafka'), { clientId: uniqueName('catalog'), logger });
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
