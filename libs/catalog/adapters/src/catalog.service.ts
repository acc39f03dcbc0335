import type { Router } from '@koa/router';
import type { SoapProduct } from '@commerce/erp-contracts';
import type { CatalogClient, StockClient } from '@commerce/catalog-contracts';
import {
  AppliedProducts,
  cachedCatalogReads,
  catalogUseCases,
  DEFAULT_VIEW_CACHE_MS,
  defaultCatalogSettings,
  type CatalogSettings,
  type CatalogUseCases,
  type Clock,
  type SearchIndex,
} from '@commerce/catalog-core';
import { OutboxRelay, type EventBus, type EventEnvelope, type SubscribeOptions, type Subscription } from '@commerce/shared-bus';
import { migrate, type Db } from '@commerce/shared-db';
import type { Logger } from '@commerce/shared-logging';
import { createInProcessCatalogClient } from './catalog.client.in-process';
import { catalogMigrations } from './catalog.migrations';
import { createCatalogRepository } from './catalog.knex-repository';
import { productIndexerConsumer } from './consumers/product-indexer.consumer';
import { productViewsConsumer, upsertedProductIds } from './consumers/product-views.consumer';
import { upsertReceivedConsumer } from './consumers/upsert-received.consumer';
import { parseDemoCatalog, type DemoCatalog } from './demo-catalog';
import { createCatalogInternalRouter } from './http/catalog.internal-routes';
import { createStockInternalRouter } from './http/stock.internal-routes';
import { SearchQueryStats } from './search/search-queries.store';
import { createStockRepository } from './stock.knex-repository';

export interface CatalogServiceDeps {
  db: Db;
  bus: EventBus;
  search: SearchIndex;
  logger: Logger;
  /** The outbox relay's safety-net poll (`OUTBOX_POLL_MS`; default 1 s): writes nudge the relay at commit. */
  outboxPollMs?: number;
  /** From the store configuration (`catalogSettings(store)`): category tree, swatches, media sizes, currency formats. */
  settings?: CatalogSettings;
  clock?: Clock;
  /** How often time is checked for delivery windows opening or closing (default one minute). */
  deliveryWindowCheckMs?: number;
  /**
   * How long the product listing reuses whole answers to the same request (default 2000, 0 turns it
   * off): writes seen by this process and products' change events clear them at once (decision 53).
   */
  readCacheMs?: number;
  /**
   * How long a product view the listing read is kept at most (page views, brands, collections,
   * categories; default 300000, 0 turns it off): a product's change event, from any process, drops its
   * view at once, so the bound only matters for a missed event (decision 58).
   */
  viewCacheMs?: number;
  /** Products a batch's apply merges between two writes of a part (decision 110; default 100, 0: the whole batch at the end). */
  applyPartProducts?: number;
  /** How often the counts of what shoppers searched for are written to `search_queries` (default 10 s). */
  searchQueriesFlushMs?: number;
}

export interface CatalogService {
  client: CatalogClient;
  router: Router;
  /** The stock holds of the checkout saga (in process), and their internal routes (`/internal/catalog/stock`). */
  stock: StockClient;
  stockRouter: Router;
  useCases: CatalogUseCases;
  relay: OutboxRelay;
  /** What shoppers search for: the counters (its `registry`, for /metrics) and the top queries of the last days. */
  searchQueries: SearchQueryStats;
  /**
   * Syncs the configured category tree, subscribes the consumers, starts the outbox relay and the
   * delivery-window clock; an embedded index is rebuilt from the store first.
   */
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * Demo data: applied through the same use cases as ERP upserts (markets, warehouses, sizes, pricelists
   * and delivery windows first, so that products arrive priced), changed products indexed at once.
   * Unchanged entities are left alone. Takes a plain array of products too.
   */
  seed(catalog: DemoCatalog | SoapProduct[]): Promise<void>;
}

const SEED_BATCH = 500;

/**
 * Outbox rows the catalog's relay publishes a round (decision 96). A transaction of the apply records a
 * `ProductUpserted` and a `StockChanged` per product, the `ProductUpserted` first (decision 64): at the
 * relay's default 500 rows, a 900-product transaction reached the indexer as two deliveries, because the
 * indexer's consumer fetches a partition's next events only once its write for the previous ones is
 * searchable, and Meilisearch indexed them as two tasks one after the other. In one round (the bus still
 * sends it as produce requests of 512 kB, the `ProductUpserted` in the first) they are one delivery and
 * one task.
 */
export const RELAY_ROUND_ROWS = 5000;

