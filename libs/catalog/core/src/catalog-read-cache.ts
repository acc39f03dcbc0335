import type { CatalogRepository } from './catalog.repository';
import type { CatalogRef, Category, ProductView, RefKind } from './product';

/** How long the listing's reads are reused by default (decision 35): the bound on their staleness. */
export const DEFAULT_READ_CACHE_MS = 2000;

export interface CatalogReadCache {
  /** The repository with its listing reads cached; every other call goes to the store. */
  readonly catalog: CatalogRepository;
  /** Forgets everything: called on this process's own writes and on every `ProductUpserted` it indexes. */
  invalidate(): void;
}

interface Kept<T> {
  at: number;
  value: T;
}

/**
 * The product listing's reads (`POST products`, a category's `POST uri`), kept in process for `ttlMs`:
 * the page's product views, variant → product, the filter's brands and collections, the category tree.
 * Writes seen by this process (the upserts it applies, the `ProductUpserted` it indexes, delivery windows
 * it opens or closes, the category tree it syncs) clear it at once; writes by another process show
 * within `ttlMs`, the eventual consistency of reads (decision 35). A read started before a clear never
 * stores what it read. Only the listing uses it: `GET products/{id}` and items stay uncached here (the
 * edge caches a selection's products itself, decision 31).
 */
export function cachedCatalogReads(catalog: CatalogRepository, options: { ttlMs?: number; now?: () => number } = {}): CatalogReadCache {
  const ttlMs = options.ttlMs ?? DEFAULT_READ_CACHE_MS;
  const now = options.now ?? Date.now;
  let generation = 0;
  let views = new Map<number, Kept<ProductView | null>>();
  let productOf = new Map<number, Kept<number | null>>();
  let refs = new Map<string, Kept<CatalogRef | null>>();
  let categories: Kept<Category[]> | undefined;
  const fresh = <T>(kept: Kept<T> | undefined, at: number): kept is Kept<T> => kept !== undefined && at - kept.at < ttlMs;
  /** Bounds the maps: past this many entries a map starts over (a listing reads a page at a time). */
  const MAX_ENTRIES = 50_000;
  const put = <K, T>(map: Map<K, Kept<T>>, key: K, value: T, at: number) => {
    if (map.size >= MAX_ENTRIES) map.clear();
    map.set(key, { at, value });
  };

  /** Keyed reads: the fresh ones from memory, the rest in one call to the store. */
  async function byKey<K, T>(
    map: () => Map<K, Kept<T | null>>,
    keys: K[],
    load: (missing: K[]) => Promise<Map<K, T>>,
  ): Promise<Map<K, T>> {
    const at = now();
    const found = new Map<K, T>();
    const missing: K[] = [];
    for (const key of new Set(keys)) {
      const kept = map().get(key);
      if (fresh(kept, at)) {
        if (kept.value !== null) found.set(key, kept.value);
      } else missing.push(key);
    }
    if (missing.length === 0) return found;
    const started = generation;
    const loaded = await load(missing);
    const store = started === generation && ttlMs > 0;
    for (const key of missing) {
      const value = loaded.get(key);
      if (value !== undefined) found.set(key, value);
      if (store) put(map(), key, value ?? null, at);
    }
    return found;
  }

  const cached: CatalogRepository = {
    ...catalog,
    transaction: (work) => catalog.transaction(work),
    listProductIds: (afterId, limit) => catalog.listProductIds(afterId, limit),
    countProducts: () => catalog.countProducts(),
    findUri: (uri) => catalog.findUri(uri),
    async loadProducts(productIds) {
      const found = await byKey(
        () => views,
        productIds,
        async (missing) => new Map((await catalog.loadProducts(missing)).map((view) => [view.product.id, view])),
      );
      return productIds.flatMap((id) => {
        const view = found.get(id);
        return view ? [view] : [];
      });
    },
    productIdsOfVariants: (variantIds) => byKey(() => productOf, variantIds, (missing) => catalog.productIdsOfVariants(missing)),
    async findRefs(kind: RefKind, ids: number[]) {
      const found = await byKey(
        () => refs,
        ids.map((id) => `${kind}:${id}`),
        async (missing) =>
          new Map(
            (await catalog.findRefs(kind, missing.map((key) => Number(key.slice(kind.length + 1))))).map((ref) => [`${kind}:${ref.id}`, ref]),
          ),
      );
      return [...found.values()];
    },
    async listCategories() {
      const at = now();
      if (fresh(categories, at)) return categories.value;
      const started = generation;
      const value = await catalog.listCategories();
      if (started === generation && ttlMs > 0) categories = { at, value };
      return value;
    },
  };

  return {
    catalog: ttlMs > 0 ? cached : catalog,
    invalidate() {
      generation++;
      views = new Map();
      productOf = new Map();
      refs = new Map();
      categories = undefined;
    },
  };
}
