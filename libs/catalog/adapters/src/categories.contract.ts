import { catalogSettings } from '@commerce/catalog-core';
import type { CategoryNode } from '@commerce/shared-config';
import type { DbEngine } from '@commerce/shared-db';
import { createCatalogRepository } from './catalog.knex-repository';
import { catalogHarness, variantId } from './testing/catalog-harness';
import { soapProduct } from './testing/soap-product.fixture';

/**
 * The catalog's the category tree (categories.knex-repository.ts), through the use cases that write them: a slice of the catalog store's contract
 * (`catalog-entities.contract.ts`), run on PGlite and on Postgres.
 */
export function categoriesContract(openEngine: () => DbEngine): void {
  const harness = (settings?: Parameters<typeof catalogHarness>[1]) => catalogHarness(openEngine(), settings);

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
