import { formatMoney } from '@commerce/shared-config';
import type { SelectionDto, SelectionItemDto } from '@commerce/cart-contracts';
import type { CheckoutSession } from './session';
import type { StoreView, VoucherConfig } from './store-view';

/**
 * The pricing of a selection: the one place where a selection's money is computed (docs/pricing.md).
 *
 * Money is an integer number of minor units (öre, cents) of the selection's currency from the catalog to the
 * answer: the catalog keeps its prices so, the cart keeps each line's unit prices so, this module adds them up, and
 * only the edge's rendering (`selection-answer.ts`, the order's `placeOrderCommandOf` keeps minor units) turns them
 * into the spec's decimal numbers and formatted strings. Totals are computed here once, for the envelope and for
 * the order placed from it alike.
 *
 * The pipeline, in the order `priceSelection` runs it:
 *   1. items     each line's unit price × quantity; the items total
 *   2. vouchers  the vouchers that apply now: percent off the items, then an amount off what is left (capped)
 *   3. shipping  the chosen (else the first offered) method's price, free from its threshold; a free-shipping
 *                voucher takes it off
 *   4. handling  the payment method's handling cost
 *   5. taxes     EU: the destination's VAT is included; elsewhere the market's VAT is deducted and the
 *                destination's (a state's, else the country's) tax added to the net
 *
 * When a selection's prices follow a price change (a SOAP `pricelists_Update`, a sale starting or ending): a line
 * keeps the unit price of its last add; the catalog's price alone changes no line. The catalog's price of the moment
 * (as the edge reads it: a product read in the last two seconds is reused, decision 31) is taken
 *   - onto a line when its item is added again (`POST items/{item}`, `PUT items` with `items`; the line's quantity
 *     rules are refreshed with it);
 *   - onto every line when the session's market or pricelist changes (`selection.use-cases.ts`, `repriced`):
 *     `PUT countries/…` into another market, `POST payment` with an address in another market, a login as a buyer
 *     with its own market or pricelist, a login whose saved selection was made in another market;
 *   - at a login, an item in both the anonymous and the saved selection takes the anonymous line's (the later add).
 * A line's quantity (`lines/{line}/…`), the language, the payment or shipping method and vouchers change no line's
 * price. Vouchers, shipping, handling and taxes are read from the store configuration at every pricing. A selection
 * is paid at the prices it shows: `POST payment` places the order from this pricing.
 */

/** A major-unit amount (`199.9`) in minor units of a currency with `digits` decimals. */
export const minorOf = (major: number, digits: number): number => Math.round(major * 10 ** digits);
/** Minor units as a number in major units, for the spec's `…AsNumber` fields. */
export const majorOf = (minor: number, digits: number): number => minor / 10 ** digits;

/** The tax included in a gross amount at a rate: gross − gross·100/(100+rate), rounded to the minor unit. */
const includedTax = (gross: number, percent: number) => (percent > 0 ? gross - Math.round((gross * 100) / (100 + percent)) : 0);

/** A line priced: the cart's line and its amounts in minor units. */
export interface PricedLine {
  line: SelectionItemDto;
  priceEach: number;
  /** The price before a sale; never below `priceEach`. */
  priceEachBeforeDiscount: number;
  totalPrice: number;
  priceEachWithoutTax: number;
  taxPercent: number;
}

export interface PricedVoucher {
  voucher: string;
  name: string;
  type: VoucherConfig['type'];
  discount: number;
}

