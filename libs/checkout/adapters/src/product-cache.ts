import { createHash } from 'node:crypto';
import type { CatalogClient, PriceContext, ProductDto } from '@commerce/catalog-contracts';
import { stableJson } from '@commerce/checkout-core';

export interface ProductCacheOptions {
  /** How long a product stays cached; 0 turns the cache off. */
  ttlMs: number;
  maxEntries?: number;
  now?: () => number;
}

/** From this share of `ttlMs` on, a cached product is answered as it is while one call refreshes it (decision 166). */
const REFRESH_AHEAD = 0.75;

interface Entry {
  until: number;
  /** From then on, the next ask starts a refresh in the background (`refreshing`) and is answered the cached product. */
  refreshFrom: number;
  refreshing?: Promise<ProductDto | null>;
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
 * a failed call is not cached. A product the catalog answers unchanged is the same object as before. A product
 * asked for in the last quarter of its lifetime is answered from the cache while one call refreshes it (decision
 * 166): a product in demand is never waited for, and none is answered older than `ttlMs`.
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
    const at = now();
    if (hit && hit.until > at) {
      if (at >= hit.refreshFrom && !hit.refreshing && hit.product !== undefined) refresh(id, context, key, hit);
      return hit.value;
    }
    // Expired while its refresh is under way: that answer, not another call.
    if (hit?.refreshing) return hit.refreshing;
    entries.delete(key);
    return fetched(id, context, key, hit).value;
  };
  /** One call in the background; its answer replaces the entry (a failure leaves it, to be tried again). */
  const refresh = (id: string, context: PriceContext, key: string, hit: Entry) => {
    const entry = fetched(id, context, key, hit, false);
    hit.refreshing = entry.value;
    entry.value.then(
      () => {
        if (entries.get(key) !== hit) return;
        entries.delete(key);
        entries.set(key, entry);
      },
      () => (hit.refreshing = undefined),
    );
  };
  const fetched = (id: string, context: PriceContext, key: string, hit: Entry | undefined, kept = true): Entry => {
    const asked = now();
    const entry: Entry = {
      until: asked + options.ttlMs,
      refreshFrom: asked + options.ttlMs * REFRESH_AHEAD,
      value: catalog.getProduct(id, context),
    };
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
    if (!kept) return entry;
    entries.set(key, entry);
    const value = entry.value;
    value.catch(() => entries.get(key)?.value === value && entries.delete(key));
    // Oldest first out: a Map iterates in insertion order.
    while (entries.size > max) entries.delete(entries.keys().next().value!);
    return entry;
  };
  return Object.assign(Object.create(catalog) as CatalogClient, { getProduct });
}
