import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  applyProductUpserts,
  catalogSettings,
  InvalidProductError,
  type AppliedProduct,
  type CatalogRepository,
  type Product,
} from '@commerce/catalog-core';
import { parseStoreConfig } from '@commerce/shared-config';
import { createDbEngine, type Db, type DbEngine } from '@commerce/shared-db';
import { createCatalogRepository } from './catalog.knex-repository';
import { parseDemoCatalog } from './demo-catalog';
import { catalogHarness, soapPricelist } from './testing/catalog-harness';
import { soapProduct } from './testing/soap-product.fixture';

let engine: DbEngine;
beforeAll(async () => {
  engine = await createDbEngine('pglite://memory');
}, 60_000);
afterAll(() => engine?.close());

const setup = () => catalogHarness(engine);
const SE = { market: '1', pricelist: 'SE' };
const US = { market: '3', pricelist: 'US' };

/** ProductUpserted rows in the outbox (StockChanged rows are counted by their own test). */
const outboxCount = async (db: Db) => Number((await db.table('outbox').where({ topic: 'catalog.product.v1' }).count({ n: '*' }))[0]!['n']);
const stockEvents = async (db: Db) =>
  (
    (await db.table('outbox').where({ topic: 'catalog.stock.v1' }).orderBy('seq').select('envelope')) as Array<{
      envelope: { payload: unknown };
    }>
  ).map((r) => r.envelope.payload);

