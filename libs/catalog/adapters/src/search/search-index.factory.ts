import type { SearchIndex } from '@commerce/catalog-core';
import type { Logger } from '@commerce/shared-logging';
import { MeiliSearchIndex } from './meilisearch.search-index';
import { MiniSearchIndex } from './minisearch.search-index';

export interface SearchIndexOptions {
  indexName?: string;
  apiKey?: string;
  logger?: Logger;
}

/**
 * The search engine named by `MEILI_URL`: `embedded` (MiniSearch in this process) or an http(s) URL of
 * Meilisearch, checked and configured now so that a wrong URL stops start-up with one clear line
 * (`SearchUnavailableError`).
 */
export async function createSearchIndex(meiliUrl: string, options: SearchIndexOptions = {}): Promise<SearchIndex> {
  const url = meiliUrl.trim();
  if (url === 'embedded' || url === '') {
    options.logger?.info('search: embedded engine (MiniSearch)');
    return new MiniSearchIndex();
  }
  if (!/^https?:\/\//i.test(url)) throw new Error(`search: unsupported MEILI_URL ${url} (expected "embedded" or an http(s):// URL)`);
  return MeiliSearchIndex.open(url, options);
}
