import type { Product, RefKind } from './product';

/** A product's two ids: what `ProductUpserted` carries. */
export interface ProductKey {
  id: number;
  externalId: string;
}

/**
 * The products with their variants, items and per-warehouse stock (tables `products`, `variants`, `items`,
 * `item_stock`), in the transaction of a unit of work; and which products a change elsewhere touches.
 */
export interface ProductsRepository {
  /** The products among these external ids, with their variants, items and stock. */
  findByExternalIds(externalIds: string[]): Promise<Product[]>;
  /** `count` new ids of products or variants, ascending. */
  nextIds(kind: 'product' | 'variant', count: number): Promise<number[]>;
  /** Variants whose URI is one of these slugs or one of them with a `-<n>` suffix (what `uniqueSlug` tries). */
  variantUris(bases: string[]): Promise<Array<{ id: number; uri: string }>>;
  /** Writes the products, their variants, items and per-warehouse stock (listed ones; unlisted rows are kept). */
  save(products: Product[]): Promise<void>;

  /** Products that exist among these external ids. */
  keysOf(externalIds: string[]): Promise<ProductKey[]>;
  /** Products with an item of one of these sizes. */
  keysWithSizes(sizeIds: number[]): Promise<ProductKey[]>;
  /** Products whose variations, or whose items' sizes, use this size table. */
  keysWithSizeTable(tableExternalId: string): Promise<ProductKey[]>;
  /** Products with a variation of one of these external ids. */
  keysWithVariations(variationExternalIds: string[]): Promise<ProductKey[]>;
  /** Products pointing at the brand or collection. */
  keysWithRef(kind: RefKind, id: number): Promise<ProductKey[]>;
  /** Products whose folder or one of whose variants' categories is among these. */
  keysInCategories(categoryIds: number[]): Promise<ProductKey[]>;
}