describe('applying a product upsert from the ERP', () => {
  it('gives every variation its own checkout product with items <productId>-<sizeId> and summed stock', async () => {
    const { catalog } = await setup();
    const { productId } = await catalog.applyProductUpsert(soapProduct());
    await catalog.indexProduct(productId);
    const list = await catalog.searchProducts({}, {});
    expect(list.productCount).toBe(2);
    const [brown, oat] = list.products;
    expect(brown).toMatchObject({
      name: 'Café Sweater',
      variantName: 'Brown',
      uri: 'cafe-sweater',
      brandName: 'Nordwear',
      categoryName: ['Knitwear'],
      primaryVariant: true,
    });
    expect(oat).toMatchObject({ variantName: 'Oat', uri: 'cafe-sweater-oat', primaryVariant: false });
    for (const p of [brown!, oat!]) for (const item of p.items) expect(item.item).toMatch(new RegExp(`^${p.product}-\\d+$`));
    // Sizes are shared: the same size id under both variants, yet distinct item ids.
    expect(brown!.items[0]!.item.split('-')[1]).toBe(oat!.items[0]!.item.split('-')[1]);
    expect(brown!.items[0]!.item).not.toBe(oat!.items[0]!.item);
    const medium = await catalog.getItem(brown!.items[1]!.item, {});
    expect(medium).toMatchObject({
      sizeName: 'M',
      stock: 5,
      sku: 'CAFE-BRN-M',
      ean: '112',
      productName: 'Café Sweater',
      brandName: 'Nordwear',
      priceAsNumber: 0,
    });
    expect(await catalog.getItem(brown!.items[0]!.item, {})).toMatchObject({ stock: 4 });
  });

  it('is idempotent: the same upsert twice changes nothing and records one event', async () => {
    const { db, catalog } = await setup();
    const first = await catalog.applyProductUpsert(soapProduct());
    const second = await catalog.applyProductUpsert(soapProduct());
    expect(first).toEqual({ productId: first.productId, changed: true });
    expect(second).toEqual({ productId: first.productId, changed: false });
    expect(await outboxCount(db)).toBe(1);
    expect(Number((await db.table('products').count({ n: '*' }))[0]!['n'])).toBe(1);
  });

  it('an update renames the product, keeps ids and item ids, and re-derives the URI', async () => {
    const { db, catalog } = await setup();
    const { productId } = await catalog.applyProductUpsert(soapProduct());
    await catalog.indexProduct(productId);
    const before = (await catalog.searchProducts({}, {})).products[0]!;
    const again = await catalog.applyProductUpsert(soapProduct({ description: 'Crème Pullover' }));
    expect(again).toEqual({ productId, changed: true });
    await catalog.indexProduct(productId);
    const after = await catalog.getProduct(before.product, {});
    expect(after).toMatchObject({ product: before.product, name: 'Crème Pullover', uri: 'creme-pullover' });
    expect(after!.items.map((i) => i.item)).toEqual(before.items.map((i) => i.item));
    expect((await catalog.searchProducts({ search: 'creme' }, {})).products.map((p) => p.product)).toContain(before.product);
    expect((await catalog.searchProducts({ search: 'sweater' }, {})).productCount).toBe(0);
    expect(await outboxCount(db)).toBe(2);
  });

  it('keeps what the ERP leaves out and updates the stock it sends', async () => {
    const { catalog } = await setup();
    const { productId } = await catalog.applyProductUpsert(soapProduct());
    await catalog.applyProductUpsert({ id: 'P-1', variations: [{ id: 'V-BRN', sizes: [{ id: 'S-S', qty: '9' }] }] });
    await catalog.indexProduct(productId);
    const brown = (await catalog.searchProducts({ search: 'brown' }, {})).products[0]!;
    expect(brown).toMatchObject({ name: 'Café Sweater', brandName: 'Nordwear', variantName: 'Brown' });
    expect(brown.items).toHaveLength(3);
    expect((await catalog.getItem(brown.items[0]!.item, {}))!.stock).toBe(9);
  });

  it('publishes the quantities of the items whose stock changed on catalog.stock.v1, and none when it did not', async () => {
    const { db, catalog } = await setup();
    await catalog.applyProductUpsert(soapProduct());
    const first = (await stockEvents(db)) as Array<{ externalId: string; items: Array<{ variation: string; size: string; qty: number }> }>;
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ externalId: 'P-1' });
    // Every item is new: all of them, with what the ERP calls them.
    expect(first[0]!.items.map((i) => `${i.variation}/${i.size}`)).toEqual(expect.arrayContaining(['V-BRN/S-S', 'V-BRN/S-M']));
    await catalog.applyProductUpsert({
      id: 'P-1',
      variations: [
        {
          id: 'V-BRN',
          sizes: [
            {
              id: 'S-S',
              warehouseitems: [
                { id: 'W1', qty: '7' },
                { id: 'W2', qty: '2' },
              ],
            },
            { id: 'S-M' },
          ],
        },
      ],
    });
    const [, second] = await stockEvents(db);
    expect(second).toEqual({
      productId: expect.any(String),
      externalId: 'P-1',
      items: [
        {
          variation: 'V-BRN',
          size: 'S-S',
          sku: expect.any(String),
          ean: expect.any(String),
          qty: 9,
          warehouses: [
            { id: 'W1', qty: 7 },
            { id: 'W2', qty: 2 },
          ],
        },
      ],
    });
    await catalog.applyProductUpsert({ id: 'P-1', description: 'Renamed', variations: [{ id: 'V-BRN', sizes: [{ id: 'S-S' }] }] });
    expect(await stockEvents(db)).toHaveLength(2);
  });

  it('hides a product whose status is not active, and an empty status shows it', async () => {
    const { catalog } = await setup();
    const { productId } = await catalog.applyProductUpsert(soapProduct({ status: 'inactive' }));
    await catalog.indexProduct(productId);
    expect((await catalog.searchProducts({}, {})).productCount).toBe(0);
    await catalog.applyProductUpsert(soapProduct({ status: '' }));
    await catalog.indexProduct(productId);
    const shown = await catalog.searchProducts({}, {});
    expect(shown.productCount).toBe(2);
    await catalog.applyProductUpsert(soapProduct({ status: 'canceled' }));
    await catalog.indexProduct(productId);
    expect((await catalog.searchProducts({}, {})).productCount).toBe(0);
    expect(await catalog.getProduct(shown.products[0]!.product, {})).toBeNull();
    expect(await catalog.getItem(shown.products[0]!.items[0]!.item, {})).toBeNull();
  });

  it('gives two products of the same name distinct URIs, and names brands and categories from their descriptions', async () => {
    const { catalog } = await setup();
    const a = await catalog.applyProductUpsert(soapProduct());
    const b = await catalog.applyProductUpsert(soapProduct({ id: 'P-2', variations: [{ id: 'V-X', sizes: [{ id: 'S-S', qty: '1' }] }] }));
    await catalog.indexProduct(a.productId);
    await catalog.indexProduct(b.productId);
    const uris = (await catalog.searchProducts({}, {})).products.map((p) => p.uri);
    expect(uris).toEqual(['cafe-sweater', 'cafe-sweater-oat', 'cafe-sweater-2']);
    const p = (await catalog.searchProducts({}, {})).products[0]!;
    expect(p).toMatchObject({ collectionName: 'Autumn/Winter', collectionUri: 'autumn-winter', categoryUri: 'knitwear' });
    expect(Object.values(p.categories).map((c) => c.name[0])).toEqual(['Knitwear', 'New Arrivals']);
  });

  it('gives many products of one name the next suffix each, across batches, not sent past a name ending in a number', async () => {
    const { catalog } = await setup();
    const tee = (id: string, description = 'T-shirt') => ({
      id,
      description,
      variations: [{ id: `${id}-V`, sizes: [{ id: 'S-S', qty: '1' }] }],
    });
    const first = await catalog.applyProductUpserts([
      tee('Y-2024', 'T-shirt 2024'),
      ...Array.from({ length: 40 }, (_, i) => tee(`T-${i}`)),
    ]);
    const second = await catalog.applyProductUpserts([tee('T-40'), tee('T-41')]);
    const ids = [...first, ...second].map((r) => r.productId);
    await catalog.indexProducts(ids);
    const uris = new Map<number, string>();
    for (const id of ids) uris.set(id, (await catalog.getProduct(String(id), {}))!.uri);
    expect(uris.get(ids[0]!)).toBe('t-shirt-2024');
    expect(ids.slice(1).map((id) => uris.get(id))).toEqual(['t-shirt', ...Array.from({ length: 41 }, (_, i) => `t-shirt-${i + 2}`)]);
  });

  it('gives many brands, collections and categories of one name the next suffix each, across batches, not sent past a name ending in a number (decision 100)', async () => {
    const { catalog } = await setup();
    // Each product its own brand, collection and category (ids), all of one description but the first's.
    const tee = (i: number | string, name = 'Acme') => ({
      id: `T-${i}`,
      description: 'Tee',
      brand: { id: `B-${i}`, description: name },
      collection: { id: `C-${i}`, description: name },
      folder: { id: `K-${i}`, description: name },
      variations: [{ id: `T-${i}-V`, sizes: [{ id: 'S-S', qty: '1' }] }],
    });
    const first = await catalog.applyProductUpserts([tee(2024, 'Acme 2024'), ...Array.from({ length: 40 }, (_, i) => tee(i))]);
    const second = await catalog.applyProductUpserts([tee(40), tee(41)]);
    const ids = [...first, ...second].map((r) => r.productId);
    await catalog.indexProducts(ids);
    const uris: Array<[string, string, string]> = [];
    for (const id of ids) {
      const p = (await catalog.getProduct(String(id), {}))!;
      uris.push([p.brandUri, p.collectionUri, p.categoryUri]);
    }
    const expected = ['acme', ...Array.from({ length: 41 }, (_, i) => `acme-${i + 2}`)];
    expect(uris[0]).toEqual(['acme-2024', 'acme-2024', 'acme-2024']);
    expect({
      brands: uris.slice(1).map((u) => u[0]),
      collections: uris.slice(1).map((u) => u[1]),
      categories: uris.slice(1).map((u) => u[2]),
    }).toEqual({
      brands: expected,
      collections: expected,
      categories: expected,
    });
  });

  it('applies a batch in one transaction exactly as one product after the other: URIs, repeats, renames and events', async () => {
    const batch = [
      soapProduct(),
      soapProduct({ id: 'P-2', variations: [{ id: 'V-X', sizes: [{ id: 'S-S', qty: '1' }] }] }),
      // P-1 again in the same batch: its new stock and a renamed brand, seen by what follows.
      { id: 'P-1', brand: { id: 'B-NW', description: 'Nordwear Studio' }, variations: [{ id: 'V-BRN', sizes: [{ id: 'S-S', qty: '9' }] }] },
      soapProduct({
        id: 'P-3',
        description: 'Café Sweater Oat',
        brand: { id: 'B-NW' },
        variations: [{ id: 'V-Y', sizes: [{ id: 'S-S', qty: '2' }] }],
      }),
    ];
    const one = await setup();
    const single = [];
    for (const p of batch) single.push(await one.catalog.applyProductUpsert(p));
    const many = await setup();
    const together = await many.catalog.applyProductUpserts(batch);

    expect(together).toEqual(single);
    const listed = async (h: typeof one) => {
      await h.catalog.indexProducts(together.map((r) => r.productId));
      return (await h.catalog.searchProducts({}, {})).products.map((p) => ({
        uri: p.uri,
        brand: p.brandName,
        stock: p.items.map((i) => i.stock),
      }));
    };
    const expected = await listed(one);
    expect(expected.map((p) => p.uri)).toEqual(['cafe-sweater', 'cafe-sweater-oat', 'cafe-sweater-2', 'cafe-sweater-oat-2']);
    expect(expected[0]).toMatchObject({ brand: 'Nordwear Studio' });
    expect(await listed(many)).toEqual(expected);
    // One ProductUpserted per product of the batch, not one per upsert.
    expect(await outboxCount(many.db)).toBe(3);
  });

  // Parts of 1 and 2: the batch written while it is merged (decision 110); 0: written once merged.
  it.each([0, 1, 2, 100])(
    'applies a batch written in parts of %i exactly as one product after the other: URIs moved between parts, repeats, renames',
    async (part) => {
      const batch = [
        soapProduct(),
        soapProduct({ id: 'P-2', description: 'Blue Jumper', variations: [{ id: 'V-X', sizes: [{ id: 'S-S', qty: '1' }] }] }),
        { id: 'P-1', description: 'Café Sweater Oat', brand: { id: 'B-NW', description: 'Nordwear Studio' } },
        soapProduct({ id: 'P-3', variations: [{ id: 'V-Y', sizes: [{ id: 'S-S', qty: '2' }] }] }),
        { id: 'P-2', description: 'Renamed', variations: [{ id: 'V-X', sizes: [{ id: 'S-M', qty: '3' }] }] },
        soapProduct({ id: 'P-4', description: 'Blue Jumper', variations: [{ id: 'V-Z', sizes: [{ id: 'S-S', qty: '4' }] }] }),
      ];
      const one = await setup();
      const single = [];
      for (const p of batch) single.push(await one.catalog.applyProductUpsert(p));
      const parts = await setup();
      const repository = createCatalogRepository(parts.db);
      const applied: AppliedProduct[] = [];
      const together = await applyProductUpserts(
        { catalog: repository, writePartProducts: part, onApplied: (list) => applied.push(...list) },
        batch,
      );

      expect(together).toEqual(single);
      const ids = [...new Set(together.map((r) => r.productId))];
      const stored = async (h: typeof one) => (await createCatalogRepository(h.db).loadProducts(ids)).map((v) => v.product);
      const expected = await stored(one);
      // P-3 takes the URI P-1 gave up two products before, P-4 the one P-2 gave up just before it.
      expect(expected.slice(2).map((p) => [p.externalId, p.variants[0]!.uri])).toEqual([
        ['P-3', 'cafe-sweater'],
        ['P-4', 'blue-jumper'],
      ]);
      const modifiedAt = (p: Product) => ({ ...p, createdAt: '', modifiedAt: '' });
      expect((await stored(parts)).map(modifiedAt)).toEqual(expected.map(modifiedAt));
      expect(applied.map((a) => modifiedAt(a.product)).sort((a, b) => a.id - b.id)).toEqual(expected.map(modifiedAt));
      expect(await outboxCount(parts.db)).toBe(4);
    },
  );

  it('keeps nothing of a batch whose later part fails to be written, the parts written before included', async () => {
    const { db } = await setup();
    const repository = createCatalogRepository(db);
    let writes = 0;
    const failing: CatalogRepository = {
      ...repository,
      transaction: (work) =>
        repository.transaction((uow) =>
          work({
            ...uow,
            products: {
              ...uow.products,
              save: async (products) => {
                if (++writes === 3) throw new Error('the third part fails');
                await uow.products.save(products);
              },
            },
          }),
        ),
    };
    const batch = ['P-1', 'P-2', 'P-3', 'P-4'].map((id) => soapProduct({ id, description: id, variations: [{ id: `V-${id}` }] }));
    await expect(applyProductUpserts({ catalog: failing, writePartProducts: 1 }, batch)).rejects.toThrow('the third part fails');
    expect(writes).toBe(3);
    expect(await db.table('products').count({ n: '*' })).toEqual([{ n: 0 }]);
    expect(await outboxCount(db)).toBe(0);
    // The store works after it.
    await applyProductUpserts({ catalog: repository, writePartProducts: 1 }, batch);
    expect(await db.table('products').count({ n: '*' })).toEqual([{ n: 4 }]);
  });

  it('hands over each product it wrote as the store reads it back, with the id of the ProductUpserted recorded with it', async () => {
    const { db } = await setup();
    const repository = createCatalogRepository(db);
    await applyProductUpserts({ catalog: repository }, [soapProduct(), soapProduct({ id: 'P-9', description: 'Other' })]);
    const before = Number((await db.table('outbox').max({ seq: 'seq' }))[0]!['seq']);
    const applied: AppliedProduct[] = [];
    await applyProductUpserts({ catalog: repository, onApplied: (list) => applied.push(...list) }, [
      // An update of a stored product (its other variation kept), new products, a product twice, and a
      // size renamed by a later product than one that has it.
      soapProduct({
        variations: [
          {
            id: 'V-BRN',
            sizes: [
              { id: 'S-S', qty: '7' },
              { id: 'S-XL', description: 'XL', qty: '1' },
            ],
          },
        ],
      }),
      soapProduct({ id: 'P-2', variations: [{ id: 'V-X', sizes: [{ id: 'S-S', qty: '1' }] }] }),
      { id: 'P-2', description: 'Renamed', variations: [{ id: 'V-X', sizes: [{ id: 'S-M', qty: '3' }] }] },
      soapProduct({ id: 'P-3', variations: [{ id: 'V-Y', sizes: [{ id: 'S-XL', description: 'Extra Large', qty: '2' }] }] }),
    ]);
    const outbox = (await db.table('outbox').where({ topic: 'catalog.product.v1' }).select('id', 'key')) as Array<{
      id: string;
      key: string;
    }>;
    expect(applied.map((a) => a.product.externalId).sort()).toEqual(['P-1', 'P-2', 'P-3']);
    for (const { eventId, product } of applied) expect(outbox).toContainEqual({ id: eventId, key: String(product.id) });
    const stored = await repository.loadProducts(applied.map((a) => a.product.id));
    expect(applied.map((a) => a.product)).toEqual(stored.map((v) => v.product));
    expect(applied.find((a) => a.product.externalId === 'P-1')!.product.variants[0]!.items.map((i) => i.sizeName)).toEqual([
      'S',
      'M',
      'L',
      'Extra Large',
    ]);
    expect(await repository.productViews(applied.map((a) => a.product))).toEqual(stored);
    // What makes the batch searchable is recorded before the stock events, which the relay then publishes after it.
    const batchTopics = (
      (await db.table('outbox').where('seq', '>', before).orderBy('seq').select('topic')) as Array<{ topic: string }>
    ).map((r) => r.topic);
    // (P-2's two upserts each changed stock: two StockChanged, one ProductUpserted.)
    expect(batchTopics).toEqual([...Array<string>(3).fill('catalog.product.v1'), ...Array<string>(4).fill('catalog.stock.v1')]);
  });

  it('refuses a whole batch when one product has a bad number, writing nothing', async () => {
    const { db, catalog } = await setup();
    const bad = soapProduct({ id: 'P-2', variations: [{ id: 'V', sizes: [{ id: 'S', qty: 'lots' }] }] });
    await expect(catalog.applyProductUpserts([soapProduct(), bad])).rejects.toBeInstanceOf(InvalidProductError);
    expect(await outboxCount(db)).toBe(0);
    expect(await catalog.searchProducts({}, {})).toMatchObject({ productCount: 0 });
  });

  it('rejects a stock quantity that is not a whole number, writing nothing', async () => {
    const { db, catalog } = await setup();
    const bad = soapProduct({ variations: [{ id: 'V', sizes: [{ id: 'S', qty: 'lots' }] }] });
    const error = await catalog.applyProductUpsert(bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidProductError);
    expect((error as InvalidProductError).fields).toEqual({ 'variations.0.sizes.0.qty': 'must be a whole number' });
    expect(await outboxCount(db)).toBe(0);
  });

  it('filters by brand and availability and pages with the full count', async () => {
    const { catalog } = await setup();
    const a = await catalog.applyProductUpsert(soapProduct());
    const b = await catalog.applyProductUpsert(
      soapProduct({
        id: 'P-2',
        description: 'Plain Tee',
        brand: { id: 'B-X', description: 'Other' },
        variations: [{ id: 'V-X', sizes: [{ id: 'S-S', qty: '0' }] }],
      }),
    );
    await catalog.indexProduct(a.productId);
    await catalog.indexProduct(b.productId);
    const all = await catalog.searchProducts({}, {});
    const tee = all.products.find((p) => p.name === 'Plain Tee')!;
    expect((await catalog.searchProducts({ brands: [Number(tee.brand)] }, {})).products.map((p) => p.name)).toEqual(['Plain Tee']);
    expect((await catalog.searchProducts({ onlyAvailable: true }, {})).productCount).toBe(2);
    const page = await catalog.searchProducts({ skipFirst: 1, limit: 1 }, {});
    expect(page.productCount).toBe(3);
    expect(page.products.map((p) => p.product)).toEqual([all.products[1]!.product]);
  });

  it('answers null for unknown or malformed product and item ids', async () => {
    const { catalog } = await setup();
    expect(await catalog.getProduct('999', {})).toBeNull();
    expect(await catalog.getProduct('abc', {})).toBeNull();
    expect(await catalog.getItem('1-1', {})).toBeNull();
    expect(await catalog.getItem('nope', {})).toBeNull();
  });
});

