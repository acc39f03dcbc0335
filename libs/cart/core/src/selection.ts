import type { LineExternalIds, SelectionDto } from '@commerce/cart-contracts';

export interface SelectionLine {
  line: string;
  item: string;
  product: string;
  size: string;
  sku: string;
  ean: string;
  productName: string;
  brandName: string;
  quantity: number;
  /** Integer minor units of the selection's currency, as priced when the line was last added to. */
  priceEachMinor: number;
  /** The price before a sale; equal to priceEachMinor when the item is not on sale. */
  priceEachBeforeDiscountMinor: number;
  /** The product's itemQuantityMinimum and itemQuantityMultipleOf when the line was last added to. */
  quantityMinimum: number;
  quantityMultipleOf: number;
  /** The ERP's ids of the item as of the line's last add; absent on lines added before the cart kept them. */
  external?: LineExternalIds;
}

export interface Selection {
  id: string;
  status: 'open' | 'closed';
  currency: string;
  country: string | null;
  state: string | null;
  language: string | null;
  paymentMethod: string;
  shippingMethod: string;
  vouchers: string[];
  paymentFields: Record<string, string>;
  lines: SelectionLine[];
}

/** The selection as the cart's client answers it: its lines and unit prices; totals are the checkout's pricing (docs/pricing.md). */
export function toSelectionDto(selection: Selection): SelectionDto {
  return {
    id: selection.id,
    currency: selection.currency,
    paymentMethod: selection.paymentMethod,
    shippingMethod: selection.shippingMethod,
    country: selection.country,
    state: selection.state,
    language: selection.language,
    vouchers: selection.vouchers,
    paymentFields: selection.paymentFields,
    items: selection.lines.map((l) => ({
      line: l.line,
      item: l.item,
      product: l.product,
      size: l.size,
      sku: l.sku,
      ean: l.ean,
      productName: l.productName,
      brandName: l.brandName,
      quantity: l.quantity,
      priceEachMinor: l.priceEachMinor,
      priceEachBeforeDiscountMinor: Math.max(l.priceEachBeforeDiscountMinor, l.priceEachMinor),
      ...(l.external ? { external: l.external } : {}),
    })),
  };
}
