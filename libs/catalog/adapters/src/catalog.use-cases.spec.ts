import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SoapProductSchema, type SoapProduct } from '@commerce/backoffice-contracts';
import { catalogUseCases, InvalidProductError, type CatalogUseCases } from '@commerce/catalog-core';
import { createDbEngine, migrate, type Db, type DbEngine } from '@commerce/shared-db';
import { uniqueName } from '@commerce/shared-testing';
import { catalogMigrations } from './catalog.migrations';
import { createCatalogRepository } from './catalog.repository.knex';
import { MiniSearchIndex } from './search/minisearch.search-index';
import { soapProduct } from './testing/soap-product.fixture';

let engine: DbEngine;
beforeAll(async () => {
  engine = await createDbEngine('pglite://memory');
}, 60_000);
afterAll(() => engine?.close());

async function setup(): Promise<{ db: Db; catalog: CatalogUseCases; search: MiniSearchIndex }> {
  const db = engine.forSchema(uniqueName('catalog'));
  await migrate(db, catalogMigrations);
  const search = new MiniSearchIndex();
  return { db, search, catalog: catalogUseCases({ catalog: createCatalogRepository(db), search }) };
}

const outboxCount = async (db: Db) => Number((await db.table('outbox').count({ n: '*' }))[0]!['n']);

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

describe('the demo catalog', () => {
  it('is valid SOAP products and applies cleanly, with one product out of stock', async () => {
    const raw = JSON.parse(readFileSync(resolve(__dirname, '../../../../infra/config/demo-catalog.json'), 'utf8')) as unknown[];
    const products: SoapProduct[] = raw.map((p) => SoapProductSchema.parse(p));
    expect(products.length).toBeGreaterThanOrEqual(12);
    const { catalog } = await setup();
    for (const p of products) await catalog.indexProduct((await catalog.applyProductUpsert(p)).productId);
    const all = await catalog.searchProducts({}, {});
    expect(all.products.filter((p) => !p.inStock).map((p) => p.name)).toEqual(['Denim Jacket']);
    expect((await catalog.searchProducts({ search: 'cafe' }, {})).products.map((p) => p.name)).toEqual(
      expect.arrayContaining(['Café Sweater', 'Cafe Racer Jacket']),
    );
    expect((await catalog.searchProducts({ search: 'платье' }, {})).productCount).toBe(1);
  });
});
