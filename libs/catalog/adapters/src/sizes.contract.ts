import { InvalidUpsertError } from '@commerce/catalog-core';
import type { DbEngine } from '@commerce/shared-db';
import { catalogHarness, variantId, variationId } from './testing/catalog-harness';
import { soapProduct } from './testing/soap-product.fixture';

/**
 * The catalog's sizes and size tables (sizes.knex-repository.ts), through the use cases that write them: a slice of the catalog store's contract
 * (`catalog-entities.contract.ts`), run on PGlite and on Postgres.
 */
export function sizesContract(openEngine: () => DbEngine): void {
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
}
