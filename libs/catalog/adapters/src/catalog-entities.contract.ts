import { catalogSettings, InvalidUpsertError } from '@commerce/catalog-core';
import type { CategoryNode } from '@commerce/shared-config';
import type { Db, DbEngine } from '@commerce/shared-db';
import { createCatalogRepository } from './catalog.repository.knex';
import { catalogHarness, soapPricelist } from './testing/catalog-harness';
import { soapProduct } from './testing/soap-product.fixture';

const count = async (db: Db, table: string) => Number((await db.table(table).count({ n: '*' }))[0]!['n']);
const SE = { market: '1', pricelist: 'SE' };

/**
 * The catalog's entities from the back office, through its use cases on the knex repository: written
 * once, run on PGlite (`catalog.entities.spec.ts`) and on Postgres (`catalog.entities.int-spec.ts`).
 */
export function catalogEntitiesContract(openEngine: () => DbEngine): void {
  const harness = (settings?: Parameters<typeof catalogHarness>[1]) => catalogHarness(openEngine(), settings);

  describe('sizes_Update', () => {
    it('renames a size for every product that has it and gives its table stock unit; unchanged sends change nothing', async () => {
      const { db, catalog, takeEvents } = await harness();
      await catalog.applyProductUpsert(soapProduct());
      await catalog.applyProductUpsert(soapProduct({ id: 'P-2', variations: [{ id: 'V-X', sizes: [{ id: 'S-M', qty: '1' }] }] }));
      await catalog.applyProductUpsert(soapProduct({ id: 'P-3', variations: [{ id: 'V-Y', sizes: [{ id: 'S-XL', qty: '1' }] }] }));
      await takeEvents();

      const size = {
        id: 'S-M',
        description: 'Medium',
        sku: 'M',
        ean: '999',
        comment: 'fits large',
        sizetable: { id: 'ST-L', description: 'Letters', stockdivisor: '1', stockunit: 'pcs' },
      };
      expect(await catalog.applySizeUpsert(size)).toEqual({ changed: true, affectedProducts: 2 });
      expect((await takeEvents()).sort()).toEqual(['1', '2']);
      const brown = (await catalog.getProduct(await variantId(db, 'P-1'), {}))!;
      expect(brown.items.map((i) => i.name)).toEqual(['S', 'Medium', 'L']);
      expect(brown.stockUnit).toBe('pcs');

      expect(await catalog.applySizeUpsert(size)).toEqual({ changed: false, affectedProducts: 0 });
      expect(await takeEvents()).toEqual([]);

      // The table's unit changes: products whose sizes use it.
      expect(await catalog.applySizeUpsert({ id: 'S-M', sizetable: { id: 'ST-L', stockunit: 'pair' } })).toEqual({
        changed: true,
        affectedProducts: 2,
      });
      expect((await catalog.getProduct(await variantId(db, 'P-2'), {}))!.stockUnit).toBe('pair');
      // A size no product has yet: stored, nobody to publish.
      expect(await catalog.applySizeUpsert({ id: 'S-NEW', description: 'XXL' })).toEqual({ changed: true, affectedProducts: 0 });
    });

    it('applies the table’s stock divisor to stock and inStock, re-publishing the products whose sizes use it (decision 22)', async () => {
      const { db, catalog, takeEvents, reindex } = await harness();
      // Brown: S 4 units, M 5 (two warehouses), L 0; Oat: S 1, M 1.
      await catalog.applyProductUpsert(soapProduct());
      await catalog.applySizeUpsert({ id: 'S-S', sizetable: { id: 'ST-BOX', stockdivisor: '1', stockunit: 'box' } });
      await catalog.applySizeUpsert({ id: 'S-M', sizetable: { id: 'ST-BOX' } });
      await takeEvents();
      const stockOf = async (variation: string) => {
        const product = (await catalog.getProduct(await variationId(db, variation), {}))!;
        return { inStock: product.inStock, items: product.items.map((i) => `${i.name}:${i.stock}`) };
      };
      expect(await stockOf('V-OAT')).toEqual({ inStock: true, items: ['S:yes', 'M:yes'] });

      // Five units a box: Brown M's 5 make one; Brown S's 4 and Oat's single units make none.
      expect(await catalog.applySizeUpsert({ id: 'S-S', sizetable: { id: 'ST-BOX', stockdivisor: '5' } })).toEqual({
        changed: true,
        affectedProducts: 1,
      });
      expect(await takeEvents()).toEqual(['1']);
      expect(await stockOf('V-BRN')).toEqual({ inStock: true, items: ['S:no', 'M:yes', 'L:no'] });
      expect(await stockOf('V-OAT')).toEqual({ inStock: false, items: ['S:no', 'M:no'] });
      const brownM = (await catalog.getProduct(await variationId(db, 'V-BRN'), {}))!.items[1]!.item;
      expect((await catalog.getItem(brownM, {}))!.stock).toBe(1);
      // The index follows the re-published product: onlyAvailable leaves Oat out.
      await reindex();
      expect((await catalog.searchProducts({ onlyAvailable: true }, {})).products.map((p) => p.variantName)).toEqual(['Brown']);
    });

    it('refuses a stock divisor below 1', async () => {
      const { catalog } = await harness();
      const error = await catalog.applySizeUpsert({ id: 'S', sizetable: { id: 'T', stockdivisor: '0' } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidUpsertError);
      expect((error as InvalidUpsertError).fields).toEqual({ 'sizetable.stockdivisor': 'must be a whole number of at least 1' });
    });
  });

  describe('pricelists_Update', () => {
    it('publishes only the products whose price changed, and nothing on a repeat', async () => {
      const { catalog, takeEvents } = await harness();
      await catalog.applyProductUpsert(soapProduct());
      await catalog.applyProductUpsert(soapProduct({ id: 'P-2', variations: [{ id: 'V-X', sizes: [{ id: 'S-S', qty: '1' }] }] }));
      await takeEvents();
      expect(await catalog.applyPricelistUpsert(soapPricelist('SE', { 'P-1': '100', 'P-2': '200', 'P-404': '1' }))).toEqual({
        changed: true,
        affectedProducts: 2,
      });
      expect(await takeEvents()).toEqual(['1', '2']);
      expect(await catalog.applyPricelistUpsert(soapPricelist('SE', { 'P-1': '100', 'P-2': '250' }))).toEqual({
        changed: true,
        affectedProducts: 1,
      });
      expect(await takeEvents()).toEqual(['2']);
      expect(await catalog.applyPricelistUpsert(soapPricelist('SE', { 'P-1': '100', 'P-2': '250' }))).toEqual({
        changed: false,
        affectedProducts: 0,
      });
      expect(await takeEvents()).toEqual([]);
    });

    it('restates its prices when the currency changes, and republishes all its products', async () => {
      const { db, catalog, takeEvents } = await harness();
      await catalog.applyProductUpsert(soapProduct());
      await catalog.applyPricelistUpsert(soapPricelist('SE', { 'P-1': '1200' }, { currency: 'SEK' }));
      await takeEvents();
      await catalog.applyPricelistUpsert({ id: 'SE', currency: 'JPY' });
      expect(await takeEvents()).toEqual(['1']);
      expect((await db.table('pricelist_items').first())!['price']).toEqual(expect.anything());
      expect((await catalog.getProduct(await variantId(db, 'P-1'), SE))!).toMatchObject({ price: '1200 JPY', priceAsNumber: 1200 });
    });

    it('refuses an amount it cannot read, writing nothing', async () => {
      const { db, catalog } = await harness();
      const error = await catalog.applyPricelistUpsert(soapPricelist('SE', { 'P-1': '10', 'P-2': '1.999' })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidUpsertError);
      expect((error as InvalidUpsertError).fields).toEqual({ 'items.1.price': 'must be an amount ≥ 0 with at most 2 decimals' });
      expect(await count(db, 'pricelist_items')).toBe(0);
      expect(await count(db, 'pricelists')).toBe(0);
    });
  });

  describe('markets_Update and warehouses_Update', () => {
    it('store them without republishing products, and change nothing on a repeat', async () => {
      const { db, catalog, takeEvents } = await harness();
      await catalog.applyProductUpsert(soapProduct());
      await takeEvents();
      expect(await catalog.applyMarketUpsert({ id: '1', store: '1', type: 'b2c', description: 'Sweden' })).toEqual({
        changed: true,
        affectedProducts: 0,
      });
      expect(await catalog.applyMarketUpsert({ id: '1', description: 'Sweden' })).toEqual({ changed: false, affectedProducts: 0 });
      expect(await catalog.applyWarehouseUpsert({ id: 'W1', description: 'Stockholm' })).toEqual({ changed: true, affectedProducts: 0 });
      expect(await catalog.applyWarehouseUpsert({ id: 'W1' })).toEqual({ changed: false, affectedProducts: 0 });
      expect(await takeEvents()).toEqual([]);
      expect(await db.table('markets').first()).toEqual({ external_id: '1', store: '1', type: 'b2c', description: 'Sweden' });
      expect(await db.table('warehouses').first()).toEqual({ external_id: 'W1', description: 'Stockholm' });
    });
  });

  describe('deliverywindows_Update', () => {
    it('makes the variations of an active window available for preorder, and time closes it', async () => {
      const { db, catalog, clock, takeEvents, reindex } = await harness();
      await catalog.applyProductUpsert(
        soapProduct({ variations: [{ id: 'V-OAT', description: 'Oat', sizes: [{ id: 'S-S', qty: '0' }] }] }),
      );
      await reindex();
      const oat = await variantId(db, 'P-1');
      expect((await catalog.getProduct(oat, {}))!.inStock).toBe(false);
      expect((await catalog.searchProducts({ onlyAvailable: true }, {})).productCount).toBe(0);
      await takeEvents();

      clock.set('2026-03-01T12:00:00Z');
      const window = {
        id: 'DW-1',
        status: 'active',
        description: 'Spring preorder',
        startdate: '2026-02-01',
        stopdate: '2026-03-31',
        atonce: false,
        variations: [{ id: 'V-OAT', type: 'variation', productlimit: 10, variationlimit: 5 }],
      };
      expect(await catalog.applyDeliveryWindowUpsert(window)).toEqual({ changed: true, affectedProducts: 1 });
      expect(await takeEvents()).toEqual(['1']);
      await reindex();
      expect((await catalog.getProduct(oat, {}))!).toMatchObject({ inStock: true, items: [expect.objectContaining({ stock: 'yes' })] });
      expect((await catalog.searchProducts({ onlyAvailable: true }, {})).productCount).toBe(1);
      expect(await catalog.applyDeliveryWindowUpsert(window)).toEqual({ changed: false, affectedProducts: 0 });

      // The stop date counts to the end of its day; the next day the window is closed.
      clock.set('2026-03-31T23:00:00Z');
      expect(await catalog.refreshDeliveryWindows()).toEqual({ windows: 0, affectedProducts: 0 });
      clock.set('2026-04-01T00:00:01Z');
      expect((await catalog.getProduct(oat, {}))!.inStock).toBe(false);
      expect(await catalog.refreshDeliveryWindows()).toEqual({ windows: 1, affectedProducts: 1 });
      expect(await takeEvents()).toEqual(['1']);
      expect(await catalog.refreshDeliveryWindows()).toEqual({ windows: 0, affectedProducts: 0 });
    });

    it('removes the variations in variationsremove, and an inactive status closes the window', async () => {
      const { db, catalog, clock, takeEvents } = await harness();
      await catalog.applyProductUpsert(soapProduct({ variations: [{ id: 'V-OAT', sizes: [{ id: 'S-S', qty: '0' }] }] }));
      const oat = await variantId(db, 'P-1');
      clock.set('2026-03-01T12:00:00Z');
      await catalog.applyDeliveryWindowUpsert({ id: 'DW', status: 'active', variations: [{ id: 'V-OAT' }] });
      expect((await catalog.getProduct(oat, {}))!.inStock).toBe(true);
      await catalog.applyDeliveryWindowUpsert({ id: 'DW', status: 'inactive' });
      expect((await catalog.getProduct(oat, {}))!.inStock).toBe(false);
      await catalog.applyDeliveryWindowUpsert({ id: 'DW', status: 'active' });
      expect((await catalog.getProduct(oat, {}))!.inStock).toBe(true);
      await takeEvents();
      expect(await catalog.applyDeliveryWindowUpsert({ id: 'DW', variationsremove: [{ id: 'V-OAT' }] })).toEqual({
        changed: true,
        affectedProducts: 1,
      });
      expect(await takeEvents()).toEqual(['1']);
      expect((await catalog.getProduct(oat, {}))!.inStock).toBe(false);
    });
  });

  describe('the category tree', () => {
    const tree: CategoryNode[] = [
      {
        category: 'C-WOMEN',
        name: 'Women',
        children: [
          {
            category: 'C-W-TOPS',
            name: 'Tops',
            children: [
              { category: 'C-W-SHIRTS', name: 'Shirts' },
              { category: 'F-KNIT', name: 'Knitwear' },
            ],
          },
        ],
      },
      { category: 'C-MEN', name: 'Men' },
    ];
    const settings = catalogSettings({
      currencies: [{ currency: 'SEK', name: 'Krona', prefix: '', suffix: ' SEK', decimalPoint: '.', decimalDigits: 2, uri: 'sek' }],
      markets: [{ market: '1', name: 'Sweden', pricelist: 'SE', currency: 'SEK' }],
      categories: tree,
    });

    it('lists the configured tree in order, three levels deep, with full-path uris and names, unknown refs after it', async () => {
      const { db, catalog } = await harness(settings);
      await catalog.syncCategories();
      // The ERP names a configured category (its description does not rename it) and one the tree lacks.
      await catalog.applyProductUpsert(soapProduct({ folder: { id: 'F-KNIT', description: 'Strick' } }));
      expect(await catalog.listCategories()).toEqual([
        { category: expect.any(String), name: ['Women'], uri: 'women' },
        { category: expect.any(String), name: ['Women', 'Tops'], uri: 'women/tops', inCategory: expect.any(String) },
        { category: expect.any(String), name: ['Women', 'Tops', 'Shirts'], uri: 'women/tops/shirts', inCategory: expect.any(String) },
        { category: expect.any(String), name: ['Women', 'Tops', 'Knitwear'], uri: 'women/tops/knitwear', inCategory: expect.any(String) },
        { category: expect.any(String), name: ['Men'], uri: 'men' },
        { category: expect.any(String), name: ['New Arrivals'], uri: 'new-arrivals' },
      ]);
      const [women, tops, , knit] = await catalog.listCategories();
      expect(tops!.inCategory).toBe(women!.category);
      expect(knit!.inCategory).toBe(tops!.category);

      const brown = (await catalog.getProduct(await variantId(db, 'P-1'), {}))!;
      expect(brown).toMatchObject({
        category: knit!.category,
        categoryUri: 'women/tops/knitwear',
        categoryName: ['Women', 'Tops', 'Knitwear'],
      });
      expect(brown.categories[knit!.category]).toEqual({
        category: knit!.category,
        name: ['Women', 'Tops', 'Knitwear'],
        uri: 'women/tops/knitwear',
        inCategory: tops!.category,
      });

      const repo = createCatalogRepository(db);
      expect(await repo.findUri('women/tops/knitwear')).toEqual({ variantId: null, categoryId: Number(knit!.category) });
      expect(await repo.findUri(brown.uri)).toEqual({ variantId: Number(brown.product), categoryId: null });
      expect(await repo.findUri('nowhere')).toEqual({ variantId: null, categoryId: null });
    });

    it('renames and moves with the configuration at the next start, republishing the products in the categories that changed', async () => {
      const { db, catalog, takeEvents } = await harness(settings);
      await catalog.syncCategories();
      await catalog.applyProductUpsert(soapProduct({ folder: { id: 'F-KNIT' } }));
      await takeEvents();
      expect(await catalog.syncCategories()).toEqual({ changed: 0, affectedProducts: 0 });

      const renamed: CategoryNode[] = [{ category: 'C-WOMEN', name: 'Damen', children: [{ category: 'F-KNIT', name: 'Strick' }] }];
      expect(await catalog.syncCategories(renamed)).toMatchObject({ affectedProducts: 1 });
      expect(await takeEvents()).toEqual(['1']);
      expect((await catalog.getProduct(await variantId(db, 'P-1'), {}))!).toMatchObject({
        categoryUri: 'damen/strick',
        categoryName: ['Damen', 'Strick'],
      });
      // Categories the configuration dropped move to the top level, after the configured ones and the
      // unconfigured ones already there.
      expect((await catalog.listCategories()).map((c) => c.uri)).toEqual([
        'damen',
        'damen/strick',
        'new-arrivals',
        'tops',
        'shirts',
        'men',
      ]);
    });
  });
}

/** The id of a variant (the checkout API's product id), by the ERP's variation id. */
async function variationId(db: Db, variationExternalId: string): Promise<string> {
  const row = await db.table('variants').where({ external_id: variationExternalId }).first('id');
  if (!row) throw new Error(`no variant ${variationExternalId}`);
  return String(row.id);
}

/** The id of a product's first variant (the checkout API's product id), by the ERP's product id. */
async function variantId(db: Db, productExternalId: string): Promise<string> {
  const row = await db
    .table('variants')
    .join(`${db.schema}.products as p`, 'p.id', `${db.schema}.variants.product_id`)
    .where('p.external_id', productExternalId)
    .orderBy(`${db.schema}.variants.position`)
    .first(`${db.schema}.variants.id`);
  if (!row) throw new Error(`no variant of ${productExternalId}`);
  return String(row.id);
}
