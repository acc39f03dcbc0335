import { z } from 'zod';
import { ORDER_STATUS_DESCRIPTIONS } from './order-statuses';

/**
 * The SOAP entities of the spec as JSON, after the SOAP adapter has parsed the XML: element names kept,
 * a list element (`<variations><variation/>…</variations>`) becomes an array, a field left out is absent.
 * These schemas are the contract between `backoffice-soap` (which validates a whole batch before writing
 * it, so a consumer never receives poison) and the services that apply the upserts.
 *
 * Types: every scalar is a string unless the spec gives one. The spec's `int` fields become JSON numbers
 * and its `boolean` fields JSON booleans (XSD lexical forms accepted: `3`, `true|false|1|0`). Strings
 * whose meaning is numeric stay strings, so amounts keep their exact decimals, but their form is checked:
 * prices, quantities, currency codes and dates. Every schema accepts its own output, so a consumer can
 * parse an event payload with the same schema.
 *
 * The entities of the account and order services (no consumer yet) are checked by the spec's types, ids
 * and currency codes only; their amounts and dates stay free text until their owners decide what they accept.
 */
const str = z.string();
const opt = str.optional();

/** An id: any text but blank. */
const id = str.refine((s) => s.trim() !== '', 'must not be empty');

const INT_MAX = 2_147_483_647;

/** The spec's `int`: a whole number that fits an xsd:int, never negative (all of them are counts or store numbers). */
const int = z.unknown().transform((value, ctx): number => {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\+?\d{1,10}$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > INT_MAX) {
    ctx.issues.push({ code: 'custom', message: `must be a whole number from 0 to ${INT_MAX}`, input: value });
    return z.NEVER;
  }
  return n;
});

/** The spec's `boolean`, with the lexical forms of xsd:boolean. */
const bool = z.unknown().transform((value, ctx): boolean => {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  ctx.issues.push({ code: 'custom', message: 'must be true, false, 1 or 0', input: value });
  return z.NEVER;
});

/** A quantity given as text: a whole number ≥ 0 (kept a string, as the spec types it). */
const quantity = str.regex(/^\d{1,12}$/, 'must be a whole number ≥ 0');

/** A divisor: a whole number ≥ 1, so that dividing by it is always defined. */
const divisor = str.regex(/^0*[1-9]\d{0,11}$/, 'must be a whole number ≥ 1');

/** An amount of money: a decimal ≥ 0 with at most 2 decimals, kept as text so no float rounding creeps in. */
const price = str.regex(/^\d{1,12}(\.\d{1,2})?$/, 'must be a decimal number ≥ 0 with at most 2 decimals, e.g. 19.90');

/** An ISO 4217 code as the ERP writes it. */
const currency = str.regex(/^[A-Z]{3}$/, 'must be a 3-letter upper-case currency code, e.g. EUR');

const isoDate = z.iso.date();
const isoDateTime = z.iso.datetime({ offset: true, local: true });
/** ISO 8601: a date (`2026-03-01`) or a date-time with or without an offset (`2026-03-01T08:00:00+01:00`). */
const date = str.refine(
  (s) => isoDate.safeParse(s).success || isoDateTime.safeParse(s).success,
  'must be an ISO 8601 date or date-time, e.g. 2026-03-01 or 2026-03-01T08:00:00+01:00',
);

export const RefSchema = z.object({ id, description: opt });
export type Ref = z.infer<typeof RefSchema>;

// ---- product -------------------------------------------------------------------------------------

export const WarehouseItemSchema = z.object({ id, qty: quantity.optional(), cog: opt });

export const SizeStockSchema = z.object({
  id,
  qty: quantity.optional(),
  preorder: opt,
  description: opt,
  comment: opt,
  sku: opt,
  ean: opt,
  warehouseitems: z.array(WarehouseItemSchema).optional(),
});

export const DisplaySchema = z.object({
  store: opt,
  categories: z.array(RefSchema).optional(),
  categoriesremove: z.array(RefSchema).optional(),
  markets: z.array(RefSchema).optional(),
  marketsremove: z.array(RefSchema).optional(),
  minimumorderamount: quantity.optional(),
  orderdenominator: quantity.optional(),
});

export const VariationSchema = z.object({
  id,
  stockid: opt,
  description: opt,
  sku: opt,
  status: opt,
  sizetable: RefSchema.optional(),
  sizes: z.array(SizeStockSchema).optional(),
  displays: z.array(DisplaySchema).optional(),
  cog: opt,
});

export const StoreMetaSchema = z.object({
  shortdescription: opt,
  description: opt,
  metatitle: opt,
  metakeywords: opt,
  metadescription: opt,
  taxgroup: opt,
  store: opt,
});

