import { readFileSync } from 'node:fs';
import { catalogSettings, type SearchIndex } from '@commerce/catalog-core';
import { createEventBus } from '@commerce/shared-bus';
import { parseStoreConfig } from '@commerce/shared-config';
import { createDbEngine } from '@commerce/shared-db';
import type { Logger } from '@commerce/shared-logging';
import { buildCatalogService } from '../catalog.service';
import { parseDemoCatalog } from '../demo-catalog';
import { reindexAll } from '../reindex.command';
import { MiniSearchIndex } from './minisearch.search-index';
import { productsOfVariants, type Judgements } from './relevance';

export interface JudgedCatalog {
  /** Variant id → ERP product id. */
  productOf: Map<string, string>;
  /** Writes the whole catalogue into an index (any engine), as the reindex command does. */
  fill(index: SearchIndex): Promise<void>;
  close(): Promise<void>;
}

/**
 * The catalogue the judgements grade (`judgements.catalog` with `judgements.store`'s category tree),
 * applied by the catalog's own use cases to an in-memory PGlite, so that every engine is filled with
 * the very documents the catalog would index.
 */
export async function openJudgedCatalog(judgements: Judgements, logger: Logger): Promise<JudgedCatalog> {
  const store = parseStoreConfig(JSON.parse(readFileSync(judgements.store, 'utf8')));
  const engine = await createDbEngine('pglite://memory', { logger });
  const db = engine.forSchema('catalog');
  const bus = await createEventBus('memory', { clientId: 'search-eval', logger });
  const settings = catalogSettings(store);
  const service = await buildCatalogService({ db, bus, search: new MiniSearchIndex(), logger, settings });
  await service.useCases.syncCategories(settings.categories);
  await service.seed(parseDemoCatalog(JSON.parse(readFileSync(judgements.catalog, 'utf8'))));
  const productOf = await productsOfVariants(db);
  return {
    productOf,
    async fill(index) {
      await reindexAll({ db, search: index });
    },
    async close() {
      await bus.close();
      await engine.close();
    },
  };
}
