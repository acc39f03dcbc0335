import { formatMoney } from '@commerce/shared-config';
import type { SelectionDto } from '@commerce/cart-contracts';
import type { CatalogClient, ItemExternalIds } from '@commerce/catalog-contracts';
import type { OrderAddress, OrderDto, PlaceOrderCommand } from '@commerce/order-contracts';
import { currencyFormatAnswer, type StoreView } from './store-view';
import type { CheckoutSession } from './session';
import { majorOf, priceSelection } from './pricing';

/*
 * An order as the checkout API shows it: the spec's Order (order history entry), Order item and Totals.
 * `POST orders` lists these; `POST payment-result`, the `success` action and `GET receipt` answer
 * `{token, ...orderToHistoryEntry(order)}` (DESIGN §6: "the other fields of an order-history entry").
 */

type Format = OrderDto['currencyFormat'];

const major = (minor: number, format: Format) => majorOf(minor, format.decimalDigits);
/** prefix + number + suffix, from minor units. */
export const formatMinor = (minor: number, format: Format): string => formatMoney(major(minor, format), format);

/** `name` and `nameAsNumber`; both `false` when the amount does not apply. */
function money<K extends string>(name: K, minor: number | null, format: Format) {
  return {
    [name]: minor === null ? false : formatMinor(minor, format),
    [`${name}AsNumber`]: minor === null ? false : major(minor, format),
  } as Record<K | `${K}AsNumber`, string | number | false>;
}

/** `YYYY-MM-DD HH:MM:SS` in UTC (decision 40). */
export const orderDate = (iso: string): string =>
  new Date(iso)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, '');

const address = (a: OrderAddress) => ({
  email: a.email,
  firstName: a.firstName,
  lastName: a.lastName,
  company: a.company,
  address1: a.address1,
  address2: a.address2,
  city: a.city,
  state: a.state,
  zipCode: a.zipCode,
  country: a.country,
  countryName: a.countryName,
  phoneNumber: a.phoneNumber,
});

export function orderToHistoryEntry(order: OrderDto) {
  const format = order.currencyFormat;
  const t = order.totals;
  return {
    order: order.order,
    status: order.status,
    statusDescription: order.statusDescription,
    message: order.message,
    paymentMethod: order.paymentMethod.id,
    paymentMethodName: order.paymentMethod.name,
    shippingMethod: order.shippingMethod.id,
    shippingMethodName: order.shippingMethod.name,
    currency: order.currency,
    date: orderDate(order.placedAt),
    items: order.lines.map((line) => ({
      item: line.item,
      product: line.product,
      brandName: line.brandName,
      productName: line.productName,
      size: line.size,
      sku: line.sku,
      ean: line.ean,
      quantity: line.quantity,
      storePickup: line.storePickup,
      line: line.line,
      ...money('priceEach', line.priceEach, format),
      ...money('totalPrice', line.totalPrice, format),
      ...money('priceEachBeforeDiscount', line.priceEachBeforeDiscount, format),
      ...money('priceEachWithoutTax', line.priceEachWithoutTax, format),
      anyDiscount: line.priceEachBeforeDiscount > line.priceEach,
      taxPercent: line.taxPercent,
    })),
    discounts: {
      anyDiscount: order.discounts.discount > 0,
      discount: formatMinor(order.discounts.discount, format),
      discountAsNumber: major(order.discounts.discount, format),
      automaticDiscounts: order.discounts.automaticDiscounts.map((d) => ({
        name: d.name,
        discount: formatMinor(d.discount, format),
        discountAsNumber: major(d.discount, format),
      })),
      vouchers: order.discounts.vouchers.map((v) => ({
        voucher: v.voucher,
        name: v.name,
        type: v.type,
        discount: formatMinor(v.discount, format),
        discountAsNumber: major(v.discount, format),
      })),
    },
    totals: {
      ...money('itemsTotalPrice', t.itemsTotal, format),
      ...money('totalDiscountPrice', t.totalDiscount, format),
      ...money('shippingPrice', t.shipping, format),
      ...money('handlingCostPrice', t.handlingCost, format),
      ...money('taxDeducted', t.taxDeducted, format),
      ...money('taxAdded', t.taxAdded, format),
      ...money('grandTotalPrice', t.grandTotal, format),
      ...money('grandTotalPriceTax', t.grandTotalTax, format),
      totalQuantity: t.totalQuantity,
      taxPercent: t.taxPercent,
    },
    vatExempt: order.vatExempt,
    address: address(order.address),
    shippingAddress: address(order.shippingAddress),
    giftMessage: order.giftMessage,
    shipments: order.shipments.map((s) => ({
      shippedDate: s.shippedDate,
      carrier: s.carrier,
      service: s.service,
      trackingId: s.trackingId,
      trackingUrl: s.trackingUrl,
    })),
    currencyFormat: currencyFormatAnswer(format),
  };
}
export type OrderHistoryEntry = ReturnType<typeof orderToHistoryEntry>;