export const SoapProductSchema = z.object({
  id,
  status: opt,
  sku: opt,
  description: opt,
  folder: RefSchema.optional(),
  brand: RefSchema.optional(),
  collection: RefSchema.optional(),
  harmcode: RefSchema.optional(),
  countryoforigin: opt,
  weight: z.object({ value: opt, unit: opt }).optional(),
  variations: z.array(VariationSchema).optional(),
  media: z.array(z.object({ id: opt, image: opt, variation: RefSchema.optional() })).optional(),
  metadata: z.object({ storemeta: StoreMetaSchema.optional() }).optional(),
  comment: opt,
});
export type SoapProduct = z.infer<typeof SoapProductSchema>;

// ---- size ----------------------------------------------------------------------------------------

export const SizeTableSchema = z.object({ id, description: opt, stockdivisor: divisor.optional(), stockunit: opt });

export const SoapSizeSchema = z.object({
  id,
  description: opt,
  sku: opt,
  ean: opt,
  comment: opt,
  sizetable: SizeTableSchema.optional(),
});
export type SoapSize = z.infer<typeof SoapSizeSchema>;

// ---- pricelist -----------------------------------------------------------------------------------

export const PricelistVariationSchema = z.object({ id, price: price.optional(), priceb: price.optional() });

export const PricelistProductSchema = z.object({
  id,
  price: price.optional(),
  priceb: price.optional(),
  variation: PricelistVariationSchema.optional(),
});

export const SoapPricelistSchema = z.object({
  id,
  store: opt,
  type: opt,
  currency: currency.optional(),
  description: opt,
  items: z.array(PricelistProductSchema).optional(),
});
export type SoapPricelist = z.infer<typeof SoapPricelistSchema>;

// ---- market, warehouse ---------------------------------------------------------------------------

export const SoapMarketSchema = z.object({ id, store: opt, type: opt, description: opt });
export type SoapMarket = z.infer<typeof SoapMarketSchema>;

export const SoapWarehouseSchema = z.object({ id, description: opt });
export type SoapWarehouse = z.infer<typeof SoapWarehouseSchema>;

// ---- delivery window -----------------------------------------------------------------------------

export const DeliveryWindowVariationSchema = z.object({
  id,
  type: opt,
  productlimit: int.optional(),
  variationlimit: int.optional(),
});

/** A date alone counts as its midnight; a date-time without an offset is compared as if both were in one zone. */
const instant = (s: string): number => Date.parse(/T/.test(s) ? (/(Z|[+-]\d\d:?\d\d)$/.test(s) ? s : `${s}Z`) : `${s}T00:00:00Z`);
/** Both dates given: the window must not end before it starts. */
const inOrder = (start: string, stop: string): boolean => instant(start) <= instant(stop);

export const SoapDeliveryWindowSchema = z
  .object({
    id,
    status: opt,
    description: opt,
    startdate: date.optional(),
    stopdate: date.optional(),
    atonce: bool.optional(),
    variations: z.array(DeliveryWindowVariationSchema).optional(),
    variationsremove: z.array(DeliveryWindowVariationSchema).optional(),
  })
  .refine((w) => w.startdate === undefined || w.stopdate === undefined || inOrder(w.startdate, w.stopdate), {
    message: 'must not be before startdate',
    path: ['stopdate'],
  });
export type SoapDeliveryWindow = z.infer<typeof SoapDeliveryWindowSchema>;

// ---- shared blocks of the account and order entities ----------------------------------------------

export const AddressSchema = z.object({
  id: opt,
  description: opt,
  company: opt,
  attn: opt,
  firstname: opt,
  lastname: opt,
  address1: opt,
  address2: opt,
  city: opt,
  state: opt,
  zipcode: opt,
  country: opt,
  email: opt,
  telephone: opt,
  fax: opt,
  vat: opt,
  url: opt,
  companyregistrationid: opt,
});

export const CarrierSchema = z.object({
  carrier: opt,
  service: opt,
  account: opt,
  taxid: opt,
  tracking: opt,
  packages: int.optional(),
});

export const ChargeSchema = z.object({ subtotal: opt, description: opt, key: opt, id: opt });

export const AdditionalSchema = z.object({ key: opt, value: opt });

export const LineWarehouseSchema = z.object({ id, qty: opt });
export const SupplierOrderSchema = z.object({ id, qty: opt, eta: opt });

export const LineSizeSchema = z.object({
  id,
  sku: opt,
  qty: opt,
  preorder: opt,
  description: opt,
  orderitem: RefSchema.optional(),
  warehouseitems: z.array(LineWarehouseSchema).optional(),
  supplierorderitems: z.array(SupplierOrderSchema).optional(),
});

export const ProductLineSchema = z.object({
  id,
  tax: opt,
  sku: opt,
  origprice: opt,
  price: opt,
  discount: opt,
  qty: opt,
  subtotal: opt,
  description: opt,
  variation: RefSchema.optional(),
  brand: RefSchema.optional(),
  sizes: z.array(LineSizeSchema).optional(),
  type: opt,
  comment: opt,
});