describe('a product in markets and pricelists', () => {
  it('is invisible where its pricelist has no price, and visible once a price arrives (in either order)', async () => {
    const { catalog, takeEvents, reindex } = await setup();
    await catalog.applyPricelistUpsert(soapPricelist('SE', { 'P-1': '499.00' }));
    expect(await takeEvents()).toEqual([]); // the product has not arrived yet
    await catalog.applyProductUpsert(soapProduct());
    await reindex();
    const inSweden = await catalog.searchProducts({}, SE);
    expect(inSweden.products.map((p) => [p.variantName, p.price, p.priceAsNumber])).toEqual([
      ['Brown', '499.00 SEK', 499],
      ['Oat', '499.00 SEK', 499],
    ]);
    expect((await catalog.searchProducts({}, US)).productCount).toBe(0);
    const brown = inSweden.products[0]!;
    expect(await catalog.getProduct(brown.product, US)).toBeNull();
    expect(await catalog.getItem(brown.items[0]!.item, US)).toBeNull();
    expect(await catalog.getItem(brown.items[0]!.item, SE)).toMatchObject({ priceAsNumber: 499 });

    await catalog.applyPricelistUpsert(soapPricelist('US', { 'P-1': '49.95' }, { currency: 'USD' }));
    expect(await takeEvents()).toEqual(['1', '1']); // the product upsert, then the US price
    expect(await catalog.getProduct(brown.product, US)).toMatchObject({ price: '49.95 USD', priceAsNumber: 49.95 });
  });

  it('follows its displays: markets add, marketsremove remove, and never named means every market', async () => {
    const { catalog, reindex } = await setup();
    await catalog.applyMarketUpsert({ id: '1', description: 'Sweden' });
    await catalog.applyMarketUpsert({ id: '3', description: 'North America' });
    await catalog.applyPricelistUpsert(soapPricelist('SE', { 'P-1': '499' }));
    await catalog.applyPricelistUpsert(soapPricelist('US', { 'P-1': '49' }, { currency: 'USD' }));
    const { productId } = await catalog.applyProductUpsert(soapProduct());
    await reindex();
    const [brown, oat] = (await catalog.searchProducts({}, {})).products;
    expect(await catalog.getProduct(oat!.product, US)).not.toBeNull();

    // Oat leaves North America: starts from every known market, minus 3.
    await catalog.applyProductUpsert({ id: 'P-1', variations: [{ id: 'V-OAT', displays: [{ marketsremove: [{ id: '3' }] }] }] });
    expect(await catalog.getProduct(oat!.product, US)).toBeNull();
    expect(await catalog.getProduct(oat!.product, SE)).not.toBeNull();
    // Brown is named for Sweden only.
    await catalog.applyProductUpsert({ id: 'P-1', variations: [{ id: 'V-BRN', displays: [{ markets: [{ id: '1' }] }] }] });
    expect(await catalog.getProduct(brown!.product, US)).toBeNull();
    expect((await catalog.getProduct(brown!.product, SE))!.relatedProducts.map((r) => r.product)).toEqual([oat!.product]);
    await catalog.indexProduct(productId);
    expect((await catalog.searchProducts({}, US)).productCount).toBe(0);
    expect((await catalog.searchProducts({}, SE)).productCount).toBe(2);
  });

  it('prices a variation over its product, shows a discount from priceb, and keeps what a later upsert leaves out', async () => {
    const { catalog, reindex } = await setup();
    await catalog.applyProductUpsert(soapProduct());
    await catalog.applyPricelistUpsert({
      id: 'SE',
      currency: 'SEK',
      items: [
        { id: 'P-1', price: '400.00', priceb: '500.00' },
        { id: 'P-1', variation: { id: 'V-OAT', price: '450.00' } },
      ],
    });
    // The index scopes searches to the pricelist: it learns the prices from the events (here, a reindex).
    await reindex();
    const [brown, oat] = (await catalog.searchProducts({}, SE)).products;
    expect(brown).toMatchObject({
      price: '400.00 SEK',
      priceBeforeDiscount: '500.00 SEK',
      priceReduction: '100.00 SEK',
      discountPercent: 20,
      showAsOnSale: true,
    });
    expect(oat).toMatchObject({ price: '450.00 SEK', priceBeforeDiscountAsNumber: 450, showAsOnSale: false });
    // priceb alone: the price stays.
    await catalog.applyPricelistUpsert({ id: 'SE', items: [{ id: 'P-1', priceb: '800.00' }] });
    expect(await catalog.getProduct(brown!.product, SE)).toMatchObject({
      priceAsNumber: 400,
      priceBeforeDiscountAsNumber: 800,
      discountPercent: 50,
    });
  });
});

