import type { ItemDto, ItemExternalIds, ItemInfoDto, PriceContext, ProductDto, RelatedProductDto } from '@commerce/catalog-contracts';
import { defaultCatalogSettings, type CatalogSettings } from './catalog-settings';
import { categoryDto } from './categories';
import { toMajorUnits } from './money';
import { discountOf, priceOf, pricesOf } from './pricing';
import { isShown, type Category, type Item, type Price, type Product, type ProductView, type Variant } from './product';
import { textForms } from './product-text';
import type { SearchDoc } from './search-index.port';
import { itemAvailable, marketsOf, sellableStock, variantAvailable, visibleIn } from './visibility';

/** What a projection depends on besides the product: the visitor's market and pricelist, the store's settings, the time. */
export interface Projection {
  context: PriceContext;
  settings: CatalogSettings;
  now: Date;
}

export const projection = (
  context: PriceContext = {},
  settings: CatalogSettings = defaultCatalogSettings,
  now = new Date(),
): Projection => ({
  context,
  settings,
  now,
});

const refId = (ref: { id: number } | null): string => (ref ? String(ref.id) : '');

/** The categories a variant is in: the product's folder first (its main category), then the variant's display categories. */
export function categoriesOf(view: ProductView, variant: Variant): Category[] {
  const ids = [...(view.product.categoryId === null ? [] : [view.product.categoryId]), ...variant.categoryIds];
  return [...new Set(ids)].map((id) => view.categories.get(id)).filter((c): c is Category => Boolean(c));
}

const sortedItems = (variant: Variant): Item[] => [...variant.items].sort((a, b) => a.position - b.position);

/** Variants shown at all (status), in position order; the first is the primary variant (decision 11). */
const shownVariants = (product: Product): Variant[] =>
  product.variants.filter((v) => isShown(product, v)).sort((a, b) => a.position - b.position);

/** Image URLs of a variant: the product's own images and the variant's, in the ERP's order. */
const imageUrls = (product: Product, variant: Variant): string[] =>
  product.media.filter((m) => m.variantExternalId === null || m.variantExternalId === variant.externalId).map((m) => m.url);

/** Media by kind: each kind of the store configuration's `mediaSizes` applies its URL template to every image. */
export function mediaOf(product: Product, variant: Variant, settings: CatalogSettings): Record<string, string[]> {
  const urls = imageUrls(product, variant);
  return Object.fromEntries(
    Object.entries(settings.mediaSizes).map(([kind, template]) => [kind, urls.map((url) => template.split('{url}').join(url))]),
  );
}

export const ITEM_TABLE_DIVIDER = 'x';

/**
 * The size grid. Two-dimensional when every size name is `<a>x<b>` (`32x34`): x the distinct first parts,
 * y the distinct second parts, in order of appearance; otherwise x is the size names and y empty.
 */
export function itemTableOf(items: Item[]): { x: string[]; y: string[]; dividerSymbol: string; cells: Array<[number, number]> } {
  const pairs = items
    .map((i) => /^([^x]+)x([^x]+)$/.exec(i.sizeName))
    .map((m) => [m?.[1]?.trim() ?? '', m?.[2]?.trim() ?? ''] as const)
    .filter(([a, b]) => a !== '' && b !== '');
  if (items.length > 0 && pairs.length === items.length) {
    const x = [...new Set(pairs.map(([a]) => a))];
    const y = [...new Set(pairs.map(([, b]) => b))];
    return { x, y, dividerSymbol: ITEM_TABLE_DIVIDER, cells: pairs.map(([a, b]) => [x.indexOf(a), y.indexOf(b)]) };
  }
  const x = [...new Set(items.map((i) => i.sizeName))];
  return { x, y: [], dividerSymbol: ITEM_TABLE_DIVIDER, cells: items.map((i) => [x.indexOf(i.sizeName), 0]) };
}

/** The variant's stock unit: its size table's, else that of its sizes' table. */
export function stockUnitOf(view: ProductView, variant: Variant): string {
  const tables = [variant.sizeTableExternalId, ...variant.items.map((i) => i.sizeTableExternalId)];
  for (const id of tables) {
    const unit = id ? view.sizeTables.get(id)?.stockUnit : undefined;
    if (unit) return unit;
  }
  return '';
}

