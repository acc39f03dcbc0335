import type { SoapDeliveryWindow, SoapMarket, SoapPricelist, SoapProduct, SoapSize, SoapWarehouse } from '@commerce/erp-contracts';
import type { CatalogClient } from '@commerce/catalog-contracts';
import type { CategoryNode } from '@commerce/shared-config';
import { applyDeliveryWindowUpsert, refreshDeliveryWindows } from './apply-delivery-window-upsert.use-cases';
import { applyMarketUpsert } from './apply-market-upsert.use-cases';
import { applyPricelistUpsert } from './apply-pricelist-upsert.use-cases';
import { applyProductUpsert, applyProductUpserts, type ApplyUpsertResult } from './apply-product-upsert.use-cases';
import { applySizeUpsert } from './apply-size-upsert.use-cases';
import { applyWarehouseUpsert } from './apply-warehouse-upsert.use-cases';
import { listingKey, type CatalogReadCache } from './catalog-read-cache';
import type { CatalogSettings } from './catalog-settings';
import type { CatalogRepository, Clock } from './catalog.repository';
import { indexProduct, indexProducts, reindexAll, type ReindexProgress } from './index-product.use-cases';
import { getItem, getItems, getProduct, listCategories, resolveUri, searchProducts } from './product-queries.use-cases';
import type { SearchIndex } from './search-index.port';
import type { SearchQueryLog } from './search-queries';
import { syncCategories } from './sync-categories.use-cases';
import type { ApplyEntityResult } from './upsert.helpers';

export interface CatalogDeps {
  catalog: CatalogRepository;
  search: SearchIndex;
  /** From the store configuration; defaults when absent (tests, tools). */
  settings?: CatalogSettings;
  clock?: Clock;
  /** The listing's reads, cached (`cachedCatalogReads`); `catalog` when absent. */
  listingReads?: CatalogRepository;
  /** Whole listing answers by their normalised request (`CatalogReadCache.answer`); computed every time when absent. */
  listingAnswers?: CatalogReadCache['answer'];
  /** Counts text searches (whether answered from the cache or not) for the search team; none when absent. */
  searchLog?: SearchQueryLog;
}

/** The catalog's use cases bound to their ports: the queries the edge asks, and the commands consumers run. */
export interface CatalogUseCases extends CatalogClient {
  applyProductUpsert(product: SoapProduct): Promise<ApplyUpsertResult>;
  /** Products of one batch, in one transaction (set-based reads and writes). */
  applyProductUpserts(products: SoapProduct[]): Promise<ApplyUpsertResult[]>;
  applySizeUpsert(size: SoapSize): Promise<ApplyEntityResult>;
  applyPricelistUpsert(pricelist: SoapPricelist): Promise<ApplyEntityResult>;
  applyMarketUpsert(market: SoapMarket): Promise<ApplyEntityResult>;
  applyWarehouseUpsert(warehouse: SoapWarehouse): Promise<ApplyEntityResult>;
  applyDeliveryWindowUpsert(window: SoapDeliveryWindow): Promise<ApplyEntityResult>;
  refreshDeliveryWindows(): Promise<{ windows: number; affectedProducts: number }>;
  syncCategories(tree?: CategoryNode[]): Promise<{ changed: number; affectedProducts: number }>;
  indexProduct(productId: number): Promise<{ indexed: number; removed: number }>;
  indexProducts(productIds: number[]): Promise<{ indexed: number; removed: number }>;
  reindexAll(onProgress?: (p: ReindexProgress) => void): Promise<ReindexProgress>;
}

const answered = <T>(deps: CatalogDeps, key: string, compute: () => Promise<T>): Promise<T> =>
  deps.listingAnswers ? deps.listingAnswers(key, compute) : compute();

export function catalogUseCases(deps: CatalogDeps): CatalogUseCases {
  return {
    searchProducts: async (query, context) => {
      const answer = await answered(deps, listingKey('products', query, context), () => searchProducts(deps, query, context));
      if (deps.searchLog && query.search && query.search.trim() !== '')
        deps.searchLog.record({
          text: query.search,
          market: context.market ?? '',
          language: context.language ?? '',
          found: answer.productCount,
        });
      return answer;
    },
    getProduct: (id, context) => getProduct(deps, id, context),
    getItem: (id, context) => getItem(deps, id, context),
    getItems: (ids, context) => getItems(deps, ids, context),
    listCategories: () => listCategories(deps),
    resolveUri: (query, context) => answered(deps, listingKey('uri', query, context), () => resolveUri(deps, query, context)),
    getPricelist: async (id) => {
      const found = await deps.catalog.findPricelist(id);
      return found ? { pricelist: found.externalId, currency: found.currency } : null;
    },
    applyProductUpsert: (product) => applyProductUpsert(deps, product),
    applyProductUpserts: (products) => applyProductUpserts(deps, products),
    applySizeUpsert: (size) => applySizeUpsert(deps, size),
    applyPricelistUpsert: (pricelist) => applyPricelistUpsert(deps, pricelist),
    applyMarketUpsert: (market) => applyMarketUpsert(deps, market),
    applyWarehouseUpsert: (warehouse) => applyWarehouseUpsert(deps, warehouse),
    applyDeliveryWindowUpsert: (window) => applyDeliveryWindowUpsert(deps, window),
    refreshDeliveryWindows: () => refreshDeliveryWindows(deps),
    syncCategories: (tree) => syncCategories(deps, tree ?? deps.settings?.categories ?? []),
    indexProduct: (productId) => indexProduct(deps, productId),
    indexProducts: (productIds) => indexProducts(deps, productIds),
    reindexAll: (onProgress) => reindexAll(deps, onProgress),
  };
}
