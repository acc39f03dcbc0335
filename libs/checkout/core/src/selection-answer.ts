import { formatMoney, type CurrencyFormat } from '@commerce/shared-config';
import type { SelectionDto } from '@commerce/cart-contracts';
import { majorOf, type SelectionPrice } from './pricing';
import type { CurrencyFormatAnswer } from './store-view';

/*
 * The edge's rendering of a priced selection as the spec's JSON: amounts in minor units become the spec's decimal
 * `…AsNumber` numbers and formatted strings here, and nowhere computed again (docs/pricing.md).
 */

type TotalName =
  | 'itemsTotalPrice'
  | 'totalDiscountPrice'
  | 'shippingPrice'
  | 'handlingCostPrice'
  | 'taxDeducted'
  | 'taxAdded'
  | 'grandTotalPrice'
  | 'grandTotalPriceTax';
/** The spec's Totals of a priced selection: each amount as text and as a number, `false` where not applicable. */
export type SelectionTotals = Record<TotalName | `${TotalName}AsNumber`, string | number | false> & {
  totalQuantity: number;
  taxPercent: number;
};

/** Each currency format's texts of the minor amounts it has shown: prices and totals repeat from answer to answer. */
const texts = new WeakMap<CurrencyFormat, Map<number, string>>();
const MAX_TEXTS = 10_000;

/**
 * A minor amount as its currency shows it (`formatMoney` of its major amount), each amount formatted once a format
 * (decision 196): an answer shows ~30 of them, most the catalog's prices seen before.
 */
export function moneyText(minor: number, format: CurrencyFormat): string {
  let known = texts.get(format);
  if (known === undefined) texts.set(format, (known = new Map()));
  let text = known.get(minor);
  if (text === undefined) {
    text = formatMoney(majorOf(minor, format.decimalDigits), format);
    if (known.size >= MAX_TEXTS) known.clear();
    known.set(minor, text);
  }
  return text;
}

/** The envelope's `selection`: the cart's selection with the pricing's amounts, as the spec's Order shows them. */
export function renderSelection(
  price: SelectionPrice,
  selection: SelectionDto,
  format: CurrencyFormat,
  answerFormat: CurrencyFormatAnswer,
) {
  const digits = format.decimalDigits;
  const major = (minor: number) => majorOf(minor, digits);
  const text = (minor: number) => moneyText(minor, format);
  // The spec's Totals: string and number forms, `false` where not applicable.
  const textOr = (minor: number | false): string | false => (minor === false ? false : text(minor));
  const numberOr = (minor: number | false): number | false => (minor === false ? false : major(minor));
  const nonZero = (m: number) => (m === 0 ? false : m);
  const discount = nonZero(price.discount);
  const handling = nonZero(price.handlingCost);
  const taxDeducted = nonZero(price.taxDeducted);
  const taxAdded = nonZero(price.taxAdded);
  const grandTotalTax = nonZero(price.grandTotalTax);
  // The spec's Totals written out rather than spread from pairs: one object a selection, not nine (decision 93).
  const totals: SelectionTotals = {
    itemsTotalPrice: text(price.itemsTotal),
    itemsTotalPriceAsNumber: major(price.itemsTotal),
    totalDiscountPrice: textOr(discount),
    totalDiscountPriceAsNumber: numberOr(discount),
    shippingPrice: textOr(price.shipping),
    shippingPriceAsNumber: numberOr(price.shipping),
    handlingCostPrice: textOr(handling),
    handlingCostPriceAsNumber: numberOr(handling),
    taxDeducted: textOr(taxDeducted),
    taxDeductedAsNumber: numberOr(taxDeducted),
    taxAdded: textOr(taxAdded),
    taxAddedAsNumber: numberOr(taxAdded),
    grandTotalPrice: text(price.grandTotal),
    grandTotalPriceAsNumber: major(price.grandTotal),
    grandTotalPriceTax: textOr(grandTotalTax),
    grandTotalPriceTaxAsNumber: numberOr(grandTotalTax),
    totalQuantity: price.totalQuantity,
    taxPercent: price.taxPercent,
  };
  return {
    currency: selection.currency,
    paymentMethod: price.paymentMethod,
    shippingMethod: price.shippingMethod,
    country: selection.country,
    state: selection.state,
    language: selection.language,
    items: price.lines.map((l) => ({
      line: l.line.line,
      item: l.line.item,
      product: l.line.product,
      size: l.line.size,
      sku: l.line.sku,
      ean: l.line.ean,
      productName: l.line.productName,
      brandName: l.line.brandName,
      quantity: l.line.quantity,
      priceEach: text(l.priceEach),
      priceEachAsNumber: major(l.priceEach),
      totalPrice: text(l.totalPrice),
      totalPriceAsNumber: major(l.totalPrice),
      priceEachBeforeDiscount: text(l.priceEachBeforeDiscount),
      priceEachBeforeDiscountAsNumber: major(l.priceEachBeforeDiscount),
      anyDiscount: l.priceEachBeforeDiscount > l.priceEach,
      priceEachWithoutTax: text(l.priceEachWithoutTax),
      priceEachWithoutTaxAsNumber: major(l.priceEachWithoutTax),
      taxPercent: l.taxPercent,
      // The order item's field; single items are never picked up in a store here.
      storePickup: false,
    })),
    discounts: {
      anyDiscount: price.discount > 0,
      discount: text(price.discount),
      discountAsNumber: major(price.discount),
      automaticDiscounts: [] as unknown[],
      vouchers: price.vouchers.map((v) => ({
        voucher: v.voucher,
        name: v.name,
        type: v.type,
        discount: text(v.discount),
        discountAsNumber: major(v.discount),
      })),
    },
    totals,
    vatExempt: price.vatExempt,
    currencyFormat: answerFormat,
  };
}
export type SelectionAnswer = ReturnType<typeof renderSelection>;

/** The envelope's `shippingMethods`: each offered method at its price for this selection. */
export function renderShippingMethods(price: SelectionPrice, format: CurrencyFormat) {
  return price.shippingMethods.map((m) => ({
    shippingMethod: m.shippingMethod,
    name: m.name,
    price: moneyText(m.price, format),
    priceAsNumber: majorOf(m.price, format.decimalDigits),
  }));
}
