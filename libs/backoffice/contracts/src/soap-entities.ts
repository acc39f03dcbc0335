import { z } from 'zod';

/**
 * The SOAP entities of the spec as JSON, after the SOAP adapter has parsed the XML: element names kept,
 * a list element (`<variations><variation/>…</variations>`) becomes an array, every scalar is a string
 * unless the spec gives a type. These schemas are the contract between `backoffice-soap` (which
 * validates a whole batch before writing it) and the services that apply the upserts.
 */
const str = z.string();
const opt = str.optional();

export const RefSchema = z.object({ id: str, description: opt });
export type Ref = z.infer<typeof RefSchema>;

export const WarehouseItemSchema = z.object({ id: str, qty: opt, cog: opt });

export const SizeStockSchema = z.object({
  id: str,
  qty: opt,
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
  minimumorderamount: opt,
  orderdenominator: opt,
});

export const VariationSchema = z.object({
  id: str,
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
  id: str.min(1, 'must not be empty'),
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
