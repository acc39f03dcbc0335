import type { MarketsAndWarehousesRepository } from '@commerce/catalog-core';
import type { Db, Knex } from '@commerce/shared-db';

/** The markets and warehouses of a unit of work (`trx`). */
export function createMarketsAndWarehousesRepository(db: Db, trx: Knex.Transaction): MarketsAndWarehousesRepository {
  const t = (name: string) => db.table(name, trx);
  return {
    async findMarket(externalId) {
      const r = await t('markets').where({ external_id: externalId }).first();
      return r ? { externalId: r.external_id, store: r.store, type: r.type, description: r.description } : null;
    },
    async listMarketIds() {
      return ((await t('markets').orderBy('external_id').select('external_id')) as Array<{ external_id: string }>).map(
        (r) => r.external_id,
      );
    },
    async saveMarket(market) {
      await t('markets')
        .insert({ external_id: market.externalId, store: market.store, type: market.type, description: market.description })
        .onConflict('external_id')
        .merge();
    },
    async findWarehouse(externalId) {
      const r = await t('warehouses').where({ external_id: externalId }).first();
      return r ? { externalId: r.external_id, description: r.description } : null;
    },
    async saveWarehouse(warehouse) {
      await t('warehouses')
        .insert({ external_id: warehouse.externalId, description: warehouse.description })
        .onConflict('external_id')
        .merge();
    },
  };
}
