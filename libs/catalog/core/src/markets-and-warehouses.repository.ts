import type { Market, Warehouse } from './product';

/** The markets and warehouses the ERP has sent (tables `markets`, `warehouses`). */
export interface MarketsAndWarehousesRepository {
  findMarket(externalId: string): Promise<Market | null>;
  /** External ids of every market the ERP has sent. */
  listMarketIds(): Promise<string[]>;
  saveMarket(market: Market): Promise<void>;
  findWarehouse(externalId: string): Promise<Warehouse | null>;
  saveWarehouse(warehouse: Warehouse): Promise<void>;
}
