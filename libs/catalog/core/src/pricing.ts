import { minorDigits } from './money';
import type { Price, ProductView, Variant } from './product';

/**
 * The price of a variant in a pricelist: its variation row, else its product row; null when the
 * pricelist prices neither (the variant is then not for sale, and not shown, where that pricelist applies).
 */
export function priceOf(view: ProductView, variant: Variant, pricelist: string): Price | null {
  const { externalId } = view.product;
  let productRow = null;
  let variantRow = null;
  for (const row of view.prices) {
    if (row.pricelist !== pricelist || row.productExternalId !== externalId) continue;
    if (row.variationExternalId === variant.externalId) variantRow = row;
    else if (row.variationExternalId === '') productRow = row;
  }
  const row = variantRow ?? productRow;
  if (!row) return null;
  const currency = view.pricelists.get(pricelist)?.currency ?? '';
  return {
    pricelist,
    currency,
    digits: minorDigits(currency),
    price: row.price,
    priceBeforeDiscount: Math.max(row.priceBeforeDiscount ?? row.price, row.price),
  };
}

/** Every pricelist that prices the variant, with its price. */
export function pricesOf(view: ProductView, variant: Variant): Map<string, Price> {
  const prices = new Map<string, Price>();
  for (const pricelist of new Set(view.prices.map((r) => r.pricelist))) {
    const price = priceOf(view, variant, pricelist);
    if (price) prices.set(pricelist, price);
  }
  return prices;
}

/** Reduction and whole-number percentage off, computed on minor units. */
export function discountOf(price: Price): { reduction: number; percent: number } {
  const reduction = price.priceBeforeDiscount - price.price;
  return { reduction, percent: price.priceBeforeDiscount > 0 ? Math.round((reduction * 100) / price.priceBeforeDiscount) : 0 };
}
