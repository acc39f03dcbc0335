import { formatMoney, type CurrencyFormat } from '@commerce/shared-config';
import type { SelectionDto } from '@commerce/cart-contracts';
import type { CheckoutSession } from './session';
import type { CurrencyFormatAnswer, StoreView, VoucherConfig } from './envelope';

/**
 * The selection's prices, discounts, shipping, handling and tax (decision 25 in docs/decisions.md). Every amount is an
 * integer in the currency's minor units while computed; major units and formatted strings only at the end.
 */

const toMinor = (major: number, digits: number) => Math.round(major * 10 ** digits);
/** The tax included in a gross amount at a rate: gross − gross·100/(100+rate), rounded to the minor unit. */
const includedTax = (gross: number, percent: number) => (percent > 0 ? gross - Math.round((gross * 100) / (100 + percent)) : 0);

/** Whether a voucher can be used now in the selection's market for its items total; null when it can, else why not. */
export function voucherProblem(
  view: StoreView,
  voucher: VoucherConfig,
  session: CheckoutSession,
  selection: SelectionDto,
  now: Date,
): string | null {
  const market = view.priceContext(session).market ?? '';
  const format = view.currencyFormat(selection.currency);
  const dayEnd = (d: string) => (d.length === 10 ? Date.parse(`${d}T23:59:59.999Z`) : Date.parse(d));
  if (
    voucher.validFrom &&
    now.getTime() < Date.parse(voucher.validFrom.length === 10 ? `${voucher.validFrom}T00:00:00Z` : voucher.validFrom)
  )
    return 'not valid yet';
  if (voucher.validTo && now.getTime() > dayEnd(voucher.validTo)) return 'expired';
  if (voucher.markets.length > 0 && !voucher.markets.includes(market)) return 'not valid in this country';
  if (voucher.type === 'amount' && voucher.amounts[selection.currency] === undefined) return 'not valid in this currency';
  const minimum = voucher.minimumOrder[selection.currency];
  if (minimum !== undefined) {
    const itemsTotal = selection.items.reduce((n, i) => n + toMinor(i.priceEachAsNumber, format.decimalDigits) * i.quantity, 0);
    if (itemsTotal < toMinor(minimum, format.decimalDigits)) return `needs an order of at least ${formatMoney(minimum, format)}`;
  }
  return null;
}

interface Money {
  minor: number;
}

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

export interface PricedSelection {
  selection: ReturnType<typeof shape>;
  shippingMethods: Array<{ shippingMethod: string; name: string; price: string; priceAsNumber: number }>;
}

function shape(
  selection: SelectionDto,
  format: CurrencyFormat,
  answerFormat: CurrencyFormatAnswer,
  parts: ReturnType<typeof computeParts>,
) {
  const digits = format.decimalDigits;
  const major = (m: Money | number) => (typeof m === 'number' ? m : m.minor) / 10 ** digits;
  const str = (m: number) => formatMoney(m / 10 ** digits, format);
  // The spec's Totals: string and number forms, `false` where not applicable.
  const text = (minor: number | false): string | false => (minor === false ? false : str(minor));
  const amount = (minor: number | false): number | false => (minor === false ? false : major(minor));
  const nonZero = (m: number) => (m === 0 ? false : m);
  const { id: _id, vouchers: _v, paymentFields: _p, totals: _t, ...kept } = selection;
  const discount = nonZero(parts.discount);
  const handling = nonZero(parts.handling);
  const taxDeducted = nonZero(parts.taxDeducted);
  const taxAdded = nonZero(parts.taxAdded);
  const grandTotalTax = nonZero(parts.grandTotalTax);
  // The spec's Totals written out rather than spread from pairs: one object a selection, not nine (decision 93).
  const totals: SelectionTotals = {
    itemsTotalPrice: text(parts.itemsTotal),
    itemsTotalPriceAsNumber: amount(parts.itemsTotal),
    totalDiscountPrice: text(discount),
    totalDiscountPriceAsNumber: amount(discount),
    shippingPrice: text(parts.shipping),
    shippingPriceAsNumber: amount(parts.shipping),
    handlingCostPrice: text(handling),
    handlingCostPriceAsNumber: amount(handling),
    taxDeducted: text(taxDeducted),
    taxDeductedAsNumber: amount(taxDeducted),
    taxAdded: text(taxAdded),
    taxAddedAsNumber: amount(taxAdded),
    grandTotalPrice: text(parts.grandTotal),
    grandTotalPriceAsNumber: amount(parts.grandTotal),
    grandTotalPriceTax: text(grandTotalTax),
    grandTotalPriceTaxAsNumber: amount(grandTotalTax),
    totalQuantity: selection.items.reduce((n, i) => n + i.quantity, 0),
    taxPercent: parts.taxPercent,
  };
  return {
    ...kept,
    paymentMethod: parts.paymentMethod,
    shippingMethod: parts.shippingMethod,
    items: selection.items.map((item) => {
      const unit = toMinor(item.priceEachAsNumber, digits);
      const withoutTax = unit - includedTax(unit, parts.includedPercent);
      return {
        ...item,
        priceEachWithoutTax: str(withoutTax),
        priceEachWithoutTaxAsNumber: major(withoutTax),
        taxPercent: parts.taxPercent,
        // The order item's field; single items are never picked up in a store here.
        storePickup: false,
      };
    }),
    discounts: {
      anyDiscount: parts.discount > 0,
      discount: str(parts.discount),
      discountAsNumber: major(parts.discount),
      automaticDiscounts: [] as unknown[],
      vouchers: parts.vouchers.map((v) => ({
        voucher: v.voucher,
        name: v.name,
        type: v.type,
        discount: str(v.minor),
        discountAsNumber: major(v.minor),
      })),
    },
    totals,
    vatExempt: parts.vatExempt,
    currencyFormat: answerFormat,
  };
}