/** `swatch`: the variant's name, with a hex when the store configuration maps the name to one. */
export function swatchOf(variant: Variant, settings: CatalogSettings): { desc: string; hex?: string } | undefined {
  return swatchOfName(variant.name, settings);
}

/** A swatch by its name (`swatch.desc`), as the product and the `filter` show it. */
export function swatchOfName(name: string, settings: CatalogSettings): { desc: string; hex?: string } | undefined {
  const desc = name.trim();
  if (!desc) return undefined;
  const hex = settings.swatches[desc] ?? Object.entries(settings.swatches).find(([name]) => name.toLowerCase() === desc.toLowerCase())?.[1];
  return hex ? { desc, hex } : { desc };
}

export const isNewProduct = (product: Product, settings: CatalogSettings, now: Date): boolean =>
  now.getTime() - Date.parse(product.createdAt) < settings.newProductDays * 24 * 3600 * 1000;

/** The price fields of a product: formatted in the pricelist's currency, numbers in major units. */
function priceFields(price: Price | null, { context, settings }: Projection) {
  const currency = price?.currency || settings.marketCurrency(context.market);
  const amount = price?.price ?? 0;
  const before = price?.priceBeforeDiscount ?? amount;
  const { reduction, percent } = price ? discountOf(price) : { reduction: 0, percent: 0 };
  const digits = price?.digits ?? 2;
  return {
    price: settings.formatMinor(amount, currency),
    priceBeforeDiscount: settings.formatMinor(before, currency),
    priceReduction: settings.formatMinor(reduction, currency),
    priceAsNumber: toMajorUnits(amount, digits),
    priceBeforeDiscountAsNumber: toMajorUnits(before, digits),
    priceReductionAsNumber: toMajorUnits(reduction, digits),
    discountPercent: percent,
    showAsOnSale: reduction > 0,
  };
}

/** A variant as the checkout API's "Product (checkout)", priced and filtered for the projection's context. */
export function toProductDto(view: ProductView, variant: Variant, p: Projection): ProductDto {
  const { product, brand, collection } = view;
  const categories = categoriesOf(view, variant);
  const main = categories[0] ?? null;
  const items = sortedItems(variant);
  const table = itemTableOf(items);
  const shown = shownVariants(product);
  const primary = shown[0] ?? variant;
  const price = p.context.pricelist !== undefined ? priceOf(view, variant, p.context.pricelist) : null;
  const excerpt = textForms(product.excerpt);
  const description = textForms(product.description);
  const swatch = swatchOf(variant, p.settings);
  return {
    product: String(variant.id),
    name: product.name,
    uri: variant.uri,
    sku: `${product.sku}${variant.sku}`,
    productSku: product.sku,
    variantName: variant.name,
    countryOrigin: product.countryOfOrigin,
    stockUnit: stockUnitOf(view, variant),
    brand: refId(brand),
    brandName: brand?.name ?? '',
    brandUri: brand?.uri ?? '',
    collection: refId(collection),
    collectionName: collection?.name ?? '',
    collectionUri: collection?.uri ?? '',
    excerpt: excerpt.plain,
    excerptHtml: excerpt.html,
    description: description.plain,
    descriptionHtml: description.html,
    metaTitle: product.metaTitle,
    metaDescription: product.metaDescription,
    metaKeywords: product.metaKeywords,
    category: main ? String(main.id) : '',
    categoryUri: main?.uri ?? '',
    categoryName: main ? categoryDto(main).name : [],
    platformProduct: String(product.id),
    platformVariant: String(variant.id),
    silkProduct: String(product.id),
    silkVariant: String(variant.id),
    harmCode: product.harmCode,
    harmCodeDescription: product.harmCodeDescription,
    canonicalUri: primary.uri,
    itemQuantityMinimum: variant.itemQuantityMinimum,
    itemQuantityMultipleOf: variant.itemQuantityMultipleOf,
    ...priceFields(price, p),
    newProduct: isNewProduct(product, p.settings, p.now),
    inStock: variantAvailable(view, variant, p.now),
    primaryVariant: primary.id === variant.id,
    itemTable: { x: table.x, y: table.y, dividerSymbol: table.dividerSymbol },
    items: items.map((item, index): ItemDto => {
      const available = itemAvailable(view, variant, item, p.now);
      const [itemTableX, itemTableY] = table.cells[index] ?? [0, 0];
      return {
        item: item.id,
        itemTableX,
        itemTableY,
        name: item.sizeName,
        ean: item.ean,
        sku: item.sku,
        stock: available ? 'yes' : 'no',
        inStock: available,
      };
    }),
    media: mediaOf(product, variant, p.settings),
    ...(swatch ? { swatch } : {}),
    categories: Object.fromEntries(categories.map((c) => [String(c.id), categoryDto(c)])),
    relatedProducts: shown
      .filter((v) => v.id !== variant.id && visibleIn(view, v, p.context))
      .map((v): RelatedProductDto => ({ product: String(v.id), relation: 'variant', media: mediaOf(product, v, p.settings) })),
  };
}

