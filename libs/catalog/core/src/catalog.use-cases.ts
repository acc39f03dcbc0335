import type { SoapProduct } from '@commerce/backoffice-contracts';
import type { CatalogClient } from '@commerce/catalog-contracts';
import { applyProductUpsert, type ApplyUpsertResult } from './apply-product-upsert.use-case';
import type { CatalogRepository, Clock } from './catalog.repository';
import { indexProduct, reindexAll, type ReindexProgress } from './index-product.use-case';
import { getItem, getProduct, searchProducts } from './product-queries.use-case';
import type { SearchIndex } from './search-index.port';

export interface CatalogDeps {
  catalog: CatalogRepository;
  search: SearchIndex;
  clock?: Clock;
}

/** The catalog's use cases bound to their ports: the queries the edge asks, and the commands consumers run. */
export interface CatalogUseCases extends CatalogClient {
  applyProductUpsert(product: SoapProduct): Promise<ApplyUpsertResult>;
  indexProduct(productId: number): Promise<{ indexed: number; removed: number }>;
  reindexAll(onProgress?: (p: ReindexProgress) => void): Promise<ReindexProgress>;
}

export function catalogUseCases(deps: CatalogDeps): CatalogUseCases {
  return {
    searchProducts: (query, context) => searchProducts(deps, query, context),
    getProduct: (id, context) => getProduct(deps, id, context),
    getItem: (id, context) => getItem(deps, id, context),
    applyProductUpsert: (product) => applyProductUpsert(deps, product),
    indexProduct: (productId) => indexProduct(deps, productId),
    reindexAll: (onProgress) => reindexAll(deps, onProgress),
  };
}
