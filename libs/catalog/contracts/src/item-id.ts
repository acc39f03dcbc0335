/**
 * An item is one size of a product: its id is `<product_id>-<size_id>` (the spec's form, e.g. `1-1`), both
 * decimal ids of up to 15 digits. The catalog mints them; every service that reads one splits it here.
 */
export const ITEM_ID_PATTERN = /^(\d{1,15})-(\d{1,15})$/;

export interface ItemIdParts {
  product: string;
  size: string;
}

/** Whether `id` is of the item id's form (it may still name no item). */
export const isItemId = (id: string): boolean => ITEM_ID_PATTERN.test(id);

/**
 * The product and size of an item id: what comes before the first `-` and what follows it (an id without
 * one is all product, no size). Check the form with `isItemId` where the id comes from outside.
 */
export function itemIdParts(itemId: string): ItemIdParts {
  const dash = itemId.indexOf('-');
  return dash < 0 ? { product: itemId, size: '' } : { product: itemId.slice(0, dash), size: itemId.slice(dash + 1) };
}

export const itemIdOf = (product: number | string, size: number | string): string => `${product}-${size}`;
