import { reindexAll as reindexFromStore, type ReindexProgress, type SearchIndex } from '@commerce/catalog-core';
import type { Db } from '@commerce/shared-db';
import { createCatalogRepository } from './catalog.repository.knex';
import type { MeiliSearchIndex } from './search/meilisearch.search-index';

export type { ReindexProgress } from '@commerce/catalog-core';

/**
 * Rebuilds the search index from the catalog's store in place: cleared, then filled batch by batch, so
 * searches meanwhile see a partial catalogue (the embedded engine at start, benchmarks). `onProgress`
 * gets `{done, total}` products after each batch. The catalog schema must be migrated.
 */
export function reindexAll(deps: { db: Db; search: SearchIndex }, onProgress?: (p: ReindexProgress) => void): Promise<ReindexProgress> {
  return reindexFromStore({ catalog: createCatalogRepository(deps.db), search: deps.search }, onProgress);
}

export interface RebuildOptions {
  /** The index settings (default `infra/meilisearch/settings.json`). */
  settings?: Record<string, unknown>;
  onProgress?: (p: ReindexProgress) => void;
  /** Told each step: `staging <uid>`, `swap`, `done`. */
  onStep?: (step: string) => void;
}

/**
 * The reindex command (`tools/search/reindex.ts`): applies the settings and rebuilds a Meilisearch index
 * without a window in which searches on it fail or see a partial catalogue. A new index
 * (`<name>_tmp_<timestamp>`) gets the settings and every product, then Meilisearch's index swap makes it
 * the live one atomically and the previous contents are deleted. On failure the new index is deleted and
 * the live one is left as it was. The live index's own settings are not touched before the swap.
 */
export function rebuildSearchIndex(deps: { db: Db; search: MeiliSearchIndex }, options: RebuildOptions = {}): Promise<ReindexProgress> {
  const catalog = createCatalogRepository(deps.db);
  return deps.search.rebuild((staging) => reindexFromStore({ catalog, search: staging }, options.onProgress), {
    ...(options.settings ? { settings: options.settings } : {}),
    ...(options.onStep ? { onStep: options.onStep } : {}),
  });
}
