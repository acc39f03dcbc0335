/**
 * The catalog's model. A `Product` is what the ERP sends (one SOAP product); each of its variations is a
 * `Variant`, and each variant is what the checkout API shows as a "product" (its `product` id is the
 * variant id, `platformProduct`/`platformVariant` name both). That keeps item ids `<productId>-<sizeId>`
 * unique when two variations of one product share sizes (DESIGN §6: ids assigned here, SOAP ids kept as
 * external keys).
 */

export type RefKind = 'brand' | 'collection' | 'category';

/** A brand, collection or category: integer id, the ERP's id, a name and a unique URI. */
export interface CatalogRef {
  id: number;
  externalId: string;
  name: string;
  uri: string;
}

export interface Size {
  id: number;
  externalId: string;
  name: string;
}

/** One size of one variant: what a customer puts in the selection. */
export interface Item {
  /** `<variantId>-<sizeId>`, the checkout API's item id. */
  id: string;
  sizeId: number;
  sizeExternalId: string;
  sizeName: string;
  sku: string;
  ean: string;
  /** Units available (sum over warehouses). */
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
  categoryIds: number[];
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
  description: string;
  excerpt: string;
  metaTitle: string;
  metaDescription: string;
  metaKeywords: string;
  countryOfOrigin: string;
  harmCode: string;
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

/** A product with the refs it points at, as the read side needs it. */
export interface ProductView {
  product: Product;
  brand: CatalogRef | null;
  collection: CatalogRef | null;
  /** Every category the product or one of its variants is in, by id. */
  categories: Map<number, CatalogRef>;
}

/** A price of one variant in one pricelist (pricelists arrive in a later issue). */
export interface Price {
  price: number;
  priceBeforeDiscount: number;
  currency: string;
}

/** ERP statuses that show a product: `active`, or none given. Anything else (`inactive`, `canceled`, …) hides it. */
export const isVisibleStatus = (status: string | undefined): boolean => {
  const s = (status ?? '').trim().toLowerCase();
  return s === '' || s === 'active';
};

export const itemIdOf = (variantId: number, sizeId: number): string => `${variantId}-${sizeId}`;

/** `<variantId>-<sizeId>` → its parts, or null when the id is not of that form. */
export function parseItemId(itemId: string): { variantId: number; sizeId: number } | null {
  const m = /^(\d{1,15})-(\d{1,15})$/.exec(itemId);
  return m ? { variantId: Number(m[1]), sizeId: Number(m[2]) } : null;
}

export function parseProductId(productId: string): number | null {
  return /^\d{1,15}$/.test(productId) ? Number(productId) : null;
}

export const variantInStock = (variant: Variant): boolean => variant.items.some((i) => i.stock > 0 || i.preorder);

export const isShown = (product: Product, variant: Variant): boolean => product.visible && variant.visible;
