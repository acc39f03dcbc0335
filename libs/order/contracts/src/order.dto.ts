import { z } from 'zod';
import type { PaymentAction, PaymentAddress, StartAttemptCommand } from '@commerce/payment-contracts';
import type { UnavailableEntry } from '@commerce/catalog-contracts';

/*
 * The order service's internal DTOs (DESIGN §2). An order is a snapshot of the priced selection taken
 * when the payment succeeded, plus what happened to it since (status, shipments, cancelled lines,
 * invoices). Every amount is an integer in the currency's minor units (öre, cent); the edge formats
 * them with `currencyFormat` (`orderToHistoryEntry` in checkout-core). `null` amounts are "not
 * applicable" and show as `false` in the spec's Totals.
 */

const minor = z.number().int().min(0).max(1e15);
const text = (max = 512) => z.string().max(max);

/** How the order's currency is shown: the spec's `currencyFormat` (a copy of the store's at placing). */
export const OrderCurrencyFormatSchema = z.object({
  currency: z.string().regex(/^[A-Z]{3}$/),
  name: text(),
  prefix: text(32),
  suffix: text(32),
  decimalPoint: text(4),
  decimalDigits: z.number().int().min(0).max(4),
  uri: text(),
});
export type OrderCurrencyFormat = z.infer<typeof OrderCurrencyFormatSchema>;

/** An order's address: the spec's Address plus `company` and `countryName`. */
export const OrderAddressSchema = z.object({
  email: text(254),
  firstName: text(),
  lastName: text(),
  company: text(),
  address1: text(),
  address2: text(),
  city: text(),
  state: text(64),
  zipCode: text(32),
  country: text(2),
  countryName: text(),
  phoneNumber: text(64),
});
export type OrderAddress = z.infer<typeof OrderAddressSchema>;

/** An order's address from an address as the payment knows it (fields left out are ''). */
export const orderAddressOf = (a: PaymentAddress, countryName: string): OrderAddress => ({
  email: a.email ?? '',
  firstName: a.firstName ?? '',
  lastName: a.lastName ?? '',
  company: a.company ?? '',
  address1: a.address1 ?? '',
  address2: a.address2 ?? '',
  city: a.city ?? '',
  state: a.state ?? '',
  zipCode: a.zipCode ?? '',
  country: a.country,
  countryName,
  phoneNumber: a.phoneNumber ?? '',
});

/** One line of the order as it was bought. */
export const OrderLineSchema = z.object({
  /** The selection's line id; the order item's `line`. */
  line: text(64).min(1),
  /** `<productId>-<sizeId>`. */
  item: text(128).min(1),
  product: text(64),
  /** The size's name (`M`); its id is the item's second part. */
  size: text(),
  /**
   * The ERP's ids of the line's product, variation, size and brand as the catalog had them at placing (decision
   * 113): the SOAP order events name the line by them. Absent on orders placed before, and on lines whose item the
   * catalog no longer had.
   */
  external: z.object({ product: text(), variation: text(), size: text(), brand: text() }).optional(),
  sku: text(),
  ean: text(64),
  productName: text(),
  brandName: text(),
  quantity: z.number().int().min(1).max(1_000_000),
  priceEach: minor,
  priceEachBeforeDiscount: minor,
  priceEachWithoutTax: minor,
  totalPrice: minor,
  taxPercent: z.number().min(0).max(100),
  storePickup: z.boolean().default(false),
});
export type OrderLine = z.infer<typeof OrderLineSchema>;

/** A voucher used on the order and what it took off. */
export const OrderVoucherSchema = z.object({
  voucher: text(128).min(1),
  name: text(),
  type: text(32),
  discount: minor,
});

export const OrderDiscountsSchema = z.object({
  /** All discounts together. */
  discount: minor,
  automaticDiscounts: z.array(z.object({ name: text(), discount: minor })).default([]),
  vouchers: z.array(OrderVoucherSchema).default([]),
});

/** The spec's Totals in minor units; null where not applicable (shown as `false`). */
export const OrderTotalsSchema = z.object({
  itemsTotal: minor,
  totalDiscount: minor.nullable(),
  shipping: minor.nullable(),
  handlingCost: minor.nullable(),
  taxDeducted: minor.nullable(),
  taxAdded: minor.nullable(),
  grandTotal: minor,
  grandTotalTax: minor.nullable(),
  totalQuantity: z.number().int().min(0),
  taxPercent: z.number().min(0).max(100),
});
export type OrderTotals = z.infer<typeof OrderTotalsSchema>;

