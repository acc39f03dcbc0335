import type { CatalogRepository } from './catalog.repository';
import type { CatalogRef, Category, ProductView, RefKind } from './product';

/** How long whole listing answers are reused by default (decisions 38, 53): the bound on their staleness. */
export const DEFAULT_READ_CACHE_MS = 2000;
/**
 * How long a product view is kept at most by default (decision 58): views are forgotten when their
 * product's `ProductUpserted` is heard, so this bound only matters for an event this process missed.
 */
export const DEFAULT_VIEW_CACHE_MS = 300_000;

export interface CatalogReadCache {
  /** The repository with its listing reads cached; every other call goes to the store. */
  readonly catalog: CatalogRepository;
  /**
   * A whole listing answer (`POST products`, `POST uri`) by its normalised request (`listingKey`), kept
   * as long as the reads and cleared with them; concurrent misses share one computation; a failure is
   * not kept. Without a cache (`ttlMs` 0) it computes every time.
   */
  answer<T>(key: string, compute: () => Promise<T>): Promise<T>;
  /** Forgets everything: called on this process's own writes (and delivery windows, the category sync). */
  invalidate(): void;
  /**
   * A product changed (its `ProductUpserted` or `StockChanged` was heard, from whichever process made the
   * change): its view is read again, and so are the brands, collections, categories and every kept
   * answer, which may show it. Other products' views stay.
   */
  forget(productIds: number[]): void;
}

