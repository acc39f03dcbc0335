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
  categories: string[];
  inStock: boolean;
  /** Epoch milliseconds, sortable. */
  createdAt: number;
  modifiedAt: number;
  /** Markets (external ids) the variant is displayed in; `['*']` when its displays never named one (every market). */
  markets: string[];
  /** Pricelists that price it; a visitor sees it only where the context's pricelist is among them. */
  pricelists: string[];
  /** Pricelist → price in major units (`priceAsNumber`), for sorting by price. */
  prices: Record<string, number>;
  /** `swatch.desc`: the variant's name. */
  swatchDesc: string;
  /** `items.name`: the names of its sizes. */
  itemNames: string[];
  /** The sizes that can be bought now (stock, preorder, or an active delivery window): `items.name` with `onlyAvailable`. */
  availableItemNames: string[];
  /** Sortable (`sortOrder` field `collectionUri`). */
  collectionUri: string;
  /** The first shown variant of its product (decision 11). */
  primaryVariant: boolean;
  /** The ERP product's id in the catalog (`silkProduct` / `platformProduct`). */
  platformProduct: number;
}

/** The attributes searched, in order of importance. */
export const SEARCHABLE_ATTRIBUTES = ['name', 'variantName', 'brandName', 'collectionName', 'categoryNames', 'sku'] as const;

export type FacetField = 'brand' | 'collection' | 'categories';
export const FACET_FIELDS: readonly FacetField[] = ['brand', 'collection', 'categories'];

export type SortField = 'productId' | 'uri' | 'createdAt' | 'modifiedAt';

/** Fields combine with AND; the values of one field with OR. */
export interface SearchFilters {
  ids?: string[];
  brands?: string[];
  collections?: string[];
  categories?: string[];
  inStock?: boolean;
}

export interface SearchQuery {
  /** Free text; empty or absent matches every document. */
  text?: string;
  filters?: SearchFilters;
  /** Applied after relevance when there is text, alone when there is none. */
  sort?: Array<{ field: SortField; order: 'asc' | 'desc' }>;
  /** Facets to count over the matching documents (value → count). */
  facets?: FacetField[];
  offset: number;
  limit: number;
}

export interface SearchResult {
  /** Ids of the page, best first. */
  ids: string[];
  /** Matching documents without paging. */
  total: number;
  facets?: Partial<Record<FacetField, Record<string, number>>>;
}

export interface SearchIndex {
  readonly kind: 'embedded' | 'meilisearch';
  /** Adds or replaces documents by id; resolves once they are searchable. */
  upsert(docs: SearchDoc[]): Promise<void>;
  /** Removes documents by id (unknown ids are ignored); resolves once done. */
  remove(ids: string[]): Promise<void>;
  search(query: SearchQuery): Promise<SearchResult>;
  /** Removes every document. */
  clear(): Promise<void>;
  /** Readiness: resolves when the engine answers. */
  ping(): Promise<void>;
  close?(): Promise<void>;
}
