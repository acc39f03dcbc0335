import {
  SoapDeliveryWindowSchema,
  SoapMarketSchema,
  SoapPricelistSchema,
  SoapProductSchema,
  SoapSizeSchema,
  SoapWarehouseSchema,
  type SoapDeliveryWindow,
  type SoapMarket,
  type SoapPricelist,
  type SoapProduct,
  type SoapSize,
  type SoapWarehouse,
} from '@commerce/erp-contracts';
import { z } from 'zod';

/** A demo catalog as the ERP would send it through the SOAP API, one list per entity. */
export interface DemoCatalog {
  markets: SoapMarket[];
  warehouses: SoapWarehouse[];
  sizes: SoapSize[];
  pricelists: SoapPricelist[];
  deliverywindows: SoapDeliveryWindow[];
  products: SoapProduct[];
}

const DemoCatalogSchema = z.object({
  markets: z.array(SoapMarketSchema).default([]),
  warehouses: z.array(SoapWarehouseSchema).default([]),
  sizes: z.array(SoapSizeSchema).default([]),
  pricelists: z.array(SoapPricelistSchema).default([]),
  deliverywindows: z.array(SoapDeliveryWindowSchema).default([]),
  products: z.array(SoapProductSchema).default([]),
});

export const emptyDemoCatalog = (): DemoCatalog => ({
  markets: [],
  warehouses: [],
  sizes: [],
  pricelists: [],
  deliverywindows: [],
  products: [],
});

/**
 * The demo catalog file (`DEMO_CATALOG`): either a plain array of SOAP products, or an object
 * `{markets, warehouses, sizes, pricelists, deliverywindows, products}` (every list optional; other keys,
 * such as a generator's category tree, ignored). Validated with the SOAP entities' own schemas.
 */
export function parseDemoCatalog(raw: unknown): DemoCatalog {
  if (Array.isArray(raw)) return { ...emptyDemoCatalog(), products: SoapProductSchema.array().parse(raw) };
  return DemoCatalogSchema.parse(raw);
}
