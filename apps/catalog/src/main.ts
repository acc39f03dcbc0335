import { daysToMs, loadConfig, loadStoreConfig, retentionSettings } from '@commerce/shared-config';
import { createDbEngineFromConfig } from '@commerce/shared-db';
import { createEventBus, startRetentionPruner, busNaming } from '@commerce/shared-bus';
import { runService, startHttpService, startWithClosers } from '@commerce/shared-http';
import { createLogger } from '@commerce/shared-logging';
import { buildCatalogService, createSearchIndex, searchQueriesRetention } from '@commerce/catalog-adapters';
import { catalogSettings } from '@commerce/catalog-core';
import { ConfigSchema } from './config';

runService('catalog', async () => {
  const config = loadConfig(ConfigSchema);
  const logger = createLogger('catalog', config.LOG_LEVEL);
  const store = loadStoreConfig(config.STORE_CONFIG);
  return startWithClosers(async (closers) => {
    const engine = await createDbEngineFromConfig(config, logger);
    closers.add(() => engine.close());
    const db = engine.forSchema(config.DATABASE_SCHEMA);
    const bus = await createEventBus(config.KAFKA_BROKERS, { clientId: 'catalog', logger, ...busNaming(config) });
    closers.add(() => bus.close());
    const search = await createSearchIndex(config.MEILI_URL, {
      logger,
      indexName: config.MEILI_INDEX,
      ...(config.MEILI_API_KEY ? { apiKey: config.MEILI_API_KEY } : {}),
    });
    const catalog = await buildCatalogService({
      db,
      bus,
      search,
      logger,
      settings: catalogSettings(store),
      readCacheMs: config.READ_CACHE_MS,
      applyPartProducts: config.APPLY_PART_PRODUCTS,
      viewCacheMs: config.VIEW_CACHE_MS,
      outboxPollMs: config.OUTBOX_POLL_MS,
    });
    await catalog.start();
    closers.add(() => catalog.stop());
    const retention = startRetentionPruner(db, {
      ...retentionSettings(config),
      tables: [searchQueriesRetention(daysToMs(config.SEARCH_QUERIES_RETENTION_DAYS))],
      logger,
    });
    closers.add(retention.stop);
    return startHttpService({
      service: 'catalog',
      logger,
      routers: [catalog.router, catalog.stockRouter],
      port: config.PORT,
      host: config.HOST,
      reusePort: config.REUSE_PORT,
      // Not the bus: events go through the outbox, which holds them while Kafka is away (decision 133).
      readiness: [
        { name: 'database', check: () => db.ping() },
        { name: 'search', check: () => search.ping() },
      ],
      metricsRegistries: [retention.registry, catalog.searchQueries.registry],
      onShutdown: closers.all,
    });
  });
});
