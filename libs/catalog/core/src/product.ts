/**
 * The catalog's model. A `Product` is what the ERP sends (one SOAP product); each of its variations is a
 * `Variant`, and each variant is what the checkout API shows as a "product" (its `product` id is the
 * variant id, `platformProduct`/`platformVariant` name both). That keeps item ids `<productId>-<sizeId>`
 * unique when two variations of one product share sizes (DESIGN §6: ids assigned here, SOAP ids kept as
 * external keys).
 */
import { ITEM_ID_PATTERN } from '@commerce/catalog-contracts';

/** Brands and collections: flat refs. Categories are a tree (`Category`). */
export type RefKind = 'brand' | 'collection';

/** A brand or collection: integer id, the ERP's id, a name and a unique URI. */
export interface CatalogRef {
  id: number;
  externalId: string;
  name: string;
  uri: string;
}

/**
 * A category of the store's tree. The tree is store configuration (`categories`); the ERP's `folder` and
 * display `categories` name its nodes by external id. A category the configuration does not know is
 * created at the top level, after the configured ones, named by the ERP's description.
 */
export interface Category {
  id: number;
  externalId: string;
  /** Its own name. */
  name: string;
  /** The full path of slugs from the top: `women/tops/shirts`. */
  uri: string;
  parentId: number | null;
  /** Order among its siblings. */
  position: number;
  /** True when it is in the store configuration's tree. */
  configured: boolean;
  /** The full path of names from the top: `['Women', 'Tops', 'Shirts']`. */
  namePath: string[];
}

/** A size table (`sizes_Update` → `sizetable`): how stock is counted. */
export interface SizeTable {
  externalId: string;
  description: string;
  stockDivisor: number;
  stockUnit: string;
}

/** A size (`sizes_Update`, or named by a product's variation). Global: several variants share size M. */
export interface Size {
  id: number;
  externalId: string;
  name: string;
  sku: string;
  ean: string;
  comment: string;
  sizeTableExternalId: string | null;
}

/** One size of one variant: what a customer puts in the selection. */
export interface Item {
  /** `<variantId>-<sizeId>`, the checkout API's item id. */
  id: string;
  sizeId: number;
  sizeExternalId: string;
  sizeName: string;
  /** The size's table (from the size), for the variant's stock unit when the variation names none. */
  sizeTableExternalId: string | null;
  sku: string;
  ean: string;
  /** The size's own `qty` as the ERP sent it; counts only while no warehouse holds the item. */
  qty: number;
  /** Warehouse external id → units there (from the size's `warehouseitems`). */
  warehouseStock: Record<string, number>;
  /** Units available: the sum over warehouses, or `qty` when no warehouse lists the item. */
  stock: number;
  preorder: boolean;
  position: number;
}

export interface Variant {
  id: number;
  externalId: string;
  name: string;
  sku: string;
  status: string;
  /** Shown in the checkout API (and indexed) only when both it and its product are visible. */
  visible: boolean;
  uri: string;
  position: number;
  stockId: string;
  /** The variation's `sizetable` ref. */
  sizeTableExternalId: string | null;
  categoryIds: number[];
  /**
   * The markets (external ids) the variant is displayed in, from its displays' `markets`/`marketsremove`;
   * null while no display ever named a market, which means every market.
   */
  markets: string[] | null;
  itemQuantityMinimum: number;
  itemQuantityMultipleOf: number;
  items: Item[];
}

export interface MediaImage {
  url: string;
  /** The ERP id of the variation the image belongs to; null for every variant. */
  variantExternalId: string | null;
}

