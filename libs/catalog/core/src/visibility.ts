import type { PriceContext } from '@commerce/catalog-contracts';
import { priceOf } from './pricing';
import { isShown, isVisibleStatus, type DeliveryWindowSpan, type Item, type ProductView, type Variant } from './product';

/** In `SearchDoc.markets`: displayed in every market (its displays never named one). */
export const EVERY_MARKET = '*';

/** The markets a variant is displayed in, `['*']` for every market. */
export const marketsOf = (variant: Variant): string[] => variant.markets ?? [EVERY_MARKET];

/** Displayed in the market: its displays name it, or never named any market. No market in the context: no restriction. */
export function displayedIn(variant: Variant, market: string | undefined): boolean {
  if (market === undefined || variant.markets === null) return true;
  return variant.markets.includes(market);
}

/**
 * Whether a visitor in the context sees the variant: it and its product are shown (status), it is
 * displayed in the context's market, and the context's pricelist prices it. A context without a
 * pricelist (internal callers, tools) does not require a price; the edge always passes one.
 */
export function visibleIn(view: ProductView, variant: Variant, context: PriceContext): boolean {
  if (!isShown(view.product, variant) || !displayedIn(variant, context.market)) return false;
  return context.pricelist === undefined || priceOf(view, variant, context.pricelist) !== null;
}

/** A delivery window is active while its status is active (or empty) and now is between its start and stop (open ends allowed). */
export function isWindowActive(window: Pick<DeliveryWindowSpan, 'status' | 'startsAt' | 'stopsAt'>, now: Date): boolean {
  if (!isVisibleStatus(window.status)) return false;
  const t = now.getTime();
  if (window.startsAt !== null && Date.parse(window.startsAt) > t) return false;
  return window.stopsAt === null || Date.parse(window.stopsAt) >= t;
}

/** The variant is in a delivery window active now: its items can be preordered. */
export const inActiveDeliveryWindow = (view: ProductView, variant: Variant, now: Date): boolean =>
  view.deliveryWindows.some((w) => w.variationExternalId === variant.externalId && isWindowActive(w, now));

/**
 * How many of the ERP's stock units one item takes (decision 22): the `stockdivisor` of the variation's
 * size table, else of the item's size's table (the first of them the ERP has sent), else 1.
 */
export function stockDivisorOf(view: Pick<ProductView, 'sizeTables'>, variant: Variant, item: Item): number {
  for (const id of [variant.sizeTableExternalId, item.sizeTableExternalId]) {
    const table = id === null ? undefined : view.sizeTables.get(id);
    if (table) return Math.max(1, table.stockDivisor);
  }
  return 1;
}

/** The items that can be sold from the stock: whole multiples of the divisor (7 units at 3 a piece: 2). */
export const sellableStock = (view: Pick<ProductView, 'sizeTables'>, variant: Variant, item: Item): number =>
  Math.floor(Math.max(0, item.stock) / stockDivisorOf(view, variant, item));

const inStockOrPreorder = (view: ProductView, variant: Variant, item: Item): boolean =>
  item.preorder || sellableStock(view, variant, item) > 0;

/** An item can be bought: stock for at least one, the ERP's preorder flag, or its variant in an active delivery window. */
export const itemAvailable = (view: ProductView, variant: Variant, item: Item, now: Date): boolean =>
  inStockOrPreorder(view, variant, item) || inActiveDeliveryWindow(view, variant, now);

/** A variant is in stock when any item can be bought (in stock or preorder). */
export const variantAvailable = (view: ProductView, variant: Variant, now: Date): boolean =>
  variant.items.length > 0 &&
  (inActiveDeliveryWindow(view, variant, now) || variant.items.some((i) => inStockOrPreorder(view, variant, i)));
