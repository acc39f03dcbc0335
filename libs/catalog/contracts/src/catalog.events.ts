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
