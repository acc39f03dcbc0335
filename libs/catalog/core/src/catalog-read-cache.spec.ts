import type { CatalogRepository } from './catalog.repository';
import { cachedCatalogReads, listingKey } from './catalog-read-cache';
import type { ProductView } from './product';

describe('the listing read cache', () => {
  let now = 0;
  let calls: number[][] = [];
  let price = 1;
  const store = {
    loadProducts: async (ids: number[]) => {
      calls.push(ids);
      return ids.filter((id) => id < 100).map((id) => ({ product: { id }, price }) as unknown as ProductView);
    },
    listCategories: async () => [],
  } as unknown as CatalogRepository;
  const priceOf = (views: ProductView[]) => views.map((v) => (v as unknown as { price: number }).price);

  beforeEach(() => {
    now = 0;
    calls = [];
    price = 1;
  });

  it('reads a product once within the bound, again after it, and the missing ones only', async () => {
    const { catalog } = cachedCatalogReads(store, { ttlMs: 2000, now: () => now });
    expect((await catalog.loadProducts([1, 2])).map((v) => v.product.id)).toEqual([1, 2]);
    price = 2;
    now = 1999;
    expect(priceOf(await catalog.loadProducts([2, 3, 100]))).toEqual([1, 2]);
    expect(calls).toEqual([
      [1, 2],
      [3, 100],
    ]);
    now = 2000;
    expect(priceOf(await catalog.loadProducts([1]))).toEqual([2]);
  });

  it('forgets everything on invalidate, and never keeps a read that started before one', async () => {
    const cache = cachedCatalogReads(store, { ttlMs: 2000, now: () => now });
    await cache.catalog.loadProducts([1]);
    price = 2;
    cache.invalidate();
    expect(priceOf(await cache.catalog.loadProducts([1]))).toEqual([2]);
    const pending = cache.catalog.loadProducts([5]);
    cache.invalidate();
    await pending;
    await cache.catalog.loadProducts([5]);
    expect(calls.filter((c) => c[0] === 5)).toHaveLength(2);
  });

  it('shares one read between concurrent misses', async () => {
    const { catalog } = cachedCatalogReads(store, { ttlMs: 2000, now: () => now });
    await Promise.all([catalog.loadProducts([7]), catalog.loadProducts([7, 8])]);
    expect(calls).toEqual([[7], [8]]);
  });

  it('is the store itself with a bound of 0', () => {
    expect(cachedCatalogReads(store, { ttlMs: 0 }).catalog).toBe(store);
    expect(cachedCatalogReads(store, { ttlMs: 2000, viewTtlMs: 0 }).catalog).toBe(store);
  });

  describe('views kept until their product changes (decision 58)', () => {
    it('keeps views for their own bound, apart from the answers’', async () => {
      const cache = cachedCatalogReads(store, { ttlMs: 0, viewTtlMs: 300_000, now: () => now });
      await cache.catalog.loadProducts([1]);
      price = 2;
      now = 299_999;
      expect(priceOf(await cache.catalog.loadProducts([1]))).toEqual([1]);
      now = 300_000;
      expect(priceOf(await cache.catalog.loadProducts([1]))).toEqual([2]);
    });

    it('forgets only the changed products’ views, and every answer; a read in flight at the forget is not kept', async () => {
      const cache = cachedCatalogReads(store, { ttlMs: 2000, viewTtlMs: 300_000, now: () => now });
      await cache.catalog.loadProducts([1, 2]);
      expect(await cache.answer('k', async () => 'old')).toBe('old');
      price = 2;
      cache.forget([2]);
      expect(priceOf(await cache.catalog.loadProducts([1, 2]))).toEqual([1, 2]);
      expect(await cache.answer('k', async () => 'new')).toBe('new');

      const pending = cache.catalog.loadProducts([3]);
      cache.forget([3]);
      await pending;
      await cache.catalog.loadProducts([3]);
      expect(calls.filter((c) => c[0] === 3)).toHaveLength(2);
    });

    it('does not keep "not there": a product created later shows at once', async () => {
      const cache = cachedCatalogReads(store, { ttlMs: 0, viewTtlMs: 300_000, now: () => now });
      expect(await cache.catalog.loadProducts([100])).toEqual([]);
      await Promise.resolve();
      await cache.catalog.loadProducts([100]);
      expect(calls).toEqual([[100], [100]]);
    });
  });

  describe('whole listing answers', () => {
    let computed = 0;
    const compute = (value: string) => async () => `${value}#${++computed}`;
    beforeEach(() => (computed = 0));

    it('keeps an answer by its request within the bound, computes it again after, and a changed request apart', async () => {
      const cache = cachedCatalogReads(store, { ttlMs: 2000, now: () => now });
      const key = listingKey('products', { search: 'shirt', brands: [1, 2] }, { market: '1', pricelist: '1' });
      expect(await cache.answer(key, compute('a'))).toBe('a#1');
      now = 1999;
      expect(
        await cache.answer(listingKey('products', { brands: [1, 2], search: 'shirt' }, { pricelist: '1', market: '1' }), compute('a')),
      ).toBe('a#1');
      expect(
        await cache.answer(listingKey('products', { search: 'shirt', brands: [1, 2] }, { market: '2', pricelist: '1' }), compute('b')),
      ).toBe('b#2');
      now = 2000;
      expect(await cache.answer(key, compute('a'))).toBe('a#3');
    });

    it('forgets answers on invalidate, shares a computation between concurrent misses, keeps no failure', async () => {
      const cache = cachedCatalogReads(store, { ttlMs: 2000, now: () => now });
      const [one, two] = await Promise.all([cache.answer('k', compute('a')), cache.answer('k', compute('a'))]);
      expect([one, two]).toEqual(['a#1', 'a#1']);
      cache.invalidate();
      expect(await cache.answer('k', compute('a'))).toBe('a#2');
      await expect(cache.answer('bad', () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
      expect(await cache.answer('bad', compute('ok'))).toBe('ok#3');
    });

    it('computes every time with a bound of 0', async () => {
      const cache = cachedCatalogReads(store, { ttlMs: 0 });
      await cache.answer('k', compute('a'));
      expect(await cache.answer('k', compute('a'))).toBe('a#2');
    });
  });
});
