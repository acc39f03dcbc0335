import type { SoapProduct } from '@commerce/erp-contracts';
import type { AppliedProduct } from './applied-products';
import type { CatalogEvent, CatalogUnitOfWork } from './catalog.repository';
import type { CatalogRef, Category, Product, RefKind, Size } from './product';
import { SuffixRuns, slugify } from './slug';

/**
 * The unit of work a batch of product upserts runs in: what the batch names (its products, brands,
 * collections, categories, sizes, the variant URIs its names lead to, new ids) is read ahead with one
 * query per table, products are written and events recorded at `flush`, all in the batch's transaction.
 * Products are applied one after the other against it, exactly as one at a time: a product the batch
 * wrote earlier is what a later upsert of it finds, and the URIs it took are taken.
 */
export interface ProductBatch {
  uow: CatalogUnitOfWork;
  findProduct(externalId: string): Product | null;
  nextProductId(): Promise<number>;
  nextVariantId(): Promise<number>;
  findRef(kind: RefKind, externalId: string): CatalogRef | null;
  saveRef(kind: RefKind, ref: Omit<CatalogRef, 'id'> & { id: number | null }): Promise<CatalogRef>;
  findCategory(externalId: string): Category | null;
  saveCategory(category: Category): Promise<void>;
  findSize(externalId: string): Size | null;
  saveSize(size: Omit<Size, 'id'> & { id: number | null }): Promise<Size>;
  listMarketIds(): Promise<string[]>;
  variantUriTaken(uri: string, exceptVariantId: number): Promise<boolean>;
  /**
   * Where the run of variant URIs `<base>` (1), `<base>-2`, `<base>-3` … stored or written by the batch ends: the
   * highest n with every one up to it taken (0 when `<base>` is free), so the next one is the first free, as
   * trying them one by one found, and a name ending in a number (`Jacket 2024`) does not send the next `Jacket`
   * to `jacket-2025`. A hint for `uniqueSlug`: `variantUriTaken` decides.
   */
  variantUriHighestSuffix(base: string): Promise<number>;
  saveProduct(product: Product): void;
  /** Products saved since the last `writeStaged` (or since the start). */
  readonly stagedCount: number;
  /**
   * Starts writing the products saved so far, after the parts written before, and gives the event loop a
   * turn so the statements go out: the merge of the next products goes on while Postgres writes these
   * (decision 110). Throws a failure of a part written before. Every read of `uow` waits for the parts
   * in flight, so it sees them, and the transaction's connection runs one statement at a time.
   */
  writeStaged(): Promise<void>;
  /** Gives the event loop a turn while a part is being written (its answers are read, its next statement sent). */
  yieldToWrites(): Promise<void>;
  /** Resolves once no part is being written any more, whatever their outcome (never rejects). */
  writesDone(): Promise<void>;
  publish(events: CatalogEvent[]): void;
  /**
   * Writes the products not written yet and records the events (one ProductUpserted per product, in the
   * order first recorded, then every StockChanged in its order); answers the products written with their
   * ProductUpserted's id (the indexer may index that state once the transaction commits, `AppliedProducts`).
   */
  flush(): Promise<AppliedProduct[]>;
}

type Variation = NonNullable<SoapProduct['variations']>[number];

