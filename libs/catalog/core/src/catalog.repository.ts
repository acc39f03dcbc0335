import type { ProductUpserted } from '@commerce/catalog-contracts';
import type { CatalogRef, Price, Product, ProductView, RefKind, Size } from './product';

/** An event the catalog publishes; written to the outbox in the transaction of the change. */
export type CatalogEvent = ReturnType<typeof ProductUpserted.create>;

/** The writes of one upsert, all in one transaction (state and outbox together). */
export interface CatalogUnitOfWork {
  findProductByExternalId(externalId: string): Promise<Product | null>;
  nextProductId(): Promise<number>;
  nextVariantId(): Promise<number>;
  variantUriTaken(uri: string, exceptVariantId: number): Promise<boolean>;
  saveProduct(product: Product): Promise<void>;

  findRef(kind: RefKind, externalId: string): Promise<CatalogRef | null>;
  refUriTaken(kind: RefKind, uri: string, exceptId: number | null): Promise<boolean>;
  /** Inserts (id null) or updates a ref; returns it with its id. */
  saveRef(kind: RefKind, ref: Omit<CatalogRef, 'id'> & { id: number | null }): Promise<CatalogRef>;

  findSize(externalId: string): Promise<Size | null>;
  saveSize(size: Omit<Size, 'id'> & { id: number | null }): Promise<Size>;

  publish(events: CatalogEvent[]): Promise<void>;
}

/** The catalog's SQL store (knex on Postgres or PGlite). */
export interface CatalogRepository {
  transaction<T>(work: (uow: CatalogUnitOfWork) => Promise<T>): Promise<T>;
  /** Products with their refs; unknown ids are left out. */
  loadProducts(productIds: number[]): Promise<ProductView[]>;
  /** variant id → product id, for the variants that exist. */
  productIdsOfVariants(variantIds: number[]): Promise<Map<number, number>>;
  /** Product ids in id order, after `afterId`, at most `limit` (for reindexing). */
  listProductIds(afterId: number, limit: number): Promise<number[]>;
  countProducts(): Promise<number>;
  /** Prices of variants in a pricelist; variants without one are left out. */
  pricesOf(pricelist: string, variantIds: number[]): Promise<Map<number, Price>>;
}

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
