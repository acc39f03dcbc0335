import type { CategoryDto, ItemDto, ItemInfoDto, ProductDto } from '@commerce/catalog-contracts';
import { isShown, variantInStock, type CatalogRef, type Item, type Price, type Product, type ProductView, type Variant } from './product';
import type { SearchDoc } from './search-index.port';

/**
 * Prices are shown as plain numbers with two decimals until pricelists and currency formats arrive
 * (a later issue); a variant without a price in the visitor's pricelist costs 0.
 */
export const formatPrice = (amount: number): string => amount.toFixed(2);

const refId = (ref: CatalogRef | null): string => (ref ? String(ref.id) : '');

function categoryDto(ref: CatalogRef): CategoryDto {
  return { category: String(ref.id), name: [ref.name], uri: ref.uri };
}

/** The categories a variant is in: the product's folder first, then the variant's display categories. */
export function categoriesOf(view: ProductView, variant: Variant): CatalogRef[] {
  const ids = [...(view.product.categoryId === null ? [] : [view.product.categoryId]), ...variant.categoryIds];
  return [...new Set(ids)].map((id) => view.categories.get(id)).filter((c): c is CatalogRef => Boolean(c));
}

const sortedItems = (variant: Variant): Item[] => [...variant.items].sort((a, b) => a.position - b.position);

const mediaOf = (product: Product, variant: Variant): Record<string, string[]> => {
  const urls = product.media.filter((m) => m.variantExternalId === null || m.variantExternalId === variant.externalId).map((m) => m.url);
  return urls.length > 0 ? { standard: urls } : {};
};

/** A variant as the checkout API's "Product (checkout)". */
export function toProductDto(view: ProductView, variant: Variant, price: Price | null): ProductDto {
  const { product, brand, collection } = view;
  const categories = categoriesOf(view, variant);
  const main = categories[0] ?? null;
  const items = sortedItems(variant);
  const amount = price?.price ?? 0;
  const before = Math.max(price?.priceBeforeDiscount ?? amount, amount);
  const reduction = before - amount;
  const shownVariants = product.variants.filter((v) => isShown(product, v)).sort((a, b) => a.position - b.position);
  return {
    product: String(variant.id),
    name: product.name,
    uri: variant.uri,
    sku: `${product.sku}${variant.sku}`,
    productSku: product.sku,
    variantName: variant.name,
    brand: refId(brand),
    brandName: brand?.name ?? '',
    brandUri: brand?.uri ?? '',
    collection: refId(collection),
    collectionName: collection?.name ?? '',
    collectionUri: collection?.uri ?? '',
    excerpt: product.excerpt,
    description: product.description,
    category: main ? String(main.id) : '',
    categoryUri: main?.uri ?? '',
    categoryName: main ? [main.name] : [],
    platformProduct: String(product.id),
    platformVariant: String(variant.id),
    itemQuantityMinimum: variant.itemQuantityMinimum,
    itemQuantityMultipleOf: variant.itemQuantityMultipleOf,
    price: formatPrice(amount),
    priceAsNumber: amount,
    priceBeforeDiscount: formatPrice(before),
    priceBeforeDiscountAsNumber: before,
    priceReduction: formatPrice(reduction),
    priceReductionAsNumber: reduction,
    discountPercent: before > 0 ? Math.round((reduction / before) * 100) : 0,
    showAsOnSale: reduction > 0,
    newProduct: false,
    inStock: variantInStock(variant),
    primaryVariant: shownVariants[0]?.id === variant.id,
    itemTable: { x: items.map((i) => i.sizeName), y: [], dividerSymbol: 'x' },
    items: items.map((item, index): ItemDto => ({
      item: item.id,
      itemTableX: index,
      itemTableY: 0,
      name: item.sizeName,
      ean: item.ean,
      sku: item.sku,
      stock: item.stock > 0 || item.preorder ? 'yes' : 'no',
    })),
    media: mediaOf(product, variant),
    categories: Object.fromEntries(categories.map((c) => [String(c.id), categoryDto(c)])),
    relatedProducts: shownVariants.filter((v) => v.id !== variant.id).map((v) => ({ product: String(v.id), relation: 'variant' })),
    countryOrigin: product.countryOfOrigin,
    metaTitle: product.metaTitle,
    metaDescription: product.metaDescription,
    metaKeywords: product.metaKeywords,
    harmCode: product.harmCode,
  };
}

/** What the cart needs of one item. */
export function toItemInfoDto(view: ProductView, variant: Variant, item: Item, price: Price | null): ItemInfoDto {
  return {
    item: item.id,
    product: String(variant.id),
    size: String(item.sizeId),
    sku: item.sku,
    ean: item.ean,
    productName: view.product.name,
    brandName: view.brand?.name ?? '',
    sizeName: item.sizeName,
    priceAsNumber: price?.price ?? 0,
    stock: item.stock,
  };
}

/** The search document of a shown variant. */
export function toSearchDoc(view: ProductView, variant: Variant): SearchDoc {
  const { product, brand, collection } = view;
  const categories = categoriesOf(view, variant);
  return {
    id: String(variant.id),
    productId: variant.id,
    name: product.name,
    variantName: variant.name,
    brandName: brand?.name ?? '',
    collectionName: collection?.name ?? '',
    categoryNames: categories.map((c) => c.name),
    sku: `${product.sku}${variant.sku}`,
    uri: variant.uri,
    brand: brand ? String(brand.id) : null,
    collection: collection ? String(collection.id) : null,
    categories: categories.map((c) => String(c.id)),
    inStock: variantInStock(variant),
    createdAt: Date.parse(product.createdAt),
    modifiedAt: Date.parse(product.modifiedAt),
  };
}