function computeParts(view: StoreView, session: CheckoutSession, selection: SelectionDto, now: Date) {
  const format = view.currencyFormat(selection.currency);
  const digits = format.decimalDigits;
  const minor = (major: number) => toMinor(major, digits);
  const itemsTotal = selection.items.reduce((n, i) => n + minor(i.priceEachAsNumber) * i.quantity, 0);

  // Vouchers that apply now, percent before amount (an amount is capped at what is left).
  // One voucher of each type: the first entered (two requests racing past the check cannot stack two).
  const applicable = selection.vouchers
    .map((code) => view.voucher(code))
    .filter((v): v is VoucherConfig => v !== undefined && voucherProblem(view, v, session, selection, now) === null)
    .filter((v, i, all) => all.findIndex((w) => w.type === v.type) === i);
  const order = { percent: 0, amount: 1, freeShipping: 2 } as const;
  applicable.sort((a, b) => order[a.type] - order[b.type]);
  const vouchers: Array<VoucherConfig & { minor: number }> = [];
  let itemDiscount = 0;
  for (const v of applicable) {
    if (v.type === 'percent') {
      const off = Math.round(((itemsTotal - itemDiscount) * (v.percent ?? 0)) / 100);
      itemDiscount += off;
      vouchers.push({ ...v, minor: off });
    } else if (v.type === 'amount') {
      const off = Math.min(minor(v.amounts[selection.currency] ?? 0), itemsTotal - itemDiscount);
      itemDiscount += off;
      vouchers.push({ ...v, minor: off });
    }
  }

  // Shipping: the chosen method when offered here, else the first one offered; free from its threshold.
  const methods = view.availableShippingMethods(session.country, selection.currency);
  const method = methods.find((m) => m.shippingMethod === selection.shippingMethod) ?? methods[0];
  const shippingOf = (m: (typeof methods)[number]) => {
    const price = m.prices[selection.currency]!;
    return price.freeFrom !== undefined && itemsTotal - itemDiscount >= minor(price.freeFrom) ? 0 : minor(price.price);
  };
  const shipping: number | false = method ? shippingOf(method) : false;
  let shippingDiscount = 0;
  for (const v of applicable.filter((a) => a.type === 'freeShipping')) {
    shippingDiscount = shipping === false ? 0 : shipping;
    vouchers.push({ ...v, minor: shippingDiscount });
  }

  const payment = view.availablePaymentMethods(session.country).find((m) => m.paymentMethod === selection.paymentMethod);
  const handling = payment ? minor(payment.handlingCost) : 0;
  const discount = itemDiscount + shippingDiscount;
  const gross = itemsTotal - discount + (shipping === false ? 0 : shipping) + handling;

  // Tax: EU prices include the destination's VAT; outside the EU the market's VAT is deducted and the
  // destination's tax (a state's, else the country's) is added to the net.
  const country = view.country(session.country);
  let taxDeducted = 0;
  let taxAdded = 0;
  let grandTotalTax = 0;
  let taxPercent = 0;
  let includedPercent = 0;
  let vatExempt = false;
  if (country?.eu) {
    taxPercent = includedPercent = country.taxPercent;
    grandTotalTax = includedTax(gross, taxPercent);
  } else if (country) {
    vatExempt = true;
    includedPercent = view.marketOf(country.country).vatPercent ?? 0;
    taxDeducted = includedTax(gross, includedPercent);
    const state = country.states.find((s) => s.state === session.state);
    taxPercent = state?.taxPercent ?? country.taxPercent;
    taxAdded = Math.round(((gross - taxDeducted) * taxPercent) / 100);
    grandTotalTax = taxAdded;
  }
  return {
    itemsTotal,
    discount,
    vouchers,
    shipping,
    shippingMethod: method?.shippingMethod ?? '',
    shippingMethods: methods.map((m) => ({ shippingMethod: m.shippingMethod, name: m.name, price: shippingOf(m) })),
    handling,
    paymentMethod: payment?.paymentMethod ?? '',
    taxDeducted,
    taxAdded,
    grandTotal: gross - taxDeducted + taxAdded,
    grandTotalTax,
    taxPercent,
    includedPercent,
    vatExempt,
  };
}

export function priceSelection(view: StoreView, session: CheckoutSession, selection: SelectionDto, now: Date): PricedSelection {
  const format = view.currencyFormat(selection.currency);
  const parts = computeParts(view, session, selection, now);
  return {
    selection: shape(selection, format, view.answerCurrencyFormat(selection.currency), parts),
    shippingMethods: parts.shippingMethods.map((m) => ({
      shippingMethod: m.shippingMethod,
      name: m.name,
      price: formatMoney(m.price / 10 ** format.decimalDigits, format),
      priceAsNumber: m.price / 10 ** format.decimalDigits,
    })),
  };
}