const idAndName = z.object({ id: text(64), name: text() });

/**
 * What the edge hands the order service when a payment succeeded: the priced selection as the visitor
 * saw it (lines, discounts, totals, currency), where it goes and how it was paid. Idempotent by
 * `paymentAttemptId`: however often and concurrently it is sent for one attempt, one order is placed.
 */
export const PlaceOrderCommandSchema = z.object({
  /** The payment attempt this order pays for: one attempt, one order. */
  paymentAttemptId: text(128).min(1),
  /** The store the order number counts in (one number sequence per store). */
  store: text(64).min(1).default('default'),
  selectionId: text(64).min(1),
  /** The checkout session the order was placed in (never the token itself): for `GET receipt`. */
  sessionId: text(128).nullable().default(null),
  /** The logged-in customer's id; null for a guest. */
  customerId: text(64).nullable(),
  currency: z.string().regex(/^[A-Z]{3}$/),
  currencyFormat: OrderCurrencyFormatSchema,
  country: z.string().regex(/^[A-Z]{2}$/),
  state: text(64).nullable().default(null),
  language: text(16),
  market: text(64),
  pricelist: text(64),
  paymentMethod: idAndName,
  /** The provider's reference of the payment, when it has one. */
  paymentReference: text().nullable().default(null),
  shippingMethod: idAndName,
  lines: z.array(OrderLineSchema).min(1).max(1000),
  discounts: OrderDiscountsSchema,
  totals: OrderTotalsSchema,
  vatExempt: z.boolean(),
  address: OrderAddressSchema,
  shippingAddress: OrderAddressSchema,
  message: text(4000).default(''),
  giftMessage: text(4000).nullable().default(null),
});
/** What a caller builds (defaults may be left out). */
export type PlaceOrderCommand = z.input<typeof PlaceOrderCommandSchema>;
export type ValidPlaceOrderCommand = z.output<typeof PlaceOrderCommandSchema>;

/** A shipment the back office reported (`orders_Update`). */
export const OrderShipmentSchema = z.object({
  /** The ERP's shipment id. */
  shipment: text(128),
  /** `YYYY-MM-DD HH:MM:SS` as the ERP gave it, or '' when it did not. */
  shippedDate: text(64),
  carrier: text(),
  service: text(),
  trackingId: text(),
  trackingUrl: text(2048),
});
export type OrderShipment = z.infer<typeof OrderShipmentSchema>;

/** A cancelled quantity of an item, as the back office reported it. */
export const CancelledLineSchema = z.object({
  item: text(128),
  sku: text(),
  quantity: z.number().int().min(0),
});
export type CancelledLine = z.infer<typeof CancelledLineSchema>;

/** An invoice of the order (`invoices_Update`): amounts as the ERP wrote them (decimal strings). */
export const OrderInvoiceSchema = z.object({
  invoice: text(128),
  serialNo: text(),
  status: text(64),
  currency: text(8),
  total: text(64),
  vat: text(64),
  totalPaid: text(64),
  invoiceDate: text(64),
  dueDate: text(64),
});
export type OrderInvoice = z.infer<typeof OrderInvoiceSchema>;

/** An order as the order service keeps it. */
export const OrderSchema = PlaceOrderCommandSchema.extend({
  /** Internal id (uuid). */
  id: z.string(),
  /** The order number, increasing per store: the spec's `order`. */
  order: z.string(),
  status: z.string(),
  /** `Pending` for `untouched`. */
  statusDescription: z.string(),
  /** When it was placed, ISO 8601. */
  placedAt: z.string(),
  shipments: z.array(OrderShipmentSchema),
  cancelled: z.array(CancelledLineSchema),
  invoices: z.array(OrderInvoiceSchema),
  /** Increases with every change, so a reader can tell newer from older. */
  version: z.number().int(),
});
export type OrderDto = z.output<typeof OrderSchema>;

/** A page of a customer's orders, newest first, with how many there are in all. */
export interface OrderPage {
  orders: OrderDto[];
  totalSize: number;
}

/**
 * What completing a paid attempt came to: its order, or (the stock of a hold that expired is gone) no
 * order, the payment voided, and what is missing (the spec's Unavailable entries).
 */
