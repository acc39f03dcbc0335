import type { ProductUpserted, StockChanged } from '@commerce/catalog-contracts';
import type {
  CatalogRef,
  Category,
  DeliveryWindow,
  Market,
  Pricelist,
  PricelistItem,
  Product,
  ProductView,
  RefKind,
  Size,
  SizeTable,
  Warehouse,
} from './product';

/** An event the catalog publishes; written to the outbox in the transaction of the change. */
export type CatalogEvent = ReturnType<typeof ProductUpserted.create> | ReturnType<typeof StockChanged.create>;

/** A product's two ids: what `ProductUpserted` carries. */
export interface ProductKey {
  id: number;
  externalId: string;
}

/** The writes of one upsert, all in one transaction (state and outbox together). */
export interface CatalogUnitOfWork {
  /** The products among these external ids, with their variants, items and stock. */
  findProductsByExternalIds(externalIds: string[]): Promise<Product[]>;
  /** `count` new ids of products or variants, ascending. */
  nextIds(kind: 'product' | 'variant', count: number): Promise<number[]>;
  /** Variants whose URI is one of these slugs or one of them with a `-<n>` suffix (what `uniqueSlug` tries). */
  variantUris(bases: string[]): Promise<Array<{ id: number; uri: string }>>;
  /** Writes the products, their variants, items and per-warehouse stock (listed ones; unlisted rows are kept). */
  saveProducts(products: Product[]): Promise<void>;

  findRefsByExternalIds(kind: RefKind, externalIds: string[]): Promise<CatalogRef[]>;
  refUriTaken(kind: RefKind, uri: string, exceptId: number | null): Promise<boolean>;
  /** Where the run of stored URIs `<base>`, `<base>-2` … of this kind ends (0 when `<base>` is free): `uniqueSlug`'s hint. */
  refUriHighestSuffix(kind: RefKind, base: string): Promise<number>;
  /** Inserts (id null) or updates a ref; returns it with its id. */
  saveRef(kind: RefKind, ref: Omit<CatalogRef, 'id'> & { id: number | null }): Promise<CatalogRef>;

  findCategoriesByExternalIds(externalIds: string[]): Promise<Category[]>;
  /** Every category, in no particular order. */
  listCategories(): Promise<Category[]>;
  nextCategoryId(): Promise<number>;
  categoryUriTaken(uri: string, exceptId: number | null): Promise<boolean>;
  /** Where the run of stored category URIs `<base>`, `<base>-2` … ends (0 when `<base>` is free): `uniqueSlug`'s hint. */
  categoryUriHighestSuffix(base: string): Promise<number>;
  /** The position after every top-level category (where an unconfigured category goes). */
  nextTopCategoryPosition(): Promise<number>;
  /** Inserts or updates these categories (ids given); URIs may move between them. */
  saveCategories(categories: Category[]): Promise<void>;

  findSizesByExternalIds(externalIds: string[]): Promise<Size[]>;
  saveSize(size: Omit<Size, 'id'> & { id: number | null }): Promise<Size>;
  findSizeTable(externalId: string): Promise<SizeTable | null>;
  saveSizeTable(table: SizeTable): Promise<void>;

  findMarket(externalId: string): Promise<Market | null>;
  /** External ids of every market the ERP has sent. */
  listMarketIds(): Promise<string[]>;
  saveMarket(market: Market): Promise<void>;
  findWarehouse(externalId: string): Promise<Warehouse | null>;
  saveWarehouse(warehouse: Warehouse): Promise<void>;

  findPricelist(externalId: string): Promise<Pricelist | null>;
  savePricelist(pricelist: Pricelist): Promise<void>;
  /** Rows of a pricelist, only those of the given products when given. */
  pricelistItems(pricelist: string, productExternalIds?: string[]): Promise<PricelistItem[]>;
  /** Inserts or replaces rows by (pricelist, product, variation). */
  savePricelistItems(items: PricelistItem[]): Promise<void>;

  findDeliveryWindow(externalId: string): Promise<DeliveryWindow | null>;
  listDeliveryWindows(): Promise<DeliveryWindow[]>;
  /** Writes the window and replaces its variations with the given ones. */
  saveDeliveryWindow(window: DeliveryWindow): Promise<void>;
  setDeliveryWindowActiveIndexed(externalId: string, active: boolean): Promise<void>;

  /** Products that exist among these external ids. */
  productsByExternalIds(externalIds: string[]): Promise<ProductKey[]>;
  /** Products with an item of one of these sizes. */
  productsWithSizes(sizeIds: number[]): Promise<ProductKey[]>;
  /** Products whose variations, or whose items' sizes, use this size table. */
  productsWithSizeTable(tableExternalId: string): Promise<ProductKey[]>;
  /** Products with a variation of one of these external ids. */
  productsWithVariations(variationExternalIds: string[]): Promise<ProductKey[]>;
  /** Products pointing at the brand or collection. */
  productsWithRef(kind: RefKind, id: number): Promise<ProductKey[]>;
  /** Products whose folder or one of whose variants' categories is among these. */
  productsInCategories(categoryIds: number[]): Promise<ProductKey[]>;

  publish(events: CatalogEvent[]): Promise<void>;
}

/** Where a URI leads: a variant (checkout product), a category, both or neither. */
export interface UriTarget {
  variantId: number | null;
  categoryId: number | null;
}

/** The catalog's SQL store (knex on Postgres or PGlite). */
export interface CatalogRepository {
  transaction<T>(work: (uow: CatalogUnitOfWork) => Promise<T>): Promise<T>;
  /** Products with everything their projection reads; unknown ids are left out. */
  loadProducts(productIds: number[]): Promise<ProductView[]>;
  /** The views of products at hand (as an apply wrote them): what a view adds to the product is read. */
  productViews(products: Product[]): Promise<ProductView[]>;
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
