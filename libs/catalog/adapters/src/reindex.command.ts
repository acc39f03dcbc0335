import { reindexAll as reindexFromStore, type ReindexProgress, type SearchIndex } from '@commerce/catalog-core';
import type { Db } from '@commerce/shared-db';
import { createCatalogRepository } from './catalog.knex-repository';

export type { ReindexProgress } from '@commerce/catalog-core';

/**
 * Rebuilds the search index from the catalog's store in place: cleared, then filled batch by batch, so
 * searches meanwhile see a partial catalogue (the embedded engine at start, benchmarks). `onProgress`
 * gets `{done, total}` products after each batch. The catalog schema must be migrated.
 */
export function reindexAll(deps: { db: Db; search: SearchIndex }, onProgress?: (p: ReindexProgress) => void): Promise<ReindexProgress> {
  return reindexFromStore({ catalog: createCatalogRepository(deps.db), search: deps.search }, onProgress);
}
