import { uniqueName, describeWithEngines } from '@commerce/shared-testing';
import { MeiliSearchIndex } from './meilisearch.search-index';
import { searchIndexContract } from './search-index.contract';

// MEILI_URL and MEILI_MASTER_KEY as `tools/infra/up` prints them (or a container when Docker answers).
describeWithEngines('Meilisearch search index matching rules', ['meilisearch'], (engines) => {
  searchIndexContract(
    (settings) => {
      const apiKey = engines.key('meilisearch');
      return MeiliSearchIndex.open(engines.url('meilisearch'), {
        indexName: uniqueName('products'),
        ...(apiKey ? { apiKey } : {}),
        ...(settings ? { settings } : {}),
      });
    },
    async (index) => {
      await (index as MeiliSearchIndex).deleteIndex();
      await (index as MeiliSearchIndex).close();
    },
  );
});
