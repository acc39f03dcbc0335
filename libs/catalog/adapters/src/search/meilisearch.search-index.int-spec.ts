import { uniqueName, describeWithEngines } from '@commerce/shared-testing';
import { MeiliSearchIndex } from './meilisearch.search-index';
import { searchIndexContract } from './search-index.contract';

describeWithEngines('Meilisearch search index matching rules', ['meilisearch'], (engines) => {
  searchIndexContract(
    () =>
      MeiliSearchIndex.open(engines.url('meilisearch'), {
        indexName: uniqueName('products'),
        ...(process.env['MEILI_API_KEY'] ? { apiKey: process.env['MEILI_API_KEY'] } : {}),
      }),
    async (index) => {
      await (index as MeiliSearchIndex).deleteIndex();
      await (index as MeiliSearchIndex).close();
    },
  );
});
