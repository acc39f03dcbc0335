import type { z } from 'zod';
import { daysToMs } from '@commerce/shared-config';
import { enginesOf, type ModuleContext, type ServiceEngines, type ServiceModule } from '@commerce/shared-http';
import { catalogSettings } from '@commerce/catalog-core';
import type { catalogEnv } from './catalog.env';
import { buildCatalogService, type CatalogService } from './catalog.service';
import { searchQueriesRetention } from './search/search-queries.store';
import { createSearchIndex } from './search/search-index.factory';

export type CatalogModuleConfig = z.infer<z.ZodObject<ReturnType<typeof catalogEnv>>> & { MEILI_URL: string };

/**
 * The catalog as a process runs it (its own, or the all-in-one): the search index MEILI_URL names, the service
 * on the store's settings, its internal routes (products, stock holds), search in its readiness, the counts of
 * what shoppers searched for in its metrics and its retention.
 */
export async function catalogModule(
  config: CatalogModuleConfig,
  context: ServiceEngines & ModuleContext,
): Promise<CatalogService & ServiceModule> {
  const search = await createSearchIndex(config.MEILI_URL, {
    logger: context.logger,
    indexName: config.MEILI_INDEX,
    ...(config.MEILI_API_KEY ? { apiKey: config.MEILI_API_KEY } : {}),
  });
  const catalog = await buildCatalogService({
    ...enginesOf(context),
    search,
    settings: catalogSettings(context.store),
    readCacheMs: config.READ_CACHE_MS,
    applyPartProducts: config.APPLY_PART_PRODUCTS,
    viewCacheMs: config.VIEW_CACHE_MS,
  });
  return Object.assign(catalog, {
    internalRouters: [catalog.router, catalog.stockRouter],
    readiness: [{ name: 'search', check: () => search.ping() }],
    metricsRegistries: [catalog.searchQueries.registry],
    retention: [searchQueriesRetention(daysToMs(config.SEARCH_QUERIES_RETENTION_DAYS))],
  });
}
