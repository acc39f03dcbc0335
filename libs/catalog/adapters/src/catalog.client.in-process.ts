import type { CatalogClient } from '@commerce/catalog-contracts';

/** The catalog client of the all-in-one: the use cases called directly (each call builds fresh DTOs, nothing shared). */
export function createInProcessCatalogClient(useCases: CatalogClient): CatalogClient {
  return {
    searchProducts: (query, context) => useCases.searchProducts(query, context),
    getProduct: (id, context) => useCases.getProduct(id, context),
    getItem: (id, context) => useCases.getItem(id, context),
    getItems: (ids, context) => useCases.getItems(ids, context),
    listCategories: () => useCases.listCategories(),
    resolveUri: (query, context) => useCases.resolveUri(query, context),
    getPricelist: (id) => useCases.getPricelist(id),
  };
}