// ---- account, customer ---------------------------------------------------------------------------

/**
 * A buyer as the ERP sends it. Its `password` never leaves backoffice-soap in clear: what is stored and
 * published is `passwordhash`, argon2id with the account service's cost (decision 54); earlier batches
 * carry a scrypt hash (`scrypt$ln=15,r=8,p=3$<saltB64>$<hashB64>`, or without parameters: N=16384, r=8,
 * p=1), see ReceivedBuyerSchema.
 */
export const BuyerSchema = z.object({
  id,
  store: int.optional(),
  status: opt,
  firstname: opt,
  lastname: opt,
  address1: opt,
  address2: opt,
  city: opt,
  state: opt,
  zipcode: opt,
  country: opt,
  email: opt,
  telephone: opt,
  fax: opt,
  market: RefSchema.optional(),
  pricelist: RefSchema.optional(),
  password: opt,
});

const accountFields = {
  id,
  type: opt,
  status: opt,
  description: opt,
  other: opt,
  discount: opt,
  market: RefSchema.optional(),
  pricelist: RefSchema.optional(),
  internalinformation: opt,
  creditlimit: opt,
  salesrep: RefSchema.optional(),
  paymentterms: RefSchema.optional(),
  shippingterms: RefSchema.optional(),
  accountaddress: AddressSchema.optional(),
  shippingaddress: AddressSchema.optional(),
  invoiceaddress: AddressSchema.optional(),
  carrierinformation: CarrierSchema.optional(),
  buyers: z.array(BuyerSchema).optional(),
  addresses: z.array(AddressSchema).optional(),
  additionals: z.array(AdditionalSchema).optional(),
};

/** An account as the ERP sends it (buyers with a clear-text `password`). */
export const SoapAccountSchema = z.object(accountFields);
export type SoapAccount = z.infer<typeof SoapAccountSchema>;