/** A selection's money: every amount in integer minor units of `currency`. */
export interface SelectionPrice {
  currency: string;
  lines: PricedLine[];
  totalQuantity: number;
  itemsTotal: number;
  /** The vouchers that apply, percent, amount, then free shipping, each with what it takes off. */
  vouchers: PricedVoucher[];
  /** What the vouchers take off the items and the shipping together. */
  discount: number;
  /** The shipping methods offered to the country in the currency, each at its price for this selection. */
  shippingMethods: Array<{ shippingMethod: string; name: string; price: number }>;
  /** The method charged: the chosen one when offered, else the first offered; '' when none is. */
  shippingMethod: string;
  /** false when no method is offered (no country, or one not shipped to). */
  shipping: number | false;
  /** The payment method charged ('' when the chosen one is not offered in the country). */
  paymentMethod: string;
  handlingCost: number;
  taxPercent: number;
  /** The rate of the tax included in the prices (the country's VAT in the EU, the market's elsewhere). */
  includedTaxPercent: number;
  vatExempt: boolean;
  taxDeducted: number;
  taxAdded: number;
  grandTotal: number;
  grandTotalTax: number;
}

interface PricingInput {
  view: StoreView;
  session: CheckoutSession;
  selection: SelectionDto;
  now: Date;
  /** The minor digits of the selection's currency. */
  digits: number;
}

/** The selection's money, step by step (the steps are below, in this order). */
export function priceSelection(view: StoreView, session: CheckoutSession, selection: SelectionDto, now: Date): SelectionPrice {
  const input: PricingInput = { view, session, selection, now, digits: view.currencyFormat(selection.currency).decimalDigits };
  const items = itemsStep(input);
  const vouchers = vouchersStep(input, items.itemsTotal);
  const shipping = shippingStep(input, items.itemsTotal - vouchers.itemDiscount, vouchers.freeShipping);
  const handling = handlingStep(input);
  const discount = vouchers.itemDiscount + shipping.shippingDiscount;
  const gross = items.itemsTotal - discount + (shipping.shipping === false ? 0 : shipping.shipping) + handling.handlingCost;
  const taxes = taxesStep(input, gross);
  return {
    currency: selection.currency,
    lines: items.lines.map((l) => ({
      ...l,
      priceEachWithoutTax: l.priceEach - includedTax(l.priceEach, taxes.includedTaxPercent),
      taxPercent: taxes.taxPercent,
    })),
    totalQuantity: items.totalQuantity,
    itemsTotal: items.itemsTotal,
    vouchers: [...vouchers.applied, ...shipping.applied],
    discount,
    shippingMethods: shipping.shippingMethods,
    shippingMethod: shipping.shippingMethod,
    shipping: shipping.shipping,
    paymentMethod: handling.paymentMethod,
    handlingCost: handling.handlingCost,
    ...taxes,
    grandTotal: gross - taxes.taxDeducted + taxes.taxAdded,
  };
}

/** 1. Items: each line's unit price (as of its last add) × its quantity. */
function itemsStep({ selection }: PricingInput) {
  const lines = selection.items.map((line) => ({
    line,
    priceEach: line.priceEachMinor,
    priceEachBeforeDiscount: Math.max(line.priceEachBeforeDiscountMinor, line.priceEachMinor),
    totalPrice: line.priceEachMinor * line.quantity,
  }));
  return {
    lines,
    itemsTotal: lines.reduce((n, l) => n + l.totalPrice, 0),
    totalQuantity: selection.items.reduce((n, l) => n + l.quantity, 0),
  };
}

/**
 * 2. Vouchers that apply now, percent before amount (an amount is capped at what is left); free shipping is taken
 * off in the shipping step. One voucher of each type: the first entered (two requests racing past the check
 * cannot stack two).
 */
function vouchersStep(input: PricingInput, itemsTotal: number) {
  const { view, session, selection, now, digits } = input;
  const order = { percent: 0, amount: 1, freeShipping: 2 } as const;
  const applicable = selection.vouchers
    .map((code) => view.voucher(code))
    .filter((v): v is VoucherConfig => v !== undefined && voucherProblem(view, v, session, selection, now) === null)
    .filter((v, i, all) => all.findIndex((w) => w.type === v.type) === i)
    .sort((a, b) => order[a.type] - order[b.type]);
  const applied: PricedVoucher[] = [];
  let itemDiscount = 0;
  for (const v of applicable) {
    let off: number;
    if (v.type === 'percent') off = Math.round(((itemsTotal - itemDiscount) * (v.percent ?? 0)) / 100);
    else if (v.type === 'amount') off = Math.min(minorOf(v.amounts[selection.currency] ?? 0, digits), itemsTotal - itemDiscount);
    else continue;
    itemDiscount += off;
    applied.push({ voucher: v.voucher, name: v.name, type: v.type, discount: off });
  }
  return { applied, itemDiscount, freeShipping: applicable.filter((v) => v.type === 'freeShipping') };
}

