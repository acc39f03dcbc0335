import type { DbEngine } from '@commerce/shared-db';
import { catalogHarness } from './testing/catalog-harness';
import { soapProduct } from './testing/soap-product.fixture';

/**
 * The catalog's markets and warehouses (markets-and-warehouses.knex-repository.ts), through the use cases that write them: a slice of the catalog store's contract
 * (`catalog-entities.contract.ts`), run on PGlite and on Postgres.
 */
export function marketsAndWarehousesContract(openEngine: () => DbEngine): void {
  const harness = (settings?: Parameters<typeof catalogHarness>[1]) => catalogHarness(openEngine(), settings);

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
}
