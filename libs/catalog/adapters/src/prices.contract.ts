import { InvalidUpsertError } from '@commerce/catalog-core';
import type { DbEngine } from '@commerce/shared-db';
import { catalogHarness, countRows, soapPricelist, variantId } from './testing/catalog-harness';
import { soapProduct } from './testing/soap-product.fixture';

const SE = { market: '1', pricelist: 'SE' };

/**
 * The catalog's pricelists and their prices (prices.knex-repository.ts), through the use cases that write them: a slice of the catalog store's contract
 * (`catalog-entities.contract.ts`), run on PGlite and on Postgres.
 */
export function pricesContract(openEngine: () => DbEngine): void {
  const harness = (settings?: Parameters<typeof catalogHarness>[1]) => catalogHarness(openEngine(), settings);

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
      expect(await countRows(db, 'pricelist_items')).toBe(0);
      expect(await countRows(db, 'pricelists')).toBe(0);
    });
  });
}
