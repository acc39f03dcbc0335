import { createHash } from 'node:crypto';
import type { CatalogClient, PriceContext, ProductDto } from '@commerce/catalog-contracts';
import { stableJson } from '@commerce/checkout-core';

export interface ProductCacheOptions {
  /** How long a product stays cached; 0 turns the cache off. */
  ttlMs: number;
  maxEntries?: number;
  now?: () => number;
}

interface Entry {
  until: number;
  value: Promise<ProductDto | null>;
  /** Once answered: a digest of the product's JSON, and the product (kept when a later answer is the same). */
  digest?: string;
  product?: ProductDto | null;
}

/**
 * When the catalog last answered a cached product as it is (ms): how old an answer built from it is. A later
 * answer with the same content keeps the object and moves this on.
 */
const fetchedAt = new WeakMap<ProductDto, number>();
export const productFetchedAt = (product: ProductDto): number | undefined => fetchedAt.get(product);

/**
 * The catalog client with `getProduct` cached for a short time per product and context (market,
 * pricelist, language). Every selection envelope carries the products of its items, and building a
 * product is the catalog's most expensive read; checkout reads are eventually consistent with back-office
 * writes anyway (decision 31), so a product may be up to `ttlMs` old. Concurrent misses share one call;
 * a failed call is not cached. A product the catalog answers unchanged is the same object as before.
 */
export function cachingCatalogClient(catalog: CatalogClient, options: ProductCacheOptions): CatalogClient {
  if (options.ttlMs <= 0) return catalog;
  const max = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const keyOf = (id: string, c: PriceContext) => `${id}|${c.market ?? ''}|${c.pricelist ?? ''}|${c.language ?? ''}`;
  const getProduct = (id: string, context: PriceContext): Promise<ProductDto | null> => {
    const key = keyOf(id, context);
    const hit = entries.get(key);
    if (hit && hit.until > now()) return hit.value;
    entries.delete(key);
    const asked = now();
    const entry: Entry = { until: asked + options.ttlMs, value: catalog.getProduct(id, context) };
    entry.value = entry.value.then((product) => {
      // The catalog answered what it answered before: the same object, verified again (decision 57), so
      // that what was built from it (a rendered answer) can tell it is still current.
      const digest = product === null ? 'null' : createHash('sha1').update(JSON.stringify(product)).digest('base64');
      const same = hit?.digest === digest && hit.product !== undefined ? hit.product : product;
      entry.digest = digest;
      entry.product = same;
      if (same) fetchedAt.set(same, asked);
      // Shared by every answer that shows it and never changed: serialised once (decision 59).
      return same && stableJson(same);
    });
    entries.set(key, entry);
    const value = entry.value;
    value.catch(() => entries.get(key)?.value === value && entries.delete(key));
    // Oldest first out: a Map iterates in insertion order.
    while (entries.size > max) entries.delete(entries.keys().next().value!);
    return value;
  };
  return Object.assign(Object.create(catalog) as CatalogClient, { getProduct });
}