/** 3. Shipping: the chosen method when offered here, else the first one offered; free from its threshold (after discounts). */
function shippingStep({ view, session, selection, digits }: PricingInput, discountedItems: number, freeShipping: VoucherConfig[]) {
  const methods = view.availableShippingMethods(session.country, selection.currency);
  const priceOf = (m: (typeof methods)[number]) => {
    const price = m.prices[selection.currency]!;
    return price.freeFrom !== undefined && discountedItems >= minorOf(price.freeFrom, digits) ? 0 : minorOf(price.price, digits);
  };
  const method = methods.find((m) => m.shippingMethod === selection.shippingMethod) ?? methods[0];
  const shipping: number | false = method ? priceOf(method) : false;
  let shippingDiscount = 0;
  const applied: PricedVoucher[] = [];
  for (const v of freeShipping) {
    shippingDiscount = shipping === false ? 0 : shipping;
    applied.push({ voucher: v.voucher, name: v.name, type: v.type, discount: shippingDiscount });
  }
  return {
    shippingMethods: methods.map((m) => ({ shippingMethod: m.shippingMethod, name: m.name, price: priceOf(m) })),
    shippingMethod: method?.shippingMethod ?? '',
    shipping,
    shippingDiscount,
    applied,
  };
}

/** 4. Handling: the cost of the chosen payment method when it is offered in the country. */
function handlingStep({ view, session, selection, digits }: PricingInput) {
  const payment = view.availablePaymentMethods(session.country).find((m) => m.paymentMethod === selection.paymentMethod);
  return { paymentMethod: payment?.paymentMethod ?? '', handlingCost: payment ? minorOf(payment.handlingCost, digits) : 0 };
}

/**
 * 5. Taxes: EU prices include the destination's VAT; outside the EU the market's VAT is deducted and the
 * destination's tax (a state's, else the country's) is added to the net.
 */
function taxesStep({ view, session }: PricingInput, gross: number) {
  const taxes = { taxPercent: 0, includedTaxPercent: 0, vatExempt: false, taxDeducted: 0, taxAdded: 0, grandTotalTax: 0 };
  const country = view.country(session.country);
  if (country?.eu) {
    taxes.taxPercent = taxes.includedTaxPercent = country.taxPercent;
    taxes.grandTotalTax = includedTax(gross, taxes.taxPercent);
  } else if (country) {
    taxes.vatExempt = true;
    taxes.includedTaxPercent = view.marketOf(country.country).vatPercent ?? 0;
    taxes.taxDeducted = includedTax(gross, taxes.includedTaxPercent);
    const state = country.states.find((s) => s.state === session.state);
    taxes.taxPercent = state?.taxPercent ?? country.taxPercent;
    taxes.taxAdded = Math.round(((gross - taxes.taxDeducted) * taxes.taxPercent) / 100);
    taxes.grandTotalTax = taxes.taxAdded;
  }
  return taxes;
}

/** Whether a voucher can be used now in the selection's market for its items total; null when it can, else why not. */
export function voucherProblem(
  view: StoreView,
  voucher: VoucherConfig,
  session: CheckoutSession,
  selection: SelectionDto,
  now: Date,
): string | null {
  const market = view.priceContext(session).market ?? '';
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
    const format = view.currencyFormat(selection.currency);
    const itemsTotal = selection.items.reduce((n, i) => n + i.priceEachMinor * i.quantity, 0);
    if (itemsTotal < minorOf(minimum, format.decimalDigits)) return `needs an order of at least ${formatMoney(minimum, format)}`;
  }
  return null;
}