/** A request as a cache key: the same JSON whatever the order of its object keys. */
export function listingKey(...parts: unknown[]): string {
  return JSON.stringify(parts, (_key, value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
}

interface Kept<T> {
  at: number;
  value: T;
}

/**
 * The product listing's reads (`POST products`, a category's `POST uri`), kept in process: the page's
 * product views, variant → product, the filter's brands and collections, the category tree, for at most
 * `viewTtlMs` (default `ttlMs`), and whole answers for `ttlMs`. Writes seen by this process (the upserts
 * it applies, delivery windows it opens or closes, the category tree it syncs) clear it all at once; a
 * product's change event (`forget`, from any process) drops that product's view and everything shared
 * (decision 58); the bounds only matter for a change whose event this process never hears. A read
 * started before a clear or a forget never stores what it read. Only the listing uses it:
 * `GET products/{id}` and items stay uncached here (the edge caches a selection's products itself,
 * decision 31).
 */
export function cachedCatalogReads(
  catalog: CatalogRepository,
  options: { ttlMs?: number; viewTtlMs?: number; now?: () => number } = {},
): CatalogReadCache {
  const ttlMs = options.ttlMs ?? DEFAULT_READ_CACHE_MS;
  const viewTtlMs = options.viewTtlMs ?? ttlMs;
  const now = options.now ?? Date.now;
  // Values are promises, so that concurrent misses of a key share one read. A clear replaces the maps:
  // a read in flight then lands in a map nobody reads any more.
  let views = new Map<number, Kept<Promise<ProductView | null>>>();
  let productOf = new Map<number, Kept<Promise<number | null>>>();
  let refs = new Map<string, Kept<Promise<CatalogRef | null>>>();
  let categories: Kept<Promise<Category[]>> | undefined;
  let answers = new Map<string, Kept<Promise<unknown>>>();
  /** Distinct listing requests kept at most (a storefront asks a few hundred pages and facet combinations). */
  const MAX_ANSWERS = 2000;
  const fresh = <T>(kept: Kept<T> | undefined, at: number, bound = viewTtlMs): kept is Kept<T> =>
    kept !== undefined && at - kept.at < bound;
  /** Bounds the maps: past this many entries a map starts over (a listing reads a page at a time). */
  const MAX_ENTRIES = 50_000;

  /** Keyed reads: the fresh (or in-flight) ones from memory, the rest in one call to the store. */
  async function byKey<K, T>(
    map: Map<K, Kept<Promise<T | null>>>,
    keys: K[],
    load: (missing: K[]) => Promise<Map<K, T>>,
  ): Promise<Map<K, T>> {
    const at = now();
    const pending: Array<[K, Promise<T | null>]> = [];
    const missing: K[] = [];
    for (const key of new Set(keys)) {
      const kept = map.get(key);
      if (fresh(kept, at)) pending.push([key, kept.value]);
      else missing.push(key);
    }
    if (missing.length > 0) {
      const loading = load(missing);
      if (map.size + missing.length > MAX_ENTRIES) map.clear();
      for (const key of missing) {
        const value = loading.then((found) => found.get(key) ?? null);
        pending.push([key, value]);
        map.set(key, { at, value });
        // A failed read is not kept (and not reported twice: the callers waiting on it get the error), nor
        // is "not there" (a product or variant created later must not wait for the bound to show).
        value.then(
          (found) => {
            if (found === null && map.get(key)?.value === value) map.delete(key);
          },
          () => {
            if (map.get(key)?.value === value) map.delete(key);
          },
        );
      }
    }
    const values = await Promise.all(pending.map(([, value]) => value));
    const found = new Map<K, T>();
    pending.forEach(([key], i) => {
      const value = values[i];
      if (value !== null && value !== undefined) found.set(key, value);
    });
    return found;
  }

  const cached: CatalogRepository = {
    ...catalog,
    transaction: (work) => catalog.transaction(work),
    listProductIds: (afterId, limit) => catalog.listProductIds(afterId, limit),
    countProducts: () => catalog.countProducts(),
    findUri: (uri) => catalog.findUri(uri),
    findPricelist: (externalId) => catalog.findPricelist(externalId),
    async loadProducts(productIds) {
      const found = await byKey(
        views,
        productIds,
        async (missing) => new Map((await catalog.loadProducts(missing)).map((view) => [view.product.id, view])),
      );
      return productIds.flatMap((id) => {
        const view = found.get(id);
        return view ? [view] : [];
      });
    },
    productIdsOfVariants: (variantIds) => byKey(productOf, variantIds, (missing) => catalog.productIdsOfVariants(missing)),
    // The kept products of these variants: which product a variant is in, then the views, each kept on its own.
    async loadProductsOfVariants(variantIds) {
      return cached.loadProducts([...new Set((await cached.productIdsOfVariants(variantIds)).values())]);
    },
    async findRefs(kind: RefKind, ids: number[]) {
      const found = await byKey(
        refs,
        ids.map((id) => `${kind}:${id}`),
        async (missing) =>
          new Map(
            (
              await catalog.findRefs(
                kind,
                missing.map((key) => Number(key.slice(kind.length + 1))),
              )
            ).map((ref) => [`${kind}:${ref.id}`, ref]),
          ),
      );
      return [...found.values()];
    },
    async listCategories() {
      const at = now();
      if (fresh(categories, at)) return categories.value;
      const value = catalog.listCategories();
      const kept = { at, value };
      categories = kept;
      value.catch(() => {
        if (categories === kept) categories = undefined;
      });
      return value;
    },
  };

  function answer<T>(key: string, compute: () => Promise<T>): Promise<T> {
    if (ttlMs <= 0) return compute();
    const at = now();
    const kept = answers.get(key);
    if (fresh(kept, at, ttlMs)) return kept.value as Promise<T>;
    if (answers.size >= MAX_ANSWERS) answers = new Map();
    const map = answers;
    const value = compute();
    map.set(key, { at, value });
    value.catch(() => {
      if (map.get(key)?.value === value) map.delete(key);
    });
    return value;
  }

  return {
    catalog: viewTtlMs > 0 ? cached : catalog,
    answer,
    invalidate() {
      answers = new Map();
      views = new Map();
      productOf = new Map();
      refs = new Map();
      categories = undefined;
    },
    forget(productIds) {
      // Variant → product never changes once the variant exists (and "none" is never kept): it stays.
      for (const id of productIds) views.delete(id);
      answers = new Map();
      refs = new Map();
      categories = undefined;
    },
  };
}
