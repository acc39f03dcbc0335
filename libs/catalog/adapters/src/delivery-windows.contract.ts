import type { DbEngine } from '@commerce/shared-db';
import { catalogHarness, variantId } from './testing/catalog-harness';
import { soapProduct } from './testing/soap-product.fixture';

/**
 * The catalog's delivery windows (delivery-windows.knex-repository.ts), through the use cases that write them: a slice of the catalog store's contract
 * (`catalog-entities.contract.ts`), run on PGlite and on Postgres.
 */
export function deliveryWindowsContract(openEngine: () => DbEngine): void {
  const harness = (settings?: Parameters<typeof catalogHarness>[1]) => catalogHarness(openEngine(), settings);

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
}