describe('stock per warehouse', () => {
  it('sums the warehouses an item is in, keeps warehouses left out, and counts qty only without warehouses', async () => {
    const { catalog, reindex } = await setup();
    await catalog.applyProductUpsert(soapProduct());
    await reindex();
    const brown = (await catalog.searchProducts({}, {})).products[0]!;
    const [small, medium] = brown.items;
    expect(await catalog.getItem(medium!.item, {})).toMatchObject({ stock: 5 }); // W1 2 + W2 3
    await catalog.applyProductUpsert({
      id: 'P-1',
      variations: [{ id: 'V-BRN', sizes: [{ id: 'S-M', warehouseitems: [{ id: 'W2', qty: '10' }] }] }],
    });
    expect(await catalog.getItem(medium!.item, {})).toMatchObject({ stock: 12 });
    await catalog.applyProductUpsert({
      id: 'P-1',
      variations: [
        {
          id: 'V-BRN',
          sizes: [
            { id: 'S-M', qty: '1' },
            { id: 'S-S', qty: '0' },
          ],
        },
      ],
    });
    expect(await catalog.getItem(medium!.item, {})).toMatchObject({ stock: 12 }); // warehouses decide
    expect(await catalog.getItem(small!.item, {})).toMatchObject({ stock: 0 });
    const after = (await catalog.getProduct(brown.product, {}))!;
    expect(after.items.map((i) => i.stock)).toEqual(['no', 'yes', 'no']);
    expect(after.inStock).toBe(true);
  });
});

