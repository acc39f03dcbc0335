import type { ProductUpserted, StockChanged, StockCommitted } from '@commerce/catalog-contracts';
import type { BrandsAndCollectionsRepository } from './brands-and-collections.repository';
import type { CategoriesRepository } from './categories.repository';
import type { DeliveryWindowsRepository } from './delivery-windows.repository';
import type { MarketsAndWarehousesRepository } from './markets-and-warehouses.repository';
import type { PricesRepository } from './prices.repository';
import type { ProductsRepository } from './products.repository';
import type { CatalogRef, Category, Pricelist, Product, ProductView, RefKind } from './product';
import type { SizesRepository } from './sizes.repository';

/** An event the catalog publishes; written to the outbox in the transaction of the change. */
export type CatalogEvent =
  ReturnType<typeof ProductUpserted.create> | ReturnType<typeof StockChanged.create> | ReturnType<typeof StockCommitted.create>;

/** The catalog's outbox: events recorded in the transaction of the change they tell of. */
export interface CatalogOutbox {
  publish(events: CatalogEvent[]): Promise<void>;
}

/**
 * One transaction over the catalog's store: a repository per aggregate, all on the same transaction, so an
 * upsert's state and its outbox rows commit together or not at all.
 */
export interface CatalogUnitOfWork {
  products: ProductsRepository;
  brandsAndCollections: BrandsAndCollectionsRepository;
  categories: CategoriesRepository;
  sizes: SizesRepository;
  marketsAndWarehouses: MarketsAndWarehousesRepository;
  prices: PricesRepository;
  deliveryWindows: DeliveryWindowsRepository;
  outbox: CatalogOutbox;
}

/** Where a URI leads: a variant (checkout product), a category, both or neither. */
export interface UriTarget {
  variantId: number | null;
  categoryId: number | null;
}

/**
 * The catalog's SQL store (knex on Postgres or PGlite): its writes in a unit of work, and what the queries
 * and the indexer read outside one.
 */
export interface CatalogRepository {
  transaction<T>(work: (uow: CatalogUnitOfWork) => Promise<T>): Promise<T>;
  /** Products with everything their projection reads; unknown ids are left out. */
  loadProducts(productIds: number[]): Promise<ProductView[]>;
  /** The views of products at hand (as an apply wrote them): what a view adds to the product is read. */
  productViews(products: Product[]): Promise<ProductView[]>;
  /** The products of these variants (those that exist), with everything their projection reads. */
  loadProductsOfVariants(variantIds: number[]): Promise<ProductView[]>;
  /** variant id → product id, for the variants that exist. */
  productIdsOfVariants(variantIds: number[]): Promise<Map<number, number>>;
  /** Product ids in id order, after `afterId`, at most `limit` (for reindexing). */
  listProductIds(afterId: number, limit: number): Promise<number[]>;
  countProducts(): Promise<number>;
  /** Every category in tree order (GET categories): each followed by its children, siblings in configured order. */
  listCategories(): Promise<Category[]>;
  /** Brands or collections by id (the `filter`'s names); unknown ids are left out. */
  findRefs(kind: RefKind, ids: number[]): Promise<CatalogRef[]>;
  /** What a URI (a variant's `uri` or a category's full path) leads to (POST uri). */
  findUri(uri: string): Promise<UriTarget>;
  /** A pricelist by the ERP's id (a B2B buyer's, to price its session in); null when never sent. */
  findPricelist(externalId: string): Promise<Pricelist | null>;
}

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
