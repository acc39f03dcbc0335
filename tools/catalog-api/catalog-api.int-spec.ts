import { MeiliSearchIndex } from '@commerce/catalog-adapters';
import { describeWithEngines, uniqueName } from '@commerce/shared-testing';
import { catalogApiSuite } from './catalog-api.scenario';

// The same API suite with the search on a real Meilisearch (its own index, deleted after).
describeWithEngines('products, filter, URIs and categories on Meilisearch', ['meilisearch'], (engines) => {
  const index = uniqueName('products');
  const meili = () => {
    const key = engines.key('meilisearch');
    return { MEILI_URL: engines.url('meilisearch'), MEILI_INDEX: index, ...(key ? { MEILI_API_KEY: key } : {}) };
  };
  catalogApiSuite('through the checkout API', meili);
  afterAll(async () => {
    const { MEILI_URL, MEILI_API_KEY } = meili();
    await (await MeiliSearchIndex.open(MEILI_URL, { indexName: index, ...(MEILI_API_KEY ? { apiKey: MEILI_API_KEY } : {}) })).deleteIndex();
  });
});
