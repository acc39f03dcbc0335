import { z } from 'zod';

/** An item of a product as the checkout API shows it (spec: Product → items). */
export interface ItemDto {
  /** `<productId>-<sizeId>` */
  item: string;
  itemTableX: number;
  itemTableY: number;
  name: string;
  ean: string;
  sku: string;
  /** `yes` when in stock, `no` otherwise. */
  stock: string;
}

/** A product as the checkout API shows it (spec: Product (checkout)); later issues fill in more fields. */
export interface ProductDto {
  product: string;
  name: string;
  uri: string;
  sku: string;
  productSku: string;
  variantName: string;
  brand: string;
  brandName: string;
  brandUri: string;
  collection: string;
  collectionName: string;
  collectionUri: string;
  excerpt: string;
  description: string;
  category: string;
  categoryUri: string;
  categoryName: string[];
  platformProduct: string;
  platformVariant: string;
  itemQuantityMinimum: number;
  itemQuantityMultipleOf: number;
  price: string;
  priceAsNumber: number;
  priceBeforeDiscount: string;
  priceBeforeDiscountAsNumber: number;
  priceReduction: string;
  priceReductionAsNumber: number;
  discountPercent: number;
  showAsOnSale: boolean;
  newProduct: boolean;
  inStock: boolean;
  primaryVariant: boolean;
  itemTable: { x: string[]; y: string[]; dividerSymbol: string };
  items: ItemDto[];
  media: Record<string, string[]>;
  categories: Record<string, CategoryDto>;
  relatedProducts: Array<{ product: string; relation: string }>;
  countryOrigin?: string;
  metaTitle?: string;
  metaDescription?: string;
  metaKeywords?: string;
  harmCode?: string;
}

/** A category (spec: Category): `name` is the full path of names from the top category. */
export interface CategoryDto {
  category: string;
  name: string[];
  uri: string;
  inCategory?: string;
}

export interface FilterValueDto {
  value: string;
  count: number;
  totalCount: number;
  data: Record<string, unknown>;
}
export interface FilterDto {
  field: string;
  values: FilterValueDto[];
}

/** The body of `POST products` (spec: POST products request body); the skeleton honours search and paging. */
export const ProductQuerySchema = z
  .object({
    skipFirst: z.number().int().min(0).optional(),
    limit: z.number().int().min(1).max(1000).optional(),
    search: z.string().max(500).optional(),
    products: z.array(z.number().int()).optional(),
    categories: z.array(z.number().int()).optional(),
    brands: z.array(z.number().int()).optional(),
    collections: z.array(z.number().int()).optional(),
    onlyAvailable: z.boolean().optional(),
    relatedProducts: z.boolean().optional(),
  })
  .loose();
export type ProductQuery = z.infer<typeof ProductQuerySchema>;

export interface ProductListDto {
  products: ProductDto[];
  productCount: number;
  filter: FilterDto[];
}

/** What the cart needs to know of an item to put it in a selection. */
export interface ItemInfoDto {
  item: string;
  product: string;
  size: string;
  sku: string;
  ean: string;
  productName: string;
  brandName: string;
  sizeName: string;
  /** Price of one, in the pricelist's currency; 0 where no price is set yet. */
  priceAsNumber: number;
  stock: number;
}

/** The context prices are shown in: the market and pricelist of the visitor's country. */
export interface PriceContext {
  market?: string;
  pricelist?: string;
  language?: string;
}

/** Questions the edge and the cart ask the catalog synchronously (DESIGN §2). HTTP and in-process implementations. */
export interface CatalogClient {
  searchProducts(query: ProductQuery, context: PriceContext): Promise<ProductListDto>;
  getProduct(productId: string, context: PriceContext): Promise<ProductDto | null>;
  getItem(itemId: string, context: PriceContext): Promise<ItemInfoDto | null>;
}
