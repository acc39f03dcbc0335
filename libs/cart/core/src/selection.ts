import { formatMoney, type CurrencyFormat } from '@commerce/shared-config';
import type { SelectionDto, SelectionItemDto } from '@commerce/cart-contracts';

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
  /** Major units, as the catalog prices (a decimal column, never summed as a float: see `sum`). */
  priceEach: number;
  /** The price before a sale; equal to priceEach when the item is not on sale. */
  priceEachBeforeDiscount: number;
  /** The product's itemQuantityMinimum and itemQuantityMultipleOf when the line was last added to. */
  quantityMinimum: number;
  quantityMultipleOf: number;
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

/** Money is kept in minor units while adding up, so 0.1 + 0.2 never shows as 0.30000000000000004. */
const sum = (amounts: number[], digits: number): number => {
  const scale = 10 ** digits;
  return amounts.reduce((total, a) => total + Math.round(a * scale), 0) / scale;
};

export function toSelectionDto(selection: Selection, currencyFormat: (currency: string) => CurrencyFormat): SelectionDto {
  const format = currencyFormat(selection.currency);
  const money = (n: number) => formatMoney(n, format);
  const items: SelectionItemDto[] = selection.lines.map((l) => {
    const scale = 10 ** format.decimalDigits;
    const total = (Math.round(l.priceEach * scale) * l.quantity) / scale;
    const before = Math.max(l.priceEachBeforeDiscount, l.priceEach);
    return {
      line: l.line,
      item: l.item,
      product: l.product,
      size: l.size,
      sku: l.sku,
      ean: l.ean,
      productName: l.productName,
      brandName: l.brandName,
      quantity: l.quantity,
      priceEach: money(l.priceEach),
      priceEachAsNumber: l.priceEach,
      totalPrice: money(total),
      totalPriceAsNumber: total,
      priceEachBeforeDiscount: money(before),
      priceEachBeforeDiscountAsNumber: before,
      anyDiscount: before > l.priceEach,
    };
  });
  const itemsTotal = sum(
    items.map((i) => i.totalPriceAsNumber),
    format.decimalDigits,
  );
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
    items,
    totals: {
      itemsTotalPrice: money(itemsTotal),
      itemsTotalPriceAsNumber: itemsTotal,
      grandTotalPrice: money(itemsTotal),
      grandTotalPriceAsNumber: itemsTotal,
      totalQuantity: selection.lines.reduce((n, l) => n + l.quantity, 0),
    },
  };
}
