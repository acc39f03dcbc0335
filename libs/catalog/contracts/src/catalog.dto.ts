import type { ProductQuery, UriQuery } from './product-query';

/** An item of a product as the checkout API shows it (spec: Product → items). */
export interface ItemDto {
  /** `<productId>-<sizeId>` */
  item: string;
  /** Index into the product's `itemTable.x` / `itemTable.y`. */
  itemTableX: number;
  itemTableY: number;
  /** The size's name. */
  name: string;
  ean: string;
  sku: string;
  /** `yes` when it can be bought (in stock, or preorder), `no` otherwise. */
  stock: 'yes' | 'no';
  /** The same as a boolean (the spec's order-history variant of an item). */
  inStock: boolean;
}

/** A related product: without `relatedProducts: true` in the request only its id, relation and media. */
export type RelatedProductDto = { product: string; relation: string; media: Record<string, string[]> } & Partial<
  Omit<ProductDto, 'product' | 'media' | 'relatedProducts'>
>;

/** A product as the checkout API shows it (spec: Product (checkout)): one variant of an ERP product. */
export interface ProductDto {
  /** The variant's id. */
  product: string;
  name: string;
  uri: string;
  /** Product SKU followed by the variant's. */
  sku: string;
  productSku: string;
  variantName: string;
  countryOrigin: string;
  /** The size table's stock unit (`pcs`, `pair`), '' when none. */
  stockUnit: string;
  brand: string;
  brandName: string;
  brandUri: string;
  collection: string;
  collectionName: string;
  collectionUri: string;
  /** Plain text; the `…Html` twins are escaped HTML with paragraphs and line breaks (or the ERP's own HTML). */
  excerpt: string;
  excerptHtml: string;
  description: string;
  descriptionHtml: string;
  metaTitle: string;
  metaDescription: string;
  metaKeywords: string;
  /** The main category (the ERP's folder): id, full-path URI, full path of names. */
  category: string;
  categoryUri: string;
  categoryName: string[];
  platformProduct: string;
  platformVariant: string;
  silkProduct: string;
  silkVariant: string;
  harmCode: string;
  harmCodeDescription: string;
  /** The primary variant's uri. */
  canonicalUri: string;
  itemQuantityMinimum: number;
  itemQuantityMultipleOf: number;
  /** Formatted in the pricelist's currency as the store configures it (prefix + number + suffix). */
  price: string;
  priceBeforeDiscount: string;
  priceReduction: string;
  /** Major units (`499.95`). */
  priceAsNumber: number;
  priceBeforeDiscountAsNumber: number;
  priceReductionAsNumber: number;
  /** Whole percent off the price before discount. */
  discountPercent: number;
  showAsOnSale: boolean;
  newProduct: boolean;
  inStock: boolean;
  primaryVariant: boolean;
  itemTable: { x: string[]; y: string[]; dividerSymbol: string };
  items: ItemDto[];
  /** Media kind → image URLs. */
  media: Record<string, string[]>;
  /** The variant's colour: its name, and a hex when the store configuration knows the name. */
  swatch?: { desc: string; hex?: string };
  categories: Record<string, CategoryDto>;
  relatedProducts: RelatedProductDto[];
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

export interface ProductListDto {
  products: ProductDto[];
  /** Matches without paging. */
  productCount: number;
  filter: FilterDto[];
}

/** What `POST uri` found: a product, or a category with its products (paged) and their filter; null for nothing of the kinds asked. */
export type UriResultDto = { found: 'product'; product: ProductDto } | ({ found: 'category'; category: CategoryDto } & ProductListDto);

/** An item's product, variation, size and brand by the ERP's ids. */
export interface ItemExternalIds {
  product: string;
  variation: string;
  size: string;
  brand: string;
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
  /** The ERP's ids (what it sent in products_Update; brand '' when none): the SOAP order events name lines by them. */
  external: ItemExternalIds;
  /** Price of one in major units of the pricelist's currency; 0 when the context names no pricelist. */
  priceAsNumber: number;
  /** Items the stock holds: the ERP's units divided by the size table's `stockdivisor`, rounded down (decision 22). */
  stock: number;
}

/** A pricelist the ERP sent (`pricelists_Update`): what the edge needs to price a B2B buyer's session in it. */
export interface PricelistDto {
  pricelist: string;
  currency: string;
}

/**
 * The context prices are shown in: the market and pricelist of the visitor's country (the edge derives
 * them from the store configuration). A variant not displayed in the market, or not priced in the
 * pricelist, is invisible there. Without a market or pricelist (internal callers) that rule is not applied.
 */
export interface PriceContext {
  market?: string;
  pricelist?: string;
  language?: string;
}

/** Questions the edge and the cart ask the catalog synchronously (DESIGN §2). HTTP and in-process implementations. */
export interface CatalogClient {
  /** `POST products`; a query the catalog refuses (a field the store does not enable) throws a ValidationError. */
  searchProducts(query: ProductQuery, context: PriceContext): Promise<ProductListDto>;
  getProduct(productId: string, context: PriceContext): Promise<ProductDto | null>;
  getItem(itemId: string, context: PriceContext): Promise<ItemInfoDto | null>;
  /** Many items in one question (issue 28: a checkout's lines): those the catalog has, in no set order; the others left out. */
  getItems(itemIds: readonly string[], context: PriceContext): Promise<ItemInfoDto[]>;
  /** `GET categories`: the tree in the configured order, each category followed by its children. */
  listCategories(): Promise<CategoryDto[]>;
  /** `POST uri`: only the kinds named in `for`, in that order of preference; null when none is found. */
  resolveUri(query: UriQuery, context: PriceContext): Promise<UriResultDto | null>;
  /** A pricelist by the ERP's id, with its currency; null when the ERP has not sent it. */
  getPricelist(pricelistId: string): Promise<PricelistDto | null>;
  /**
   * `searchProducts` and `resolveUri` as the UTF-8 JSON of the same answers (a JSON object), where the
   * client receives them as bytes (the HTTP client): a caller that only wraps the answer in its own
   * envelope splices the bytes in instead of decoding, parsing and serialising ~60 KB again (decision 58).
   */
  searchProductsJson?(query: ProductQuery, context: PriceContext): Promise<Buffer>;
  resolveUriJson?(query: UriQuery, context: PriceContext): Promise<Buffer | null>;
}
