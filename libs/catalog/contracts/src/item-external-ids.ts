import type { ItemExternalIds, ProductDto } from './catalog.dto';

/**
 * The ERP's ids of a product's items (decision 113) travel beside the product, never in it: a product is what the
 * checkout API shows, and the ERP's ids are not for the shopper. The catalog's `getProduct` notes them here for the
 * product it answers; the internal HTTP answer carries them as `itemsExternal` (item id → ids), which the HTTP
 * client takes off and notes again. The edge puts them on the cart's line at the add, so the order placed from the
 * line names them without asking the catalog at payment.
 */
const idsOfProducts = new WeakMap<ProductDto, ReadonlyMap<string, ItemExternalIds>>();

/** Notes the ERP's ids of the product's items (item id → ids); the product itself is unchanged. */
export function noteItemExternalIds(product: ProductDto, ids: Iterable<readonly [string, ItemExternalIds]>): ProductDto {
  idsOfProducts.set(product, new Map(ids));
  return product;
}

/** The ERP's ids of one of the product's items, when the catalog's answer carried them. */
export const itemExternalIdsOf = (product: ProductDto, item: string): ItemExternalIds | undefined => idsOfProducts.get(product)?.get(item);

/** A product as the internal product answer carries it: the product and `itemsExternal`. */
export type ProductOnWire = ProductDto & { itemsExternal?: Record<string, ItemExternalIds> };

/** The internal answer of a product: its noted ids as `itemsExternal` (none noted: the product as it is). */
export function productOnWire(product: ProductDto): ProductOnWire {
  const ids = idsOfProducts.get(product);
  return ids ? { ...product, itemsExternal: Object.fromEntries(ids) } : product;
}

/** The product of an internal answer, without `itemsExternal`, its ids noted (an answer without them: none noted). */
export function productOffWire(answer: ProductOnWire): ProductDto {
  const { itemsExternal, ...product } = answer;
  return itemsExternal ? noteItemExternalIds(product, Object.entries(itemsExternal)) : product;
}
