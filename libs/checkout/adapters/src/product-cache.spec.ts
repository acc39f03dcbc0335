import type { CatalogClient, ProductDto } from '@commerce/catalog-contracts';
import { cachingCatalogClient, productFetchedAt } from './product-cache';

function fake() {
  const calls: string[] = [];
  let fail = false;
  const catalog = {
    getProduct: async (id: string, context: { market?: string }) => {
      calls.push(`${id}@${context.market}`);
      if (fail) throw new Error('down');
      return { product: id, name: `v${calls.length}` } as unknown as ProductDto;
    },
    getItem: async () => null,
    getItems: async () => [],
  } as unknown as CatalogClient;
  return { catalog, calls, failNext: (f: boolean) => (fail = f) };
}

describe('product cache of the edge', () => {
  it('answers a product from the cache within its lifetime, per context, and asks again after it', async () => {
    let clock = 0;
    const { catalog, calls } = fake();
    const cached = cachingCatalogClient(catalog, { ttlMs: 1000, now: () => clock });
    await cached.getProduct('1', { market: '1' });
    await cached.getProduct('1', { market: '1' });
    await cached.getProduct('1', { market: '2' });
    expect(calls).toEqual(['1@1', '1@2']);
    clock = 1001;
    expect(await cached.getProduct('1', { market: '1' })).toMatchObject({ name: 'v3' });
    expect(calls).toHaveLength(3);
  });

  it('keeps the object of a product the catalog answers unchanged, and moves its fetch time on', async () => {
    let clock = 0;
    let name = 'a';
    const catalog = { getProduct: async (id: string) => ({ product: id, name }) as unknown as ProductDto } as unknown as CatalogClient;
    const cached = cachingCatalogClient(catalog, { ttlMs: 1000, now: () => clock });
    const first = (await cached.getProduct('1', {}))!;
    expect(productFetchedAt(first)).toBe(0);
    clock = 1500;
    expect(await cached.getProduct('1', {})).toBe(first);
    expect(productFetchedAt(first)).toBe(1500);
    name = 'b';
    clock = 3000;
    const changed = (await cached.getProduct('1', {}))!;
    expect(changed).not.toBe(first);
    expect(changed).toMatchObject({ name: 'b' });
  });

  it('answers a product in the last quarter of its lifetime at once while one call refreshes it; none older than ttl (decision 166)', async () => {
    let clock = 0;
    let name = 'a';
    const answers: Array<(p: ProductDto) => void> = [];
    // A catalog that answers when the test says so.
    const catalog = {
      getProduct: (id: string) =>
        new Promise<ProductDto>((resolve) => answers.push(() => resolve({ product: id, name } as unknown as ProductDto))),
    } as unknown as CatalogClient;
    const cached = cachingCatalogClient(catalog, { ttlMs: 1000, now: () => clock });
    const asking = cached.getProduct('1', {});
    answers.shift()!({} as ProductDto);
    const first = (await asking)!;
    clock = 700;
    expect(await cached.getProduct('1', {})).toBe(first);
    expect(answers).toHaveLength(0);
    // From 750 ms on: answered from the cache at once, and one refresh asked, whatever the number of asks.
    clock = 800;
    name = 'b';
    expect(await cached.getProduct('1', {})).toBe(first);
    expect(await cached.getProduct('1', {})).toBe(first);
    expect(answers).toHaveLength(1);
    answers.shift()!({} as ProductDto);
    await new Promise((r) => setImmediate(r));
    const refreshed = (await cached.getProduct('1', {}))!;
    expect(refreshed).toMatchObject({ name: 'b' });
    expect(productFetchedAt(refreshed)).toBe(800);
    // Its refresh not answered when its ttl is over: the ask waits for that refresh, no second call.
    clock = 1600;
    expect(await cached.getProduct('1', {})).toBe(refreshed);
    expect(answers).toHaveLength(1);
    clock = 1900;
    name = 'c';
    const late = cached.getProduct('1', {});
    expect(answers).toHaveLength(1);
    answers.shift()!({} as ProductDto);
    expect(await late).toMatchObject({ name: 'c' });
  });

  it('shares one call between concurrent misses and does not keep a failure', async () => {
    const { catalog, calls, failNext } = fake();
    const cached = cachingCatalogClient(catalog, { ttlMs: 1000 });
    failNext(true);
    await expect(Promise.all([cached.getProduct('1', {}), cached.getProduct('1', {})])).rejects.toThrow('down');
    expect(calls).toHaveLength(1);
    failNext(false);
    expect(await cached.getProduct('1', {})).toMatchObject({ product: '1' });
  });

  it('keeps at most maxEntries and passes other calls through; ttl 0 is no cache', async () => {
    const { catalog, calls } = fake();
    const cached = cachingCatalogClient(catalog, { ttlMs: 1000, maxEntries: 2 });
    for (const id of ['1', '2', '3', '1']) await cached.getProduct(id, {});
    expect(calls).toHaveLength(4);
    expect(await cached.getItem('1-1', {})).toBeNull();
    expect(cachingCatalogClient(catalog, { ttlMs: 0 })).toBe(catalog);
  });
});
