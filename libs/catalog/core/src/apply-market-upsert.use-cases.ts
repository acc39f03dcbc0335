import type { SoapMarket } from '@commerce/erp-contracts';
import type { CatalogRepository } from './catalog.repository';
import type { Market } from './product';
import { deepEqual, pick, type ApplyEntityResult } from './upsert.helpers';

/**
 * `markets_Update`: names a market. Which markets a variant is displayed in is the variant's own list
 * (its displays), and a country's market is store configuration, so a market's own fields change no
 * product's projection: nothing is re-published.
 */
export async function applyMarketUpsert(deps: { catalog: CatalogRepository }, soap: SoapMarket): Promise<ApplyEntityResult> {
  return deps.catalog.transaction(async (uow) => {
    const before = await uow.marketsAndWarehouses.findMarket(soap.id.trim());
    const market: Market = {
      externalId: soap.id.trim(),
      store: pick(soap.store, before?.store, ''),
      type: pick(soap.type, before?.type, ''),
      description: pick(soap.description, before?.description, ''),
    };
    if (before && deepEqual(before, market)) return { changed: false, affectedProducts: 0 };
    await uow.marketsAndWarehouses.saveMarket(market);
    return { changed: true, affectedProducts: 0 };
  });
}