/** A buyer as stored and published: the password replaced by its argon2id hash (or, before decision 54, scrypt). */
export const ReceivedBuyerSchema = BuyerSchema.omit({ password: true }).extend({
  passwordhash: str
    .regex(
      /^(scrypt\$(ln=\d{1,2},r=\d{1,2},p=\d{1,2}\$)?[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+|\$argon2id\$v=19\$m=\d{1,8},t=\d{1,2},p=\d{1,2}\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+)$/,
      'must be an argon2id or scrypt hash',
    )
    .optional(),
});
export type ReceivedBuyer = z.infer<typeof ReceivedBuyerSchema>;

/** An account as stored and published on `backoffice.upsert.v1`. */
export const ReceivedAccountSchema = z.object({ ...accountFields, buyers: z.array(ReceivedBuyerSchema).optional() });
export type ReceivedAccount = z.infer<typeof ReceivedAccountSchema>;

export const SoapCustomerSchema = z.object({
  id,
  store: int.optional(),
  type: opt,
  status: opt,
  firstname: opt,
  lastname: opt,
  address1: opt,
  address2: opt,
  city: opt,
  state: opt,
  zipcode: opt,
  country: opt,
  email: opt,
  telephone: opt,
});
export type SoapCustomer = z.infer<typeof SoapCustomerSchema>;

// ---- sales reps, terms ---------------------------------------------------------------------------

export const MasterSalesRepSchema = z.object({ id, percent: opt });

export const SoapSalesRepSchema = z.object({
  id,
  email: opt,
  name: opt,
  percent: opt,
  mastersalesrep: z.array(MasterSalesRepSchema).optional(),
});
export type SoapSalesRep = z.infer<typeof SoapSalesRepSchema>;

const termsFields = { id, name: opt, description: opt, duedays: opt };
export const SoapPaymentTermsSchema = z.object(termsFields);
export type SoapPaymentTerms = z.infer<typeof SoapPaymentTermsSchema>;
export const SoapShippingTermsSchema = z.object(termsFields);
export type SoapShippingTerms = z.infer<typeof SoapShippingTermsSchema>;

// ---- invoice -------------------------------------------------------------------------------------

export const InvoiceItemSchema = z.object({
  itemid: opt,
  qty: opt,
  price: opt,
  tax: opt,
  subtotal: opt,
  description: opt,
  product: RefSchema.optional(),
  variation: RefSchema.optional(),
  size: RefSchema.optional(),
  discount: opt,
  sku: opt,
});

/** An invoice's `items` holds `invoiceitem` entries and `additional` charges side by side. */
export const InvoiceItemsSchema = z.object({
  invoiceitem: z.array(InvoiceItemSchema).optional(),
  additional: z.array(ChargeSchema).optional(),
});

export const SoapInvoiceSchema = z.object({
  id,
  store: opt,
  status: opt,
  serialno: opt,
  documenttype: opt,
  type: opt,
  currency: currency.optional(),
  currencyrate: opt,
  basecurrency: currency.optional(),
  total: opt,
  vat: opt,
  totalpaid: opt,
  invoicedate: opt,
  orderdate: opt,
  duedate: opt,
  buyer: RefSchema.optional(),
  account: RefSchema.optional(),
  order: RefSchema.optional(),
  shipment: RefSchema.optional(),
  refund: RefSchema.optional(),
  paymentterms: opt,
  shippingterms: opt,
  internalinformation: opt,
  ponumber: opt,
  billingaddress: AddressSchema.optional(),
  shippingaddress: AddressSchema.optional(),
  items: InvoiceItemsSchema.optional(),
  locked: opt,
});
export type SoapInvoice = z.infer<typeof SoapInvoiceSchema>;

// ---- order ---------------------------------------------------------------------------------------

export const OrderBuyerSchema = z.object({ id, description: opt, firstname: opt, lastname: opt, email: opt });

/** An entry of an order's `mastersalesrep` list: a master sales rep with its contact. */
export const OrderMasterSalesRepSchema = z.object({ id, email: opt, name: opt, percent: opt });

export const OrderDeliveryWindowSchema = z.object({
  id,
  description: opt,
  type: opt,
  atonce: bool.optional(),
  start: opt,
  stop: opt,
});

export const PaymentSchema = z.object({ type: opt, paid: opt, value: opt, created: opt, transaction: opt, document: opt });

export const PaymentsSchema = z.object({
  name: opt,
  type: opt,
  total: opt,
  status: opt,
  method: opt,
  payment: PaymentSchema.optional(),
});

export const RefundSchema = z.object({
  id,
  shipping: ChargeSchema.optional(),
  voucher: ChargeSchema.optional(),
  products: z.array(ProductLineSchema).optional(),
  comment: opt,
  returnfee: ChargeSchema.optional(),
  handling: ChargeSchema.optional(),
  status: opt,
  type: opt,
});

export const ShipmentSchema = z.object({
  id,
  paid: opt,
  shipped: opt,
  goodtogo: opt,
  capture: opt,
  appendix: opt,
  shipmenttotal: opt,
  paidtotal: opt,
  currency: currency.optional(),
  currencyrate: opt,
  basecurrency: currency.optional(),
  created: opt,
  shippingaddress: AddressSchema.optional(),
  carrierinformation: CarrierSchema.optional(),
  products: z.array(ProductLineSchema).optional(),
  refunds: z.array(RefundSchema).optional(),
  shipping: ChargeSchema.optional(),
  handling: ChargeSchema.optional(),
  voucher: ChargeSchema.optional(),
});

/** An order's status: one the order service knows (case-insensitive), refused at the door otherwise. */
const orderStatus = str.refine((s) => Object.hasOwn(ORDER_STATUS_DESCRIPTIONS, s.trim().toLowerCase()), {
  message: `must be one of ${Object.keys(ORDER_STATUS_DESCRIPTIONS).join(', ')}`,
});

export const SoapOrderSchema = z.object({
  id,
  ordernumber: opt,
  type: opt,
  store: int.optional(),
  locked: opt,
  status: orderStatus.optional(),
  ordertotal: opt,
  currency: currency.optional(),
  currencyrate: opt,
  basecurrency: currency.optional(),
  created: opt,
  internal: bool.optional(),
  preferred_shipping_date: opt,
  buyer: OrderBuyerSchema.optional(),
  salesrep: SoapSalesRepSchema.optional(),
  mastersalesrep: z.array(OrderMasterSalesRepSchema).optional(),
  account: RefSchema.optional(),
  paymentterms: RefSchema.optional(),
  shippingterms: RefSchema.optional(),
  deliverywindow: OrderDeliveryWindowSchema.optional(),
  collection: RefSchema.optional(),
  additionals: z.array(AdditionalSchema).optional(),
  primary_warehouse: z.array(RefSchema).optional(),
  shipping: ChargeSchema.optional(),
  handling: ChargeSchema.optional(),
  voucher: ChargeSchema.optional(),
  payments: PaymentsSchema.optional(),
  products: z.array(ProductLineSchema).optional(),
  cancelled: z.array(ProductLineSchema).optional(),
  shipments: z.array(ShipmentSchema).optional(),
  carrierinformation: CarrierSchema.optional(),
  customer: RefSchema.optional(),
  shippingaddress: AddressSchema.optional(),
  billingaddress: AddressSchema.optional(),
  internalinformation: opt,
  other: opt,
  ponumber: opt,
  market: RefSchema.optional(),
  pricelist: RefSchema.optional(),
  ecvatno: opt,
});
export type SoapOrder = z.infer<typeof SoapOrderSchema>;
