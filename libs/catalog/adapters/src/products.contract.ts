import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { catalogSettings, productUpsertedEvents, type Category, type ProductKey } from '@commerce/catalog-core';
import { parseStoreConfig } from '@commerce/shared-config';
import type { DbEngine } from '@commerce/shared-db';
import { createCatalogRepository } from './catalog.knex-repository';
import { parseDemoCatalog } from './demo-catalog';
import { loadProducts } from './products.knex-repository';
import { catalogHarness, countRows } from './testing/catalog-harness';
import { soapProduct } from './testing/soap-product.fixture';

const keys = (list: ProductKey[]) => list.map((k) => k.externalId).sort();

/**
 * The products repository (products.knex-repository.ts) and the unit of work it writes in: a slice of the
 * catalog store's contract (`catalog-entities.contract.ts`), run on PGlite and on Postgres.
 */
export function productsContract(openEngine: () => DbEngine): void {
  const harness = () => catalogHarness(openEngine());

  describe('the products repository', () => {
    it('reads back the products, variants, items and per-warehouse stock it wrote', async () => {
      const { db, catalog } = await harness();
      await catalog.applyProductUpsert(soapProduct());
      const repo = createCatalogRepository(db);
      const [stored] = await repo.transaction((uow) => uow.products.findByExternalIds(['P-1', 'P-404']));
      expect(stored!.variants.map((v) => v.items.map((i) => [i.sizeName, i.warehouseStock]))).toEqual([
        [
          ['S', {}],
          ['M', { W1: 2, W2: 3 }],
          ['L', {}],
        ],
        [
          ['S', {}],
          ['M', {}],
        ],
      ]);

      const renamed = {
        ...stored!,
        name: 'Renamed',
        variants: stored!.variants.map((v, i) =>
          i === 0
            ? { ...v, items: v.items.map((item) => ({ ...item, qty: item.qty + 1, warehouseStock: { ...item.warehouseStock, W3: 7 } })) }
            : v,
        ),
      };
      await repo.transaction((uow) => uow.products.save([renamed]));
      const sent: string[] = [];
      const listen = (q: { sql: string }) => void sent.push(q.sql);
      db.knex.on('query', listen);
      try {
        expect((await repo.loadProducts([stored!.id])).map((v) => v.product)).toEqual([renamed]);
      } finally {
        db.knex.off('query', listen);
      }
      // The items' per-warehouse stock comes with the items, in one statement (issue 28: it was one more).
      const withStock = sent.filter((sql) => sql.includes('item_stock'));
      expect(withStock).toHaveLength(1);
      expect(withStock[0]).toContain('size_external_id');
      expect(await repo.transaction((uow) => uow.products.findByExternalIds(['P-1']))).toEqual([renamed]);
    });

    it('finds the products a change of a size, size table, variation, brand, collection or category touches', async () => {
      const { db, catalog } = await harness();
      await catalog.applyProductUpsert(soapProduct());
      await catalog.applyProductUpsert(
        soapProduct({
          id: 'P-2',
          brand: { id: 'B-2' },
          folder: { id: 'F-2' },
          variations: [{ id: 'V-X', sizes: [{ id: 'S-XL', qty: '1' }] }],
        }),
      );
      await catalog.applySizeUpsert({ id: 'S-XL', sizetable: { id: 'ST-1' } });
      const repo = createCatalogRepository(db);
      const found = await repo.transaction(async (uow) => {
        const [xl] = await uow.sizes.findByExternalIds(['S-XL']);
        const [nordwear] = await uow.brandsAndCollections.findByExternalIds('brand', ['B-NW']);
        const [autumn] = await uow.brandsAndCollections.findByExternalIds('collection', ['C-AW']);
        const categories = await uow.categories.findByExternalIds(['F-NEW', 'F-2']);
        const id = (externalId: string) => categories.find((c: Category) => c.externalId === externalId)!.id;
        return {
          of: keys(await uow.products.keysOf(['P-2', 'P-404', 'P-1', 'P-2'])),
          sizes: keys(await uow.products.keysWithSizes([xl!.id])),
          noSizes: await uow.products.keysWithSizes([]),
          table: keys(await uow.products.keysWithSizeTable('ST-1')),
          variations: keys(await uow.products.keysWithVariations(['V-OAT', 'V-X'])),
          brand: keys(await uow.products.keysWithRef('brand', nordwear!.id)),
          collection: keys(await uow.products.keysWithRef('collection', autumn!.id)),
          // A variant's display category (F-NEW) and a product's folder (F-2).
          newArrivals: keys(await uow.products.keysInCategories([id('F-NEW')])),
          folder: keys(await uow.products.keysInCategories([id('F-2')])),
        };
      });
      expect(found).toEqual({
        of: ['P-1', 'P-2'],
        sizes: ['P-2'],
        noSizes: [],
        table: ['P-2'],
        variations: ['P-1', 'P-2'],
        brand: ['P-1'],
        collection: ['P-1', 'P-2'],
        newArrivals: ['P-1'],
        folder: ['P-2'],
      });
    });
  });

  describe('the unit of work', () => {
    it('writes every aggregate and the outbox in one transaction: a failure keeps none of them', async () => {
      const { db, catalog } = await harness();
      await catalog.applyProductUpsert(soapProduct());
      const repo = createCatalogRepository(db);
      const outboxBefore = await countRows(db, 'outbox');
      const failed = await repo
        .transaction(async (uow) => {
          const [product] = await uow.products.findByExternalIds(['P-1']);
          await uow.products.save([{ ...product!, name: 'Never' }]);
          await uow.categories.save([
            {
              id: await uow.categories.nextId(),
              externalId: 'F-NEVER',
              name: 'Never',
              uri: 'never',
              parentId: null,
              position: 9,
              configured: false,
              namePath: ['Never'],
            },
          ]);
          await uow.marketsAndWarehouses.saveWarehouse({ externalId: 'W-NEVER', description: 'Never' });
          await uow.outbox.publish(productUpsertedEvents([product!]));
          // Read inside, the writes are there (one transaction, one connection).
          expect((await uow.products.findByExternalIds(['P-1']))[0]!.name).toBe('Never');
          throw new Error('the change fails after its writes');
        })
        .catch((e: unknown) => e);
      expect(failed).toEqual(new Error('the change fails after its writes'));
      const [view] = await repo.loadProducts([(await repo.listProductIds(0, 1))[0]!]);
      expect(view!.product.name).toBe('Café Sweater');
      expect(await repo.transaction((uow) => uow.categories.findByExternalIds(['F-NEVER']))).toEqual([]);
      expect(await repo.transaction((uow) => uow.marketsAndWarehouses.findWarehouse('W-NEVER'))).toBeNull();
      expect(await countRows(db, 'outbox')).toBe(outboxBefore);
    });

    it('reads products with their views in one statement, equal to the reads of each part (issue 28)', async () => {
      const config = (name: string): unknown => JSON.parse(readFileSync(resolve(__dirname, `../../../../infra/config/${name}`), 'utf8'));
      const demo = parseDemoCatalog(config('demo-catalog.json'));
      const { db, catalog } = await catalogHarness(openEngine(), catalogSettings(parseStoreConfig(config('demo-store.json'))));
      // The demo catalog: a category tree, brands, collections, size tables, three pricelists; and a delivery window.
      await catalog.syncCategories();
      for (const m of demo.markets) await catalog.applyMarketUpsert(m);
      for (const w of demo.warehouses) await catalog.applyWarehouseUpsert(w);
      for (const s of demo.sizes) await catalog.applySizeUpsert(s);
      for (const p of demo.pricelists) await catalog.applyPricelistUpsert(p);
      await catalog.applyProductUpserts(demo.products);
      await catalog.applyDeliveryWindowUpsert({
        id: 'DW-1',
        status: 'active',
        description: 'Spring',
        startdate: '2026-03-01',
        stopdate: '2026-04-01',
        variations: [{ id: demo.products[0]!.variations![0]!.id }, { id: demo.products[1]!.variations![0]!.id }],
      });
      const repo = createCatalogRepository(db);
      const ids = [...(await repo.listProductIds(0, 1000)), 999_999];
      const sent: string[] = [];
      const listen = (query: { sql: string }) => void sent.push(query.sql);
      db.knex.on('query', listen);
      const views = await repo.loadProducts(ids);
      const some = [views[0]!.product.variants[0]!.id, views[3]!.product.variants.at(-1)!.id, views[3]!.product.variants[0]!.id, 999_999];
      const ofVariants = await repo.loadProductsOfVariants(some);
      db.knex.off('query', listen);
      expect(sent).toHaveLength(2);
      expect(views).toHaveLength(ids.length - 1);
      expect(views.some((v) => v.deliveryWindows.length > 0 && v.prices.length > 0 && v.brand && v.collection)).toBe(true);
      expect([...views[0]!.categories.values()].some((c) => c.parentId !== null)).toBe(true);
      // The same as each part read on its own: the products, then what their views add.
      const products = await loadProducts({ db }, ids);
      expect(views.map((v) => v.product)).toEqual(products);
      expect(views).toEqual(await repo.productViews(products));
      // The products of the variants asked for, the unknown left out; their views as those two read alone.
      expect(ofVariants.map((v) => v.product).sort((a, b) => a.id - b.id)).toEqual([views[0]!.product, views[3]!.product]);
      expect([...ofVariants].sort((a, b) => a.product.id - b.product.id)).toEqual(
        await repo.productViews([views[0]!.product, views[3]!.product]),
      );
    }, 60_000);

    it('joins the transaction it is bound to instead of opening one: the caller’s rollback takes its writes too', async () => {
      const { db, catalog } = await harness();
      await catalog.applyProductUpsert(soapProduct());
      const outboxBefore = await countRows(db, 'outbox');
      await db
        .transaction(async (trx) => {
          const bound = createCatalogRepository(db, trx);
          await bound.transaction(async (uow) => {
            await uow.marketsAndWarehouses.saveMarket({ externalId: 'M-1', store: '1', type: 'b2c', description: 'Sweden' });
            await uow.outbox.publish(productUpsertedEvents(await uow.products.keysOf(['P-1'])));
          });
          // Committed by nothing yet: the unit of work did not open a transaction of its own.
          expect(await bound.transaction((uow) => uow.marketsAndWarehouses.findMarket('M-1'))).toEqual({
            externalId: 'M-1',
            store: '1',
            type: 'b2c',
            description: 'Sweden',
          });
          throw new Error('the caller rolls back');
        })
        .catch(() => undefined);
      const repo = createCatalogRepository(db);
      expect(await repo.transaction((uow) => uow.marketsAndWarehouses.findMarket('M-1'))).toBeNull();
      expect(await countRows(db, 'outbox')).toBe(outboxBefore);
    });
  });
}
