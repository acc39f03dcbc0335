import { z } from 'zod';

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
