import { systemClock, type CatalogRepository, type Clock } from './catalog.repository';
import { isShown } from './product';
import { toSearchDoc } from './product.mapper';
import type { SearchIndex } from './search-index.port';

export interface IndexDeps {
  catalog: CatalogRepository;
  search: SearchIndex;
  /** Availability through delivery windows depends on the time of indexing. */
  clock?: Clock;
}

/**
 * Brings the index in line with the stored product: its shown variants are (re)indexed, hidden ones
 * removed. Reads the current state rather than the event, so replaying any event is harmless.
 */
export async function indexProduct(deps: IndexDeps, productId: number): Promise<{ indexed: number; removed: number }> {
  return indexProducts(deps, [productId]);
}

/** `indexProduct` for many products: read and written a few hundred at a time; unknown ids are left alone. */
export async function indexProducts(deps: IndexDeps, productIds: number[], batchSize = 200): Promise<{ indexed: number; removed: number }> {
  const total = { indexed: 0, removed: 0 };
  const ids = [...new Set(productIds)];
  for (let i = 0; i < ids.length; i += batchSize) {
    const views = await deps.catalog.loadProducts(ids.slice(i, i + batchSize));
    const now = (deps.clock ?? systemClock).now();
    const shown = views.flatMap((view) =>
      view.product.variants.filter((v) => isShown(view.product, v)).map((v) => toSearchDoc(view, v, now)),
    );
    const hidden = views.flatMap((view) => view.product.variants.filter((v) => !isShown(view.product, v)).map((v) => String(v.id)));
    if (shown.length > 0) await deps.search.upsert(shown);
    if (hidden.length > 0) await deps.search.remove(hidden);
    total.indexed += shown.length;
    total.removed += hidden.length;
  }
  return total;
}

export interface ReindexProgress {
  done: number;
  total: number;
}

/**
 * Rebuilds the whole index from the store, in batches; `onProgress` is called after each batch (the
 * reindex command draws its progress bar from it). The index is cleared first, so searches during a
 * reindex see a partial catalogue.
 */
export async function reindexAll(
  deps: IndexDeps,
  onProgress: (p: ReindexProgress) => void = () => undefined,
  batchSize = 200,
): Promise<ReindexProgress> {
  const total = await deps.catalog.countProducts();
  await deps.search.clear();
  let done = 0;
  let after = 0;
  onProgress({ done, total });
  for (;;) {
    const ids = await deps.catalog.listProductIds(after, batchSize);
    if (ids.length === 0) break;
    const views = await deps.catalog.loadProducts(ids);
    const now = (deps.clock ?? systemClock).now();
    const docs = views.flatMap((view) =>
      view.product.variants.filter((v) => isShown(view.product, v)).map((v) => toSearchDoc(view, v, now)),
    );
    if (docs.length > 0) await deps.search.upsert(docs);
    done += ids.length;
    after = ids[ids.length - 1]!;
    onProgress({ done, total: Math.max(total, done) });
  }
  return { done, total: Math.max(total, done) };
}
