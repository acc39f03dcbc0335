import type { SearchIndex } from '@commerce/catalog-core';
import type { Logger } from '@commerce/shared-logging';
import { loadMeiliSettings, MEILI_SETTINGS_PATH, MeiliSearchIndex } from './meilisearch.search-index';
import { MiniSearchIndex } from './minisearch.search-index';
import { parseSearchSettings, unfollowedSettingsLine } from './search-settings';

export interface SearchIndexOptions {
  indexName?: string;
  apiKey?: string;
  logger?: Logger;
  /** The settings file (default `infra/meilisearch/settings.json`): Meilisearch's index settings, the embedded engine's synonyms, stop words and ranking rules. */
  settingsFile?: string;
}

/**
 * The search engine named by `MEILI_URL`: `embedded` (MiniSearch in this process) or an http(s) URL of
 * Meilisearch, checked and configured now so that a wrong URL stops start-up with one clear line
 * (`SearchUnavailableError`). Both follow the settings file; what the embedded engine cannot follow is
 * said in one warning line.
 */
export async function createSearchIndex(meiliUrl: string, options: SearchIndexOptions = {}): Promise<SearchIndex> {
  const url = meiliUrl.trim();
  const file = options.settingsFile ?? MEILI_SETTINGS_PATH;
  if (url === 'embedded' || url === '') {
    const settings = parseSearchSettings(loadMeiliSettings(file));
    options.logger?.info(
      { synonyms: settings.synonyms.size, stopWords: settings.stopWords.size },
      'search: embedded engine (MiniSearch) with the settings file',
    );
    const line = unfollowedSettingsLine(settings, file);
    if (line) options.logger?.warn(line);
    return new MiniSearchIndex(settings);
  }
  if (!/^https?:\/\//i.test(url)) throw new Error(`search: unsupported MEILI_URL ${url} (expected "embedded" or an http(s):// URL)`);
  return MeiliSearchIndex.open(url, { ...options, settings: loadMeiliSettings(file) });
}
