import { systemClock, type CatalogRepository, type Clock } from './catalog.repository';
import { isShown, type Product, type ProductView } from './product';
import { toSearchDoc } from './product.mapper';
import type { SearchDoc, SearchIndex } from './search-index.port';

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

/**
 * `indexProduct` for many products: read a few hundred at a time, then written to the index with one
 * upsert and one removal (a SOAP batch's run is one Meilisearch documents task to wait for, not one per
 * read); unknown ids are left alone. Products given in `applied` (as the transaction that recorded their
 * events committed them, `AppliedProducts`) are not read back: only what their views add (brands,
 * collections, categories, size tables, prices, delivery windows) is read.
 */
export async function indexProducts(
  deps: IndexDeps,
  productIds: number[],
  batchSize = 200,
  applied: ReadonlyMap<number, Product> = new Map(),
): Promise<{ indexed: number; removed: number }> {
  const ids = [...new Set(productIds)];
  const known = ids.flatMap((id) => applied.get(id) ?? []);
  const unknown = ids.filter((id) => !applied.has(id));
  const shown: SearchDoc[] = [];
  const hidden: string[] = [];
  const add = (views: ProductView[]) => {
    const now = (deps.clock ?? systemClock).now();
    for (const view of views) {
      for (const v of view.product.variants) {
        if (isShown(view.product, v)) shown.push(toSearchDoc(view, v, now));
        else hidden.push(String(v.id));
      }
    }
  };
  if (known.length > 0) add(await deps.catalog.productViews(known));
  for (let i = 0; i < unknown.length; i += batchSize) add(await deps.catalog.loadProducts(unknown.slice(i, i + batchSize)));
  if (shown.length > 0) await deps.search.upsert(shown);
  if (hidden.length > 0) await deps.search.remove(hidden);
  return { indexed: shown.length, removed: hidden.length };
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