export type PaidAttemptCompletion =
  | { placed: true; order: OrderDto }
  | { placed: false; unavailable: UnavailableEntry[] }
  /** Declined at the provider, or replaced by a newer attempt: its stock released, no order. */
  | { placed: false; failed: true };

/** `POST payment`'s step of the checkout saga: hold the selection's stock, start the attempt (docs/checkout-saga.md). */
export interface BeginCheckoutCommand {
  /** The attempt to start: its id is the saga's key; its `orderDraft` the order placed once it is paid. */
  attempt: StartAttemptCommand & { orderDraft: PlaceOrderCommand };
  /** The selection's lines, held for the attempt. */
  lines: Array<{ item: string; quantity: number }>;
  holdSeconds: number;
}

/**
 * Where beginning a checkout left the selection's payment: `started` (the provider's redirect or form),
 * `placed` (paid at once, or the selection's payment was authorized already: that attempt's order),
 * `failed` (declined at once) or `unavailable` (the stock is short: nothing started).
 */
export type CheckoutBegun =
  | { state: 'started'; attemptId: string; action: PaymentAction }
  | { state: 'placed'; attemptId: string; order: OrderDto }
  | { state: 'failed'; attemptId: string }
  | { state: 'unavailable'; attemptId: string; unavailable: UnavailableEntry[] };

/**
 * What `completePaymentResult` found and did: the attempt the result's fields name (its id and selection) and its
 * completion; `completion: null` when that is not the attempt the caller expected (nothing completed).
 */
export interface PaymentResultCompletion {
  attemptId: string;
  selectionId: string;
  completion: PaidAttemptCompletion | null;
}

/** Questions the edge asks the order service synchronously (DESIGN §2). HTTP and in-process implementations. */
export interface OrderClient {
  /**
   * Places the order of a succeeded payment attempt, or answers the one already placed for it: every
   * call for one `paymentAttemptId` answers the same order (the first command wins). An invalid command
   * is `invalid` with one message per bad field.
   */
  placeOrder(command: PlaceOrderCommand): Promise<OrderDto>;
  /**
   * `POST payment` through the checkout saga (docs/checkout-saga.md): a selection whose payment is
   * authorized already has that attempt completed instead of a second one started; otherwise the stock is
   * held and the attempt started (the selection's older started attempt cancelled). Idempotent by attempt id.
   */
  beginCheckout(command: BeginCheckoutCommand): Promise<CheckoutBegun>;
  /**
   * Completes a paid payment attempt (the checkout saga's last step, shared by `POST payment-result` at
   * the edge and the order service's consumer of `PaymentAuthorized`): the attempt's stock committed,
   * its order placed from the draft it keeps, its selection closed. Idempotent by attempt id: every call
   * answers the same order. When the stock is gone (an expired hold), no order: the payment is voided and
   * every call answers the same `unavailable`. An attempt declined or replaced has its stock released and
   * answers `failed`; one still started is refused.
   */
  completePaidAttempt(paymentAttemptId: string): Promise<PaidAttemptCompletion>;
  /**
   * `POST payment-result` in one call (issue 28): the payment service verifies the fields (its errors as they are:
   * `paymentMethodFields`, 503), and the attempt they name is completed as `completePaidAttempt` completes it, from
   * the attempt the verification answered (no second read of it). Only the attempt the caller expected (the one
   * its session started) is completed; another is answered with `completion: null`, nothing done.
   */
  completePaymentResult(fields: Record<string, string>, expectedAttemptId: string | null): Promise<PaymentResultCompletion>;
  /** null when there is no order with that id. */
  getOrder(id: string): Promise<OrderDto | null>;
  /** The order placed for a payment attempt, or null. */
  getOrderByPaymentAttempt(paymentAttemptId: string): Promise<OrderDto | null>;
  /** A customer's orders, newest first; `size` null means all from `from` on. */
  listCustomerOrders(customerId: string, from: number, size: number | null): Promise<OrderPage>;
}

/** The statuses the order service knows (the ERP's, on the ground floor), with the description the checkout API shows. */
export { ORDER_STATUS_DESCRIPTIONS } from '@commerce/erp-contracts';

/** The status of a newly placed order. */
export const PLACED_STATUS = 'untouched';
