import { PRODUCT_FILTER_FIELDS, type ProductFilterField } from '@commerce/shared-config';

/**
 * The search-index port (DESIGN §4): Meilisearch in production, an embedded engine (MiniSearch) for
 * `npm start` and unit tests. Both follow the same matching rules, pinned by one shared test suite:
 * diacritics and case fold, any script is searchable, every word of the query must match (the last one
 * as a prefix), words of 4+ characters tolerate one typo (not on their first letter), shorter words none.
 */

/**
 * One document per shown variant (the checkout API's "product"), whatever its markets and prices: the
 * query side filters on `markets` (`'*'` matches every market) and `pricelists` for the visitor's context.
 * `categoryNames` holds the full paths of names of its categories, so `women` finds everything under Women.
 */
export interface SearchDoc {
  /** The checkout API's product id (the variant id), as a string. */
  id: string;
  /** The same id as a number, for a stable default order. */
  productId: number;
  name: string;
  variantName: string;
  brandName: string;
  collectionName: string;
  categoryNames: string[];
  sku: string;
  uri: string;
  /** Filterable and faceted: ids as strings, null when not set. */
  brand: string | null;
  collection: string | null;
  /** Its own categories: the product's folder first, then the variant's display categories. */
  categories: string[];
  /** Its categories and every category above them: `categories` filters and facets on this (a category holds its subcategories' products). */
  categoryTree: string[];
  inStock: boolean;
  /** Epoch milliseconds, sortable. */
  createdAt: number;
  modifiedAt: number;
  /** Markets (external ids) the variant is displayed in; `['*']` when its displays never named one (every market). */
  markets: string[];
  /** Pricelists that price it; a visitor sees it only where the context's pricelist is among them. */
  pricelists: string[];
  /** Pricelist → price in major units (`priceAsNumber`), for sorting by price (`prices.<pricelist>`). */
  prices: Record<string, number>;
  /** `swatch.desc`: the variant's name. */
  swatchDesc: string;
  /** `items.name`: the names of its sizes. */
  itemNames: string[];
  /** The sizes that can be bought now (stock, preorder, or an active delivery window): `items.name` with `onlyAvailable`. */
  availableItemNames: string[];
  /** Sortable (`sortOrder` field `collectionUri`). */
  collectionUri: string;
  /** `sortOrder` field `categoryItemSort`: the catalog's own order, product by product, its variants in the ERP's order. */
  categoryItemSort: number;
  /** The first shown variant of its product (decision 11). */
  primaryVariant: boolean;
  /** The ERP product's id in the catalog (`silkProduct` / `platformProduct`). */
  platformProduct: number;
  /** Product fields a store may enable as extra filter fields (`productFilterFields`); '' when not set. */
  countryOrigin: string;
  harmCode: string;
  stockUnit: string;
}

/** The attributes searched, in order of importance. */
export const SEARCHABLE_ATTRIBUTES = ['name', 'variantName', 'brandName', 'collectionName', 'categoryNames', 'sku'] as const;

/** Product fields a store may enable as extra filter fields (store configuration `productFilterFields`), each a `SearchDoc` attribute. */
export const EXTRA_FILTER_FIELDS = PRODUCT_FILTER_FIELDS;
export type ExtraFilterField = ProductFilterField;

/** Attributes counted as facets. */
export type FacetField = 'brand' | 'collection' | 'categories' | 'categoryTree' | 'swatchDesc' | ExtraFilterField;
export const FACET_FIELDS: readonly FacetField[] = [
  'brand',
  'collection',
  'categories',
  'categoryTree',
  'swatchDesc',
  ...EXTRA_FILTER_FIELDS,
];
export type FacetCounts = Partial<Record<FacetField, Record<string, number>>>;

export type SortField = 'productId' | 'uri' | 'collectionUri' | 'categoryItemSort' | 'createdAt' | 'modifiedAt';
/** One sort key; `price` sorts on the price in one pricelist. Documents without the value come last in either order. */
export type SortKey = { field: SortField; order: 'asc' | 'desc' } | { field: 'price'; pricelist: string; order: 'asc' | 'desc' };

/**
 * Fields combine with AND; the values of one field with OR. String values match whatever their case
 * (as Meilisearch's filters do); an empty list matches nothing.
 */
export interface SearchFilters {
  ids?: string[];
  /** `silkProduct`: every variant of these ERP products. */
  platformProducts?: number[];
  brands?: string[];
  collections?: string[];
  /** Matched against `categoryTree`: a category and everything below it. */
  categories?: string[];
  swatchDescs?: string[];
  itemNames?: string[];
  /** `items.name` with `onlyAvailable`: one of these sizes can be bought. */
  availableItemNames?: string[];
  inStock?: boolean;
  /** `uri`: the variants with these ids OR the products in (or below) these categories. */
  uri?: { ids: string[]; categories: string[] };
  /** Extra product filter fields: field → values. */
  extra?: Partial<Record<ExtraFilterField, string[]>>;
}

/** What a visitor may see at all: the market's documents priced in the pricelist. Absent parts restrict nothing. */
export interface SearchScope {
  market?: string;
  pricelist?: string;
}

export interface SearchQuery {
  /** Free text; empty or absent matches every document. */
  text?: string;
  scope?: SearchScope;
  filters?: SearchFilters;
  /** Ranks right after "every word matches", before typos and proximity: a requested order is the order. */
  sort?: SortKey[];
  /** Facets to count over the matching documents (value → count), without paging. */
  facets?: FacetField[];
  offset: number;
  limit: number;
}

export interface SearchResult {
  /** Ids of the page, best first. */
  ids: string[];
  /** Matching documents without paging. */
  total: number;
  facets?: FacetCounts;
}

export interface SearchIndex {
  readonly kind: 'embedded' | 'meilisearch';
  /** Adds or replaces documents by id; resolves once they are searchable. */
  upsert(docs: SearchDoc[]): Promise<void>;
  /** Removes documents by id (unknown ids are ignored); resolves once done. */
  remove(ids: string[]): Promise<void>;
  search(query: SearchQuery): Promise<SearchResult>;
  /**
   * Facet counts over every document in the scope, no text and no filters: a filter value's
   * `totalCount`. Cheap on repeat (cached until the index changes, or briefly where another process
   * may change it).
   */
  facetTotals(scope: SearchScope, facets: FacetField[]): Promise<FacetCounts>;
  /** Removes every document. */
  clear(): Promise<void>;
  /** Readiness: resolves when the engine answers. */
  ping(): Promise<void>;
  close?(): Promise<void>;
}
