import { z } from 'zod';
import { defineEvent } from '@commerce/shared-events';

export const CatalogTopics = {
  PRODUCT: 'catalog.product.v1',
  STOCK: 'catalog.stock.v1',
} as const;

/** A product was inserted or updated in the catalog (from the ERP or the demo seed). */
export const ProductUpserted = defineEvent({
  topic: CatalogTopics.PRODUCT,
  type: 'ProductUpserted',
  version: 1,
  schema: z.object({ productId: z.string(), externalId: z.string() }),
});

/**
 * The stock of some of a product's items changed (an ERP upsert, or an order placed against a hold):
 * each item's size and variation by the ERP's ids, its `qty` (the sum over its warehouses, what the
 * checkout shows) and, when the change came from the ERP, its per-warehouse quantities. The SOAP feed
 * shows one `stock` event per item from it. `republished: false` (an order's commit that sold nothing
 * out) says the product's `ProductUpserted` was not published with this change, as nothing the shop
 * shows of it moved: the feed's product-level `stock` event then comes from this event.
 */
export const StockChanged = defineEvent({
  topic: CatalogTopics.STOCK,
  type: 'StockChanged',
  version: 1,
  schema: z.object({
    productId: z.string(),
    externalId: z.string(),
    items: z.array(
      z.object({
        variation: z.string(),
        size: z.string(),
        sku: z.string(),
        ean: z.string(),
        qty: z.number().int(),
        warehouses: z.array(z.object({ id: z.string(), qty: z.number().int() })).optional(),
      }),
    ),
    republished: z.boolean().optional(),
  }),
});
