import type { Router } from '@koa/router';
import type { SoapProduct } from '@commerce/backoffice-contracts';
import type { CatalogClient } from '@commerce/catalog-contracts';
import { catalogUseCases, indexProduct, type CatalogUseCases, type Clock, type SearchIndex } from '@commerce/catalog-core';
import { OutboxRelay, type EventBus, type Subscription } from '@commerce/shared-bus';
import { migrate, type Db } from '@commerce/shared-db';
import type { Logger } from '@commerce/shared-logging';
import { createInProcessCatalogClient } from './catalog.client.in-process';
import { catalogMigrations } from './catalog.migrations';
import { createCatalogRepository } from './catalog.repository.knex';
import { productIndexerConsumer } from './consumers/product-indexer.consumer';
import { productUpsertReceivedConsumer } from './consumers/product-upsert-received.consumer';
import { createCatalogInternalRouter } from './http/catalog.internal-router';

export interface CatalogServiceDeps {
  db: Db;
  bus: EventBus;
  search: SearchIndex;
  logger: Logger;
  clock?: Clock;
}

export interface CatalogService {
  client: CatalogClient;
  router: Router;
  useCases: CatalogUseCases;
  relay: OutboxRelay;
  /** Subscribes the consumers and starts the outbox relay; an embedded index is rebuilt from the store first. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Demo data: applied through the same use case as ERP upserts, and indexed at once. Unchanged products are left alone. */
  seed(products: SoapProduct[]): Promise<void>;
}

/** The composition of the catalog service the apps call: migrations, repository, use cases, consumers, relay, routers. */
export async function buildCatalogService(deps: CatalogServiceDeps): Promise<CatalogService> {
  await migrate(deps.db, catalogMigrations);
  const catalog = createCatalogRepository(deps.db);
  const useCases = catalogUseCases({ catalog, search: deps.search, ...(deps.clock ? { clock: deps.clock } : {}) });
  const relay = new OutboxRelay(deps.db, deps.bus, { logger: deps.logger });
  let subscriptions: Subscription[] = [];

  return {
    client: createInProcessCatalogClient(useCases),
    router: createCatalogInternalRouter(useCases),
    useCases,
    relay,
    async start() {
      subscriptions = [
        await deps.bus.subscribe(
          productUpsertReceivedConsumer({
            db: deps.db,
            logger: deps.logger,
            ...(deps.clock ? { clock: deps.clock } : {}),
            onCommitted: () => relay.nudge(),
          }),
        ),
        await deps.bus.subscribe(productIndexerConsumer({ catalog, search: deps.search, logger: deps.logger })),
      ];
      if (deps.search.kind === 'embedded') {
        // The embedded index lives in memory: rebuild it from the store, which outlives the process.
        // After subscribing, so that nothing committed in between is missed (indexing twice is harmless).
        const { done } = await useCases.reindexAll();
        if (done > 0) deps.logger.info({ products: done }, 'catalog: embedded search index rebuilt');
      }
      relay.start();
    },
    async stop() {
      await Promise.all(subscriptions.map((s) => s.stop()));
      subscriptions = [];
      await relay.stop();
    },
    async seed(products) {
      let changed = 0;
      for (const product of products) {
        const result = await useCases.applyProductUpsert(product);
        if (!result.changed) continue;
        changed++;
        await indexProduct({ catalog, search: deps.search }, result.productId);
      }
      if (changed > 0) relay.nudge();
      deps.logger.info({ products: products.length, changed }, 'catalog: demo catalog seeded');
    },
  };
}