describe('what else a product upsert shows', () => {
  it('keeps harm code, weight, comment, and re-publishes other products of a renamed brand', async () => {
    const { catalog, takeEvents, reindex } = await setup();
    await catalog.applyProductUpsert(soapProduct({ harmcode: { id: '6110', description: 'Apparel' }, countryoforigin: 'PT' }));
    await catalog.applyProductUpsert(soapProduct({ id: 'P-2', variations: [{ id: 'V-X', sizes: [{ id: 'S-S', qty: '1' }] }] }));
    await takeEvents();
    await reindex();
    const p = (await catalog.searchProducts({}, {})).products[0]!;
    expect(p).toMatchObject({ harmCode: '6110', harmCodeDescription: 'Apparel', countryOrigin: 'PT', silkProduct: p.platformProduct });
    await catalog.applyProductUpsert({ id: 'P-1', brand: { id: 'B-NW', description: 'Nordwear Studio' } });
    expect((await takeEvents()).sort()).toEqual(['1', '2']);
    expect(await catalog.getProduct(p.product, {})).toMatchObject({
      brandName: 'Nordwear Studio',
      brandUri: 'nordwear-studio',
      harmCode: '6110',
    });
  });

  it('removes display categories listed in categoriesremove', async () => {
    const { catalog, reindex } = await setup();
    await catalog.applyProductUpsert(soapProduct());
    await reindex();
    const brown = (await catalog.searchProducts({}, {})).products[0]!;
    expect(Object.values(brown.categories).map((c) => c.uri)).toEqual(['knitwear', 'new-arrivals']);
    await catalog.applyProductUpsert({ id: 'P-1', variations: [{ id: 'V-BRN', displays: [{ categoriesremove: [{ id: 'F-NEW' }] }] }] });
    expect(Object.values((await catalog.getProduct(brown.product, {}))!.categories).map((c) => c.uri)).toEqual(['knitwear']);
  });
});

