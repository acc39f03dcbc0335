import type { ItemInfoDto, PriceContext, ProductDto, ProductListDto, ProductQuery } from '@commerce/catalog-contracts';
import type { CatalogRepository } from './catalog.repository';
import { isShown, parseItemId, parseProductId, type Price, type ProductView, type Variant } from './product';
import { toItemInfoDto, toProductDto } from './product.mapper';
import type { SearchFilters, SearchIndex, SearchQuery } from './search-index.port';

export interface CatalogReadDeps {
  catalog: CatalogRepository;
  search: SearchIndex;
}

/** The spec gives no default page size and says "with no body all products are returned"; this caps it. */
export const MAX_PAGE = 1000;

/**
 * `POST products`: the search index picks and orders the ids (free text, filters, paging), the store
 * gives the data. Ids the index still has but the store no longer shows are skipped.
 */
export async function searchProducts(deps: CatalogReadDeps, query: ProductQuery, context: PriceContext): Promise<ProductListDto> {
  const text = query.search?.trim() || undefined;
  const filters: SearchFilters = {
    ...(query.products ? { ids: query.products.map(String) } : {}),
    ...(query.brands ? { brands: query.brands.map(String) } : {}),
    ...(query.collections ? { collections: query.collections.map(String) } : {}),
    ...(query.categories ? { categories: query.categories.map(String) } : {}),
    ...(query.onlyAvailable ? { inStock: true } : {}),
  };
  const searchQuery: SearchQuery = {
    ...(text ? { text } : { sort: [{ field: 'productId', order: 'asc' }] }),
    filters,
    offset: query.skipFirst ?? 0,
    limit: Math.min(query.limit ?? MAX_PAGE, MAX_PAGE),
  };
  const found = await deps.search.search(searchQuery);
  const variantIds = found.ids.map(Number).filter(Number.isInteger);
  const shown = await loadShownVariants(deps.catalog, variantIds);
  const prices = await pricesFor(deps.catalog, context, variantIds);
  const products = variantIds.flatMap((id) => {
    const hit = shown.get(id);
    return hit ? [toProductDto(hit.view, hit.variant, prices.get(id) ?? null)] : [];
  });
  // TODO(filters issue): facet counts (count/totalCount) for brands, categories and collections.
  return { products, productCount: found.total, filter: [] };
}

/** `GET products/{id}`: a shown product, or null. */
export async function getProduct(
  deps: Pick<CatalogReadDeps, 'catalog'>,
  productId: string,
  context: PriceContext,
): Promise<ProductDto | null> {
  const id = parseProductId(productId);
  if (id === null) return null;
  const hit = (await loadShownVariants(deps.catalog, [id])).get(id);
  if (!hit) return null;
  const prices = await pricesFor(deps.catalog, context, [id]);
  return toProductDto(hit.view, hit.variant, prices.get(id) ?? null);
}

/** An item of a shown product, as the cart needs it, or null. */
export async function getItem(deps: Pick<CatalogReadDeps, 'catalog'>, itemId: string, context: PriceContext): Promise<ItemInfoDto | null> {
  const parsed = parseItemId(itemId);
  if (!parsed) return null;
  const hit = (await loadShownVariants(deps.catalog, [parsed.variantId])).get(parsed.variantId);
  const item = hit?.variant.items.find((i) => i.id === itemId);
  if (!hit || !item) return null;
  const prices = await pricesFor(deps.catalog, context, [parsed.variantId]);
  return toItemInfoDto(hit.view, hit.variant, item, prices.get(parsed.variantId) ?? null);
}

async function loadShownVariants(
  catalog: CatalogRepository,
  variantIds: number[],
): Promise<Map<number, { view: ProductView; variant: Variant }>> {
  const shown = new Map<number, { view: ProductView; variant: Variant }>();
  if (variantIds.length === 0) return shown;
  const productOf = await catalog.productIdsOfVariants(variantIds);
  const views = await catalog.loadProducts([...new Set(productOf.values())]);
  for (const view of views) {
    for (const variant of view.product.variants) {
      if (productOf.has(variant.id) && isShown(view.product, variant)) shown.set(variant.id, { view, variant });
    }
  }
  return shown;
}

// TODO(pricelists issue): the pricelist comes from the visitor's country; until then only an explicit one prices.
async function pricesFor(catalog: CatalogRepository, context: PriceContext, variantIds: number[]): Promise<Map<number, Price>> {
  if (!context.pricelist || variantIds.length === 0) return new Map();
  return catalog.pricesOf(context.pricelist, variantIds);
}