/** What the checkout knows of a placing besides the selection: the attempt, where it goes, the session. */
export interface OrderPlacing {
  paymentAttemptId: string;
  /** The address the visitor gave (or the provider reported); also the shipping address unless one is given. */
  address: Omit<OrderAddress, 'countryName' | 'company'> & { company?: string };
  shippingAddress?: Omit<OrderAddress, 'countryName' | 'company'> & { company?: string };
  /** The checkout session's id (never its token). */
  sessionId?: string | null;
  paymentReference?: string | null;
  store?: string;
  message?: string;
  giftMessage?: string | null;
  /** The ERP's ids of the lines' items (`externalIdsOf`), copied onto the order's lines for the SOAP order events. */
  external?: ReadonlyMap<string, ItemExternalIds>;
}

/**
 * The ERP's ids of a selection's items: those its lines kept from their add, and for a line without them (added
 * before the cart kept them) as the catalog has them now, in one call; an item it no longer has is left out.
 */
export async function externalIdsOf(
  catalog: Pick<CatalogClient, 'getItems'>,
  selection: SelectionDto,
): Promise<Map<string, ItemExternalIds>> {
  const ids = new Map<string, ItemExternalIds>();
  for (const line of selection.items) if (line.external) ids.set(line.item, line.external);
  const missing = [...new Set(selection.items.filter((line) => !ids.has(line.item)).map((line) => line.item))];
  if (missing.length === 0) return ids;
  // No context: the ids of an item, whatever the market (the line was for sale when added and priced).
  for (const info of await catalog.getItems(missing, {})) ids.set(info.item, info.external);
  return ids;
}

/**
 * The `placeOrder` command of a selection: priced exactly as the visitor sees it in the envelope (the same
 * `priceSelection`, its minor units as they are), with the names of the methods and countries.
 */
export function placeOrderCommandOf(
  view: StoreView,
  session: CheckoutSession,
  selection: SelectionDto,
  placing: OrderPlacing,
  now: Date,
): PlaceOrderCommand {
  const price = priceSelection(view, session, selection, now);
  const format = view.currencyFormat(selection.currency);
  const orNull = (minor: number) => (minor === 0 ? null : minor);
  const context = view.priceContext(session);
  const withCountry = (a: OrderPlacing['address']): OrderAddress => ({
    ...a,
    company: a.company ?? '',
    countryName: view.country(a.country)?.name ?? '',
  });
  const payment = view.store.paymentMethods.find((m) => m.paymentMethod === price.paymentMethod);
  const shipping = view.store.shippingMethods.find((m) => m.shippingMethod === price.shippingMethod);
  return {
    paymentAttemptId: placing.paymentAttemptId,
    store: placing.store ?? 'default',
    selectionId: selection.id,
    sessionId: placing.sessionId ?? null,
    customerId: session.customerId ?? null,
    currency: selection.currency,
    currencyFormat: format,
    country: session.country ?? placing.address.country,
    state: session.state,
    language: session.language,
    market: context.market ?? '',
    pricelist: context.pricelist ?? '',
    paymentMethod: { id: price.paymentMethod, name: payment?.name ?? price.paymentMethod },
    paymentReference: placing.paymentReference ?? null,
    shippingMethod: { id: price.shippingMethod, name: shipping?.name ?? price.shippingMethod },
    lines: price.lines.map(({ line: i, ...amounts }) => ({
      line: i.line,
      item: i.item,
      product: i.product,
      size: i.size,
      sku: i.sku,
      ean: i.ean,
      productName: i.productName,
      brandName: i.brandName,
      quantity: i.quantity,
      priceEach: amounts.priceEach,
      priceEachBeforeDiscount: amounts.priceEachBeforeDiscount,
      priceEachWithoutTax: amounts.priceEachWithoutTax,
      totalPrice: amounts.totalPrice,
      taxPercent: amounts.taxPercent,
      storePickup: false,
      ...(placing.external?.has(i.item) ? { external: placing.external.get(i.item)! } : {}),
    })),
    discounts: {
      discount: price.discount,
      automaticDiscounts: [],
      vouchers: price.vouchers.map((v) => ({ voucher: v.voucher, name: v.name, type: v.type, discount: v.discount })),
    },
    totals: {
      itemsTotal: price.itemsTotal,
      totalDiscount: orNull(price.discount),
      shipping: price.shipping === false ? null : price.shipping,
      handlingCost: orNull(price.handlingCost),
      taxDeducted: orNull(price.taxDeducted),
      taxAdded: orNull(price.taxAdded),
      grandTotal: price.grandTotal,
      grandTotalTax: orNull(price.grandTotalTax),
      totalQuantity: price.totalQuantity,
      taxPercent: price.taxPercent,
    },
    vatExempt: price.vatExempt,
    address: withCountry(placing.address),
    shippingAddress: withCountry(placing.shippingAddress ?? placing.address),
    message: placing.message ?? '',
    giftMessage: placing.giftMessage ?? null,
  };
}
