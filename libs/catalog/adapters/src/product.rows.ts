import type { Item, Product, Variant } from '@commerce/catalog-core';
import { iso, json } from './catalog-sql';

/** The rows of a product's tables (`products`, `variants`, `items` with their size, `item_stock`) and their mapping. */
export interface ProductRow {
  id: number;
  external_id: string;
  name: string;
  sku: string;
  status: string;
  visible: boolean;
  description: string;
  excerpt: string;
  meta_title: string;
  meta_description: string;
  meta_keywords: string;
  country_of_origin: string;
  harm_code: string;
  harm_code_description: string;
  weight_value: string;
  weight_unit: string;
  comment: string;
  brand_id: number | null;
  collection_id: number | null;
  category_id: number | null;
  media: unknown;
  created_at: Date | string;
  modified_at: Date | string;
}
export interface VariantRow {
  id: number;
  product_id: number;
  external_id: string;
  name: string;
  sku: string;
  status: string;
  visible: boolean;
  uri: string;
  position: number;
  stock_id: string;
  size_table_external_id: string | null;
  category_ids: unknown;
  markets: unknown;
  item_quantity_minimum: number;
  item_quantity_multiple_of: number;
}
export interface ItemRow {
  id: string;
  variant_id: number;
  size_id: number;
  size_external_id: string;
  size_name: string;
  size_table_external_id: string | null;
  sku: string;
  ean: string;
  qty: number;
  stock: number;
  preorder: boolean;
  position: number;
}
export interface ItemStockRow {
  item_id: string;
  warehouse: string;
  qty: number;
}

export const variantRow = (productId: number, v: Variant) => ({
  id: v.id,
  product_id: productId,
  external_id: v.externalId,
  name: v.name,
  sku: v.sku,
  status: v.status,
  visible: v.visible,
  uri: v.uri,
  position: v.position,
  stock_id: v.stockId,
  size_table_external_id: v.sizeTableExternalId,
  category_ids: v.categoryIds,
  markets: v.markets,
  item_quantity_minimum: v.itemQuantityMinimum,
  item_quantity_multiple_of: v.itemQuantityMultipleOf,
});
export const itemRow = (variantId: number, i: Item) => ({
  id: i.id,
  variant_id: variantId,
  size_id: i.sizeId,
  sku: i.sku,
  ean: i.ean,
  qty: i.qty,
  stock: i.stock,
  preorder: i.preorder,
  position: i.position,
});
/** The columns `saveProducts` writes, with their SQL types (`json_to_recordset`'s record). */
export const PRODUCT_COLUMNS = [
  ['id', 'integer'],
  ['external_id', 'text'],
  ['name', 'text'],
  ['sku', 'text'],
  ['status', 'text'],
  ['visible', 'boolean'],
  ['description', 'text'],
  ['excerpt', 'text'],
  ['meta_title', 'text'],
  ['meta_description', 'text'],
  ['meta_keywords', 'text'],
  ['country_of_origin', 'text'],
  ['harm_code', 'text'],
  ['harm_code_description', 'text'],
  ['weight_value', 'text'],
  ['weight_unit', 'text'],
  ['comment', 'text'],
  ['brand_id', 'integer'],
  ['collection_id', 'integer'],
  ['category_id', 'integer'],
  ['media', 'jsonb'],
  ['created_at', 'timestamptz'],
  ['modified_at', 'timestamptz'],
] as const;
export const VARIANT_COLUMNS = [
  ['id', 'integer'],
  ['product_id', 'integer'],
  ['external_id', 'text'],
  ['name', 'text'],
  ['sku', 'text'],
  ['status', 'text'],
  ['visible', 'boolean'],
  ['uri', 'text'],
  ['position', 'integer'],
  ['stock_id', 'text'],
  ['size_table_external_id', 'text'],
  ['category_ids', 'jsonb'],
  ['markets', 'jsonb'],
  ['item_quantity_minimum', 'integer'],
  ['item_quantity_multiple_of', 'integer'],
] as const;
export const ITEM_COLUMNS = [
  ['id', 'text'],
  ['variant_id', 'integer'],
  ['size_id', 'integer'],
  ['sku', 'text'],
  ['ean', 'text'],
  ['qty', 'integer'],
  ['stock', 'integer'],
  ['preorder', 'boolean'],
  ['position', 'integer'],
] as const;
export const ITEM_STOCK_COLUMNS = [
  ['item_id', 'text'],
  ['warehouse', 'text'],
  ['qty', 'integer'],
] as const;
export function toProduct(
  r: ProductRow,
  variants: VariantRow[],
  itemsOf: Map<number, ItemRow[]>,
  stockOf: Map<string, ItemStockRow[]>,
): Product {
  return {
    id: r.id,
    externalId: r.external_id,
    name: r.name,
    sku: r.sku,
    status: r.status,
    visible: r.visible,
    description: r.description,
    excerpt: r.excerpt,
    metaTitle: r.meta_title,
    metaDescription: r.meta_description,
    metaKeywords: r.meta_keywords,
    countryOfOrigin: r.country_of_origin,
    harmCode: r.harm_code,
    harmCodeDescription: r.harm_code_description,
    weightValue: r.weight_value,
    weightUnit: r.weight_unit,
    comment: r.comment,
    brandId: r.brand_id,
    collectionId: r.collection_id,
    categoryId: r.category_id,
    media: json(r.media),
    createdAt: iso(r.created_at),
    modifiedAt: iso(r.modified_at),
    variants: variants.map((v): Variant => ({
      id: v.id,
      externalId: v.external_id,
      name: v.name,
      sku: v.sku,
      status: v.status,
      visible: v.visible,
      uri: v.uri,
      position: v.position,
      stockId: v.stock_id,
      sizeTableExternalId: v.size_table_external_id,
      categoryIds: json<number[]>(v.category_ids),
      markets: v.markets === null || v.markets === undefined ? null : json<string[]>(v.markets),
      itemQuantityMinimum: v.item_quantity_minimum,
      itemQuantityMultipleOf: v.item_quantity_multiple_of,
      items: (itemsOf.get(v.id) ?? []).map((i): Item => ({
        id: i.id,
        sizeId: i.size_id,
        sizeExternalId: i.size_external_id,
        sizeName: i.size_name,
        sizeTableExternalId: i.size_table_external_id,
        sku: i.sku,
        ean: i.ean,
        qty: i.qty,
        warehouseStock: Object.fromEntries((stockOf.get(i.id) ?? []).map((s) => [s.warehouse, s.qty])),
        stock: i.stock,
        preorder: i.preorder,
        position: i.position,
      })),
    })),
  };
}

export const productRow = (product: Product) => ({
  id: product.id,
  external_id: product.externalId,
  name: product.name,
  sku: product.sku,
  status: product.status,
  visible: product.visible,
  description: product.description,
  excerpt: product.excerpt,
  meta_title: product.metaTitle,
  meta_description: product.metaDescription,
  meta_keywords: product.metaKeywords,
  country_of_origin: product.countryOfOrigin,
  harm_code: product.harmCode,
  harm_code_description: product.harmCodeDescription,
  weight_value: product.weightValue,
  weight_unit: product.weightUnit,
  comment: product.comment,
  brand_id: product.brandId,
  collection_id: product.collectionId,
  category_id: product.categoryId,
  media: product.media,
  created_at: product.createdAt,
  modified_at: product.modifiedAt,
});