describe('the demo catalog', () => {
  const demoStore = parseStoreConfig(JSON.parse(readFileSync(resolve(__dirname, '../../../../infra/config/demo-store.json'), 'utf8')));
  const demo = parseDemoCatalog(JSON.parse(readFileSync(resolve(__dirname, '../../../../infra/config/demo-catalog.json'), 'utf8')));

  it('is valid SOAP entities and applies cleanly: priced in the demo markets when it has pricelists, searchable in every script', async () => {
    expect(demo.products.length).toBeGreaterThanOrEqual(12);
    const { catalog } = await catalogHarness(engine, catalogSettings(demoStore));
    await catalog.syncCategories();
    for (const m of demo.markets) await catalog.applyMarketUpsert(m);
    for (const w of demo.warehouses) await catalog.applyWarehouseUpsert(w);
    for (const s of demo.sizes) await catalog.applySizeUpsert(s);
    for (const p of demo.pricelists) await catalog.applyPricelistUpsert(p);
    for (const p of demo.products) await catalog.indexProduct((await catalog.applyProductUpsert(p)).productId);
    const contexts = demo.pricelists.length > 0 ? demoStore.markets.map((m) => ({ market: m.market, pricelist: m.pricelist })) : [{}];
    for (const context of contexts) {
      const all = await catalog.searchProducts({}, context);
      expect(all.productCount).toBeGreaterThan(0);
      if (demo.pricelists.length > 0) expect(all.products.every((p) => p.priceAsNumber > 0)).toBe(true);
    }
    const all = await catalog.searchProducts({}, contexts[0]!);
    expect(all.products.some((p) => !p.inStock)).toBe(true);
    expect((await catalog.searchProducts({ search: 'cafe' }, contexts[0]!)).products.map((p) => p.name)).toEqual(
      expect.arrayContaining(['Café Sweater', 'Cafe Racer Jacket']),
    );
    expect((await catalog.searchProducts({ search: 'платье' }, contexts[0]!)).productCount).toBeGreaterThanOrEqual(1);
    // 162 products applied and indexed one by one: about 2 s on a quiet machine, over 5 s on a loaded one.
  }, 60_000);
});
