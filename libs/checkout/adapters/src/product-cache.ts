import type { CatalogClient, PriceContext, ProductDto } from '@commerce/catalog-contracts';

export interface ProductCacheOptions {
  /** How long a product stays cached; 0 turns the cache off. */
  ttlMs: number;
  maxEntries?: number;
  now?: () => number;
}

/** When the cache entry a product came from expires: an answer built from it must not outlive it. */
const expiries = new WeakMap<ProductDto, number>();
export const productCachedUntil = (product: ProductDto): number | undefined => expiries.get(product);

/**
 * The catalog client with `getProduct` cached for a short time per product and context (market,
 * pricelist, language). Every selection envelope carries the products of its items, and building a
 * product is the catalog's most expensive read; checkout reads are eventually consistent with back-office
 * writes anyway (decision 31), so a product may be up to `ttlMs` old. Concurrent misses share one call;
 * a failed call is not cached.
 */
export function cachingCatalogClient(catalog: CatalogClient, options: ProductCacheOptions): CatalogClient {
  if (options.ttlMs <= 0) return catalog;
  const max = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, { until: number; value: Promise<ProductDto | null> }>();
  const keyOf = (id: string, c: PriceContext) => `${id}|${c.market ?? ''}|${c.pricelist ?? ''}|${c.language ?? ''}`;
  const getProduct = (id: string, context: PriceContext): Promise<ProductDto | null> => {
    const key = keyOf(id, context);
    const hit = entries.get(key);
    if (hit && hit.until > now()) return hit.value;
    entries.delete(key);
    const value = catalog.getProduct(id, context);
    const until = now() + options.ttlMs;
    entries.set(key, { until, value });
    value.then((product) => product && expiries.set(product, until), () => undefined);
    value.catch(() => entries.get(key)?.value === value && entries.delete(key));
    // Oldest first out: a Map iterates in insertion order.
    while (entries.size > max) entries.delete(entries.keys().next().value!);
    return value;
  };
  return Object.assign(Object.create(catalog) as CatalogClient, { getProduct });
}