export interface Product {
  id: number;
  externalId: string;
  name: string;
  sku: string;
  status: string;
  visible: boolean;
  /** As the ERP sent them: plain text or HTML (the projection derives both forms). */
  description: string;
  excerpt: string;
  metaTitle: string;
  metaDescription: string;
  metaKeywords: string;
  countryOfOrigin: string;
  harmCode: string;
  harmCodeDescription: string;
  weightValue: string;
  weightUnit: string;
  comment: string;
  brandId: number | null;
  collectionId: number | null;
  /** The ERP folder: the product's main category. */
  categoryId: number | null;
  media: MediaImage[];
  variants: Variant[];
  /** ISO 8601. */
  createdAt: string;
  modifiedAt: string;
}

/** A market (`markets_Update`); the store configuration maps countries to market ids. */
export interface Market {
  externalId: string;
  store: string;
  type: string;
  description: string;
}

/** A warehouse (`warehouses_Update`); stock is kept per warehouse on the items. */
export interface Warehouse {
  externalId: string;
  description: string;
}

/** A pricelist (`pricelists_Update`); its items are `PricelistItem`s. */
export interface Pricelist {
  externalId: string;
  store: string;
  type: string;
  currency: string;
  description: string;
}

/**
 * A price of a product (`variationExternalId` '') or of one of its variations in one pricelist, by the
 * ERP's ids, so that prices and products can arrive in any order. Amounts in minor units of the
 * pricelist's currency.
 */
export interface PricelistItem {
  pricelist: string;
  productExternalId: string;
  variationExternalId: string;
  price: number;
  priceBeforeDiscount: number | null;
}

export interface DeliveryWindowVariation {
  variationExternalId: string;
  type: string;
  productLimit: number | null;
  variationLimit: number | null;
}

/** A delivery window (`deliverywindows_Update`): while active, its variations can be preordered. */
export interface DeliveryWindow {
  externalId: string;
  status: string;
  description: string;
  /** ISO 8601, null for open-ended. */
  startsAt: string | null;
  stopsAt: string | null;
  atOnce: boolean;
  variations: DeliveryWindowVariation[];
  /** Whether the window was active when its products were last published (the index follows). */
  activeIndexed: boolean;
}

/** A delivery window as a product's projection needs it: one row per variation in it. */
export interface DeliveryWindowSpan {
  windowExternalId: string;
  variationExternalId: string;
  status: string;
  startsAt: string | null;
  stopsAt: string | null;
}

/** A product with everything its projection reads, loaded in one go by the repository. */
export interface ProductView {
  product: Product;
  brand: CatalogRef | null;
  collection: CatalogRef | null;
  /** Every category the product or one of its variants is in, by id. */
  categories: Map<number, Category>;
  /** The size tables its variants and sizes name, by external id. */
  sizeTables: Map<string, SizeTable>;
  /** Its rows in every pricelist (product and variation level). */
  prices: PricelistItem[];
  /** The pricelists of those rows, by external id. */
  pricelists: Map<string, Pricelist>;
  /** The delivery windows its variations are in. */
  deliveryWindows: DeliveryWindowSpan[];
}

/** A price of one variant in one pricelist, in minor units of `currency` (`digits` of them per major unit). */
export interface Price {
  pricelist: string;
  currency: string;
  digits: number;
  price: number;
  /** Never below `price`: the ERP's `priceb` when higher, else the price. */
  priceBeforeDiscount: number;
}

/** ERP statuses that show a product: `active`, or none given. Anything else (`inactive`, `canceled`, …) hides it. */
export const isVisibleStatus = (status: string | undefined): boolean => {
  const s = (status ?? '').trim().toLowerCase();
  return s === '' || s === 'active';
};

/** `<variantId>-<sizeId>` → its parts, or null when the id is not of that form. */
export function parseItemId(itemId: string): { variantId: number; sizeId: number } | null {
  const m = ITEM_ID_PATTERN.exec(itemId);
  return m ? { variantId: Number(m[1]), sizeId: Number(m[2]) } : null;
}

export function parseProductId(productId: string): number | null {
  return /^\d{1,15}$/.test(productId) ? Number(productId) : null;
}

export const isShown = (product: Product, variant: Variant): boolean => product.visible && variant.visible;