/** What the cart needs of one item, priced in the projection's pricelist. */
/** An item's product, variation, size and brand by the ERP's ids (brand '' when none; decision 113). */
export const externalIdsOf = (view: ProductView, variant: Variant, item: Item): ItemExternalIds => ({
  product: view.product.externalId,
  variation: variant.externalId,
  size: item.sizeExternalId,
  brand: view.brand?.externalId ?? '',
});

export function toItemInfoDto(view: ProductView, variant: Variant, item: Item, p: Projection): ItemInfoDto {
  const price = p.context.pricelist !== undefined ? priceOf(view, variant, p.context.pricelist) : null;
  return {
    item: item.id,
    product: String(variant.id),
    size: String(item.sizeId),
    sku: item.sku,
    ean: item.ean,
    productName: view.product.name,
    brandName: view.brand?.name ?? '',
    sizeName: item.sizeName,
    external: externalIdsOf(view, variant, item),
    priceAsNumber: price ? toMajorUnits(price.price, price.digits) : 0,
    stock: sellableStock(view, variant, item),
  };
}

/**
 * `categoryItemSort`: no per-category order arrives from the ERP, so it is the catalog's own order,
 * products as they were first sent (their ids), each product's variants in the ERP's order (decision 29).
 */
export const categoryItemSortOf = (product: Product, variant: Variant): number =>
  product.id * 10_000 + Math.min(Math.max(variant.position, 0), 9_999);

/**
 * The search document of a shown variant. Market and price visibility are fields, not exclusions: one
 * document serves every market, and the query side filters on `markets` (`'*'` = every market) and
 * `pricelists`, and sorts on `prices[<pricelist>]`.
 */
export function toSearchDoc(view: ProductView, variant: Variant, now: Date = new Date()): SearchDoc {
  const { product, brand, collection } = view;
  const categories = categoriesOf(view, variant);
  const prices = pricesOf(view, variant);
  const tree = new Set<string>();
  for (const c of categories) {
    // Up through the parents the view holds (the repository loads every ancestor of a product's categories).
    for (
      let at: Category | undefined = c;
      at && !tree.has(String(at.id));
      at = at.parentId === null ? undefined : view.categories.get(at.parentId)
    )
      tree.add(String(at.id));
  }
  const items = sortedItems(variant);
  return {
    id: String(variant.id),
    productId: variant.id,
    name: product.name,
    variantName: variant.name,
    brandName: brand?.name ?? '',
    collectionName: collection?.name ?? '',
    categoryNames: [...new Set(categories.flatMap((c) => (c.namePath.length > 0 ? c.namePath : [c.name])))],
    sku: `${product.sku}${variant.sku}`,
    uri: variant.uri,
    brand: brand ? String(brand.id) : null,
    collection: collection ? String(collection.id) : null,
    categories: categories.map((c) => String(c.id)),
    categoryTree: [...tree],
    inStock: variantAvailable(view, variant, now),
    createdAt: Date.parse(product.createdAt),
    modifiedAt: Date.parse(product.modifiedAt),
    markets: marketsOf(variant),
    pricelists: [...prices.keys()].sort(),
    prices: Object.fromEntries([...prices].map(([pricelist, price]) => [pricelist, toMajorUnits(price.price, price.digits)])),
    swatchDesc: variant.name.trim(),
    itemNames: items.map((i) => i.sizeName),
    availableItemNames: items.filter((i) => itemAvailable(view, variant, i, now)).map((i) => i.sizeName),
    collectionUri: collection?.uri ?? '',
    categoryItemSort: categoryItemSortOf(product, variant),
    primaryVariant: shownVariants(product)[0]?.id === variant.id,
    platformProduct: product.id,
    countryOrigin: product.countryOfOrigin,
    harmCode: product.harmCode,
    stockUnit: stockUnitOf(view, variant),
  };
}