/** The composition of the catalog service the apps call: migrations, repository, use cases, consumers, relay, routers. */
export async function buildCatalogService(deps: CatalogServiceDeps): Promise<CatalogService> {
  await migrate(deps.db, catalogMigrations);
  const catalog = createCatalogRepository(deps.db);
  const settings = deps.settings ?? defaultCatalogSettings;
  const reads = cachedCatalogReads(catalog, {
    ...(deps.readCacheMs !== undefined ? { ttlMs: deps.readCacheMs } : {}),
    viewTtlMs: deps.viewCacheMs ?? DEFAULT_VIEW_CACHE_MS,
  });
  const searchQueries = new SearchQueryStats(deps.db, {
    logger: deps.logger,
    ...(deps.searchQueriesFlushMs !== undefined ? { flushMs: deps.searchQueriesFlushMs } : {}),
    ...(deps.clock ? { now: () => deps.clock!.now() } : {}),
  });
  const useCases = catalogUseCases({
    searchLog: searchQueries,
    catalog,
    listingReads: reads.catalog,
    listingAnswers: reads.answer,
    search: deps.search,
    settings,
    ...(deps.clock ? { clock: deps.clock } : {}),
  });
  const relay = new OutboxRelay(deps.db, deps.bus, { logger: deps.logger, intervalMs: deps.outboxPollMs, batchSize: RELAY_ROUND_ROWS });
  const applied = new AppliedProducts();
  let subscriptions: Subscription[] = [];
  let windowTimer: NodeJS.Timeout | undefined;

  const refreshWindows = async () => {
    try {
      const { windows, affectedProducts } = await useCases.refreshDeliveryWindows();
      if (windows > 0) {
        reads.invalidate();
        deps.logger.info({ windows, affectedProducts }, 'catalog: delivery windows opened or closed');
      }
    } catch (error) {
      deps.logger.warn({ err: error }, 'catalog: delivery window check failed; retried at the next tick');
    }
  };

  const stock = createStockRepository(deps.db, {
    ...(deps.clock ? { now: () => deps.clock!.now() } : {}),
    onCommitted: () => reads.invalidate(),
  });

  return {
    client: createInProcessCatalogClient(useCases),
    stock,
    stockRouter: createStockInternalRouter(stock),
    router: createCatalogInternalRouter(useCases, searchQueries),
    useCases,
    relay,
    searchQueries,
    async start() {
      const synced = await useCases.syncCategories(settings.categories);
      reads.invalidate();
      if (synced.changed > 0) deps.logger.info(synced, 'catalog: category tree synced from the store configuration');
      subscriptions = [
        await deps.bus.subscribe(
          upsertReceivedConsumer({
            db: deps.db,
            logger: deps.logger,
            ...(deps.clock ? { clock: deps.clock } : {}),
            applied,
            // Kafka's partitions' runs of a request come from its fetches, the in-memory bus's in one turn (decision 68).
            mergeWaitMs: deps.bus.kind === 'kafka' ? 20 : 0,
            ...(deps.applyPartProducts !== undefined ? { applyPartProducts: deps.applyPartProducts } : {}),
            onCommitted: () => reads.invalidate(),
          }),
        ),
        await deps.bus.subscribe(
          forgetting(productIndexerConsumer({ catalog, search: deps.search, logger: deps.logger, applied }), reads.forget),
        ),
        await deps.bus.subscribe(productViewsConsumer(reads.forget)),
      ];
      if (deps.search.kind === 'embedded') {
        // The embedded index lives in memory: rebuild it from the store, which outlives the process.
        // After subscribing, so that nothing committed in between is missed (indexing twice is harmless).
        const { done } = await useCases.reindexAll();
        if (done > 0) deps.logger.info({ products: done }, 'catalog: embedded search index rebuilt');
      }
      relay.start();
      searchQueries.start();
      await refreshWindows();
      windowTimer = setInterval(() => void refreshWindows(), deps.deliveryWindowCheckMs ?? 60_000);
      windowTimer.unref();
    },
    async stop() {
      if (windowTimer) clearInterval(windowTimer);
      windowTimer = undefined;
      await Promise.all(subscriptions.map((s) => s.stop()));
      subscriptions = [];
      await relay.stop();
      await searchQueries.stop();
    },
    async seed(input) {
      const demo = Array.isArray(input) ? parseDemoCatalog(input) : input;
      let entities = 0;
      for (const market of demo.markets) entities += Number((await useCases.applyMarketUpsert(market)).changed);
      for (const warehouse of demo.warehouses) entities += Number((await useCases.applyWarehouseUpsert(warehouse)).changed);
      for (const size of demo.sizes) entities += Number((await useCases.applySizeUpsert(size)).changed);
      for (const pricelist of demo.pricelists) entities += Number((await useCases.applyPricelistUpsert(pricelist)).changed);
      for (const window of demo.deliverywindows) entities += Number((await useCases.applyDeliveryWindowUpsert(window)).changed);
      let products = 0;
      // A few hundred products a transaction, as a SOAP batch is applied; the changed ones indexed at once.
      for (let i = 0; i < demo.products.length; i += SEED_BATCH) {
        const changed = (await useCases.applyProductUpserts(demo.products.slice(i, i + SEED_BATCH))).filter((r) => r.changed);
        products += changed.length;
        await useCases.indexProducts(changed.map((r) => r.productId));
      }
      reads.invalidate();
      deps.logger.info(
        { products: demo.products.length, changed: products, otherEntitiesChanged: entities },
        'catalog: demo catalog seeded',
      );
    },
  };
}

/**
 * The indexer, forgetting the changed products' views and the kept answers before and after it indexes
 * them: an answer computed meanwhile may hold the index as it was.
 */
function forgetting(consumer: SubscribeOptions, forget: (productIds: number[]) => void): SubscribeOptions {
  const around = async (envelopes: EventEnvelope[], work: () => Promise<void>) => {
    const ids = upsertedProductIds(envelopes);
    forget(ids);
    try {
      await work();
    } finally {
      forget(ids);
    }
  };
  const { handleBatch } = consumer;
  return {
    ...consumer,
    handle: (envelope) => around([envelope], () => consumer.handle(envelope)),
    ...(handleBatch ? { handleBatch: (envelopes: EventEnvelope[]) => around(envelopes, () => handleBatch(envelopes)) } : {}),
  };
}
