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

/** A product's changed stock: its items by the ERP's ids with their new quantities (`StockChanged`'s payload). */
const ProductStockChange = z.object({
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
});

/**
 * The stock of some of a product's items changed (an ERP upsert): each item's size and variation by the ERP's
 * ids, its `qty` (the sum over its warehouses, what the checkout shows) and its per-warehouse quantities. The SOAP
 * feed shows one `stock` event per item from it. `republished: false` says the product's `ProductUpserted` was not
 * published with this change, as nothing the shop shows of it moved: the feed's product-level `stock` event then
 * comes from this event (an order's commit published it so before `StockCommitted`).
 */
export const StockChanged = defineEvent({
  topic: CatalogTopics.STOCK,
  type: 'StockChanged',
  version: 1,
  schema: ProductStockChange,
});

/**
 * An order's stock commit (issue 28): every product it lowered, each as a `StockChanged` payload would tell it
 * (`republished: false` unless one of its items sold out, decision 149), in one message where there was one a
 * product. Keyed by `STOCK_COMMITS_KEY`, so the commits reach the feed in the order they were made.
 */
export const StockCommitted = defineEvent({
  topic: CatalogTopics.STOCK,
  type: 'StockCommitted',
  version: 1,
  schema: z.object({ products: z.array(ProductStockChange) }),
});

/** The key of every `StockCommitted`: one partition, the commits in their order (two may lower one product). */
export const STOCK_COMMITS_KEY = 'stock-commits';