/** Products merged between two turns of the event loop while a part is being written. */
const YIELD_EVERY = 10;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function readProductBatch(store: CatalogUnitOfWork, soaps: SoapProduct[]): Promise<ProductBatch> {
  // The parts of the batch being written, in turn; it never rejects (a failure is kept in `failed`).
  let writes: Promise<void> = Promise.resolve();
  let writing = 0;
  let yields = 0;
  let failed: { error: unknown } | undefined;
  const throwFailed = () => {
    if (failed) throw failed.error;
  };
  // What the batch reads and writes besides its products goes after the parts in flight: it sees them,
  // and the connection is never asked for two statements at once.
  const afterWrites = <R extends object>(repository: R): R =>
    new Proxy(repository, {
      get(target, key, receiver) {
        const value: unknown = Reflect.get(target, key, receiver);
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          await writes;
          throwFailed();
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  // Every repository of the unit of work (and its outbox), each method behind the writes.
  const uow = Object.fromEntries(
    Object.entries(store).map(([name, repository]) => [name, afterWrites(repository as object)]),
  ) as unknown as CatalogUnitOfWork;
  const variations = soaps.flatMap((s): Variation[] => s.variations ?? []);
  const displays = variations.flatMap((v) => v.displays ?? []);
  const refIds = (kind: RefKind) => soaps.flatMap((s) => (s[kind] ? [s[kind].id] : []));
  const categoryIds = [
    ...soaps.flatMap((s) => (s.folder ? [s.folder.id] : [])),
    ...displays.flatMap((d) => [...(d.categories ?? []), ...(d.categoriesremove ?? [])].map((c) => c.id)),
  ];
  const sizeIds = variations.flatMap((v) => (v.sizes ?? []).map((s) => s.id));

  const products = new Map<string, Product>((await uow.products.findByExternalIds(soaps.map((s) => s.id))).map((p) => [p.externalId, p]));
  const refs: Record<RefKind, Map<string, CatalogRef>> = {
    brand: byExternalId(await uow.brandsAndCollections.findByExternalIds('brand', refIds('brand'))),
    collection: byExternalId(await uow.brandsAndCollections.findByExternalIds('collection', refIds('collection'))),
  };
  const categories = byExternalId(await uow.categories.findByExternalIds(categoryIds));
  const sizes = byExternalId(await uow.sizes.findByExternalIds(sizeIds));

  // New ids, as many as the batch's unknown products and variations need (no gaps in the sequences).
  const knownVariations = new Set([...products.values()].flatMap((p) => p.variants.map((v) => v.externalId)));
  const productIds = await uow.products.nextIds('product', new Set(soaps.map((s) => s.id).filter((id) => !products.has(id))).size);
  const variantIds = await uow.products.nextIds(
    'variant',
    new Set(variations.map((v) => v.id).filter((id) => !knownVariations.has(id))).size,
  );

  // Variant URIs: the stored ones the batch's names may lead to, then the batch's own as it writes them.
  const loadedBases = new Set<string>();
  const storedOwners = new Map<string, number[]>();
  // The suffixes the URIs stored or staged have, stem by stem, so a name's next URI is one lookup instead of
  // trying every suffix (decision 92).
  const suffixes = new SuffixRuns();
  const noteSuffix = (uri: string) => suffixes.note(uri);
  const loadUris = async (bases: string[]) => {
    const missing = [...new Set(bases.map((b) => b || 'item'))].filter((b) => !loadedBases.has(b));
    if (missing.length === 0) return;
    for (const b of missing) loadedBases.add(b);
    for (const { id, uri } of await uow.products.variantUris(missing)) {
      storedOwners.set(uri, [...(storedOwners.get(uri) ?? []), id]);
      noteSuffix(uri);
    }
  };
  await loadUris(
    soaps.flatMap((s) => {
      const names = [s.description?.trim(), products.get(s.id)?.name, s.id].filter((n): n is string => Boolean(n));
      return names.flatMap((name) => [
        slugify(name),
        ...(s.variations ?? []).map((v) => slugify(`${name} ${v.description?.trim() ?? ''}`)),
      ]);
    }),
  );
  const stagedUri = new Map<number, string>(); // variant id → its URI as this batch wrote it
  const stagedOwner = new Map<string, number>(); // URI → the variant of this batch holding it

  let marketIds: Promise<string[]> | undefined;
  const staged = new Map<number, Product>(); // saved, not written yet
  const written = new Map<number, Product>(); // every product the batch saved, as last saved
  const events = new Map<string, CatalogEvent>();

  const writeStaged = async (): Promise<void> => {
    throwFailed();
    if (staged.size === 0) return;
    const part = [...staged.values()];
    staged.clear();
    writing += 1;
    writes = writes
      .then(() => (failed ? undefined : store.products.save(part)))
      .catch((error: unknown) => {
        failed ??= { error };
      })
      .finally(() => {
        writing -= 1;
      });
    await nextTurn();
  };

  const take = async (pool: number[], kind: 'product' | 'variant'): Promise<number> =>
    pool.shift() ?? (await uow.products.nextIds(kind, 1))[0]!;

  return {
    uow,
    findProduct: (externalId) => products.get(externalId) ?? null,
    nextProductId: () => take(productIds, 'product'),
    nextVariantId: () => take(variantIds, 'variant'),
    findRef: (kind, externalId) => refs[kind].get(externalId) ?? null,
    async saveRef(kind, ref) {
      const saved = await uow.brandsAndCollections.save(kind, ref);
      refs[kind].set(saved.externalId, saved);
      return saved;
    },
    findCategory: (externalId) => categories.get(externalId) ?? null,
    async saveCategory(category) {
      await uow.categories.save([category]);
      categories.set(category.externalId, category);
    },
    findSize: (externalId) => sizes.get(externalId) ?? null,
    async saveSize(size) {
      const saved = await uow.sizes.save(size);
      sizes.set(saved.externalId, saved);
      return saved;
    },
    listMarketIds: () => (marketIds ??= uow.marketsAndWarehouses.listMarketIds()),
    async variantUriTaken(uri, exceptVariantId) {
      const owner = stagedOwner.get(uri);
      if (owner !== undefined && owner !== exceptVariantId) return true;
      const suffixed = /^(.*)-\d+$/.exec(uri);
      if (!loadedBases.has(uri) && !(suffixed && loadedBases.has(suffixed[1]!))) await loadUris([uri]);
      // A stored owner this batch rewrote holds its staged URI now, not the stored one.
      return (storedOwners.get(uri) ?? []).some((id) => id !== exceptVariantId && !stagedUri.has(id));
    },
    async variantUriHighestSuffix(base) {
      await loadUris([base]);
      return suffixes.end(base);
    },
    saveProduct(product) {
      for (const v of product.variants) {
        const before = stagedUri.get(v.id);
        if (before !== undefined && stagedOwner.get(before) === v.id) stagedOwner.delete(before);
        stagedUri.set(v.id, v.uri);
        stagedOwner.set(v.uri, v.id);
        noteSuffix(v.uri);
      }
      products.set(product.externalId, product);
      staged.set(product.id, product);
      written.set(product.id, product);
    },
    get stagedCount() {
      return staged.size;
    },
    writeStaged,
    async yieldToWrites() {
      if (writing > 0 && ++yields % YIELD_EVERY === 0) await nextTurn();
    },
    writesDone: () => writes,
    publish(list) {
      // One ProductUpserted per product (the indexer re-reads it); every StockChanged (its items differ).
      for (const e of list) {
        const key = e.type === 'StockChanged' ? e.id : `${e.type}:${e.key}`;
        if (!events.has(key)) events.set(key, e);
      }
    },
    async flush() {
      await writeStaged();
      await writes;
      throwFailed();
      // The ProductUpserted first, then the StockChanged (other topics, each in its recorded order): the
      // relay publishes in rounds, and what makes the batch searchable leaves in the first ones, the
      // change feed's stock events after them.
      const recorded = [...events.values()];
      await uow.outbox.publish([
        ...recorded.filter((e) => e.type !== 'StockChanged'),
        ...recorded.filter((e) => e.type === 'StockChanged'),
      ]);
      const applied: AppliedProduct[] = [];
      for (const product of written.values()) {
        const event = events.get(`ProductUpserted:${product.id}`);
        if (event) applied.push({ eventId: event.id, product: withCurrentSizes(product, sizes) });
      }
      written.clear();
      events.clear();
      return applied;
    },
  };
}

/**
 * The product as the store now reads it: an item shows its size's name and size table from the sizes
 * table, which a later product of the batch may have renamed after this one was merged.
 */
function withCurrentSizes(product: Product, sizes: Map<string, Size>): Product {
  const stale = product.variants.some((v) =>
    v.items.some((i) => {
      const size = sizes.get(i.sizeExternalId);
      return size !== undefined && (size.name !== i.sizeName || size.sizeTableExternalId !== i.sizeTableExternalId);
    }),
  );
  if (!stale) return product;
  return {
    ...product,
    variants: product.variants.map((v) => ({
      ...v,
      items: v.items.map((i) => {
        const size = sizes.get(i.sizeExternalId);
        return size ? { ...i, sizeName: size.name, sizeTableExternalId: size.sizeTableExternalId } : i;
      }),
    })),
  };
}

function byExternalId<T extends { externalId: string }>(list: T[]): Map<string, T> {
  return new Map(list.map((x) => [x.externalId, x]));
}
