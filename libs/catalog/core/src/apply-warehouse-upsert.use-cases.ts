import type { SoapWarehouse } from '@commerce/erp-contracts';
import type { CatalogRepository } from './catalog.repository';
import type { Warehouse } from './product';
import { deepEqual, pick, type ApplyEntityResult } from './upsert.helpers';

/**
 * `warehouses_Update`: names a warehouse. Stock per warehouse arrives with the products' sizes
 * (`warehouseitems`) and an item's stock is the sum over all of them, so a warehouse's name changes no
 * product's projection: nothing is re-published.
 */
export async function applyWarehouseUpsert(deps: { catalog: CatalogRepository }, soap: SoapWarehouse): Promise<ApplyEntityResult> {
  return deps.catalog.transaction(async (uow) => {
    const before = await uow.marketsAndWarehouses.findWarehouse(soap.id.trim());
    const warehouse: Warehouse = { externalId: soap.id.trim(), description: pick(soap.description, before?.description, '') };
    if (before && deepEqual(before, warehouse)) return { changed: false, affectedProducts: 0 };
    await uow.marketsAndWarehouses.saveWarehouse(warehouse);
    return { changed: true, affectedProducts: 0 };
  });
}
