import type { CategoryDto, ItemInfoDto, PriceContext, ProductDto, ProductListDto, ProductQuery } from '@commerce/catalog-contracts';
import { defaultCatalogSettings, type CatalogSettings } from './catalog-settings';
import { systemClock, type CatalogRepository, type Clock } from './catalog.repository';
import { categoryDto } from './categories';
import { parseItemId, parseProductId, type ProductView, type Variant } from './product';
import { projection, toItemInfoDto, toProductDto, type Projection } from './product.mapper';
import type { SearchFilters, SearchIndex, SearchQuery } from './search-index.port';
import { visibleIn } from './visibility';

export interface CatalogReadDeps {
  catalog: CatalogRepository;
  search: SearchIndex;
  settings?: CatalogSettings;
  clock?: Clock;
}

/** The spec gives no default page size and says "with no body all products are returned"; this caps it. */
export const MAX_PAGE = 1000;

const projectionOf = (deps: Pick<CatalogReadDeps, 'settings' | 'clock'>, context: PriceContext): Projection =>
  projection(context, deps.settings ?? defaultCatalogSettings, (deps.clock ?? systemClock).now());

/**
 * `POST products`: the search index picks and orders the ids (free text, filters), the store gives the
 * data, and only variants visible in the context (market, pricelist) are kept.
 * TODO(query side, issue 6 part 3): filter `markets`/`pricelists` in the index (SearchDoc has them) so
 * that paging happens there; until then every match is read and paged here.
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
  const offset = query.skipFirst ?? 0;
  const limit = Math.min(query.limit ?? MAX_PAGE, MAX_PAGE);
  // Without a market or pricelist nothing is hidden by context, so the index can page.
  const pagedInIndex = context.market === undefined && context.pricelist === undefined;
  const searchQuery: SearchQuery = {
    ...(text ? { text } : { sort: [{ field: 'productId', order: 'asc' }] }),
    filters,
    offset: pagedInIndex ? offset : 0,
    limit: pagedInIndex ? limit : 100_000,
  };
  const found = await deps.search.search(searchQuery);
  const variantIds = found.ids.map(Number).filter(Number.isInteger);
  const visible = await loadVisibleVariants(deps.catalog, variantIds, context);
  const matching = variantIds.filter((id) => visible.has(id));
  const page = pagedInIndex ? matching : matching.slice(offset, offset + limit);
  const p = projectionOf(deps, context);
  const products = page.flatMap((id) => {
    const hit = visible.get(id);
    return hit ? [toProductDto(hit.view, hit.variant, p)] : [];
  });
  return { products, productCount: pagedInIndex ? found.total : matching.length, filter: [] };
}

/** `GET products/{id}`: a product visible in the context, or null. */
export async function getProduct(
  deps: Pick<CatalogReadDeps, 'catalog' | 'settings' | 'clock'>,
  productId: string,
  context: PriceContext,
): Promise<ProductDto | null> {
  const id = parseProductId(productId);
  if (id === null) return null;
  const hit = (await loadVisibleVariants(deps.catalog, [id], context)).get(id);
  return hit ? toProductDto(hit.view, hit.variant, projectionOf(deps, context)) : null;
}

/** An item of a product visible in the context, priced in its pricelist, as the cart needs it; or null. */
export async function getItem(
  deps: Pick<CatalogReadDeps, 'catalog' | 'settings' | 'clock'>,
  itemId: string,
  context: PriceContext,
): Promise<ItemInfoDto | null> {
  const parsed = parseItemId(itemId);
  if (!parsed) return null;
  const hit = (await loadVisibleVariants(deps.catalog, [parsed.variantId], context)).get(parsed.variantId);
  const item = hit?.variant.items.find((i) => i.id === itemId);
  if (!hit || !item) return null;
  return toItemInfoDto(hit.view, hit.variant, item, projectionOf(deps, context));
}

/** `GET categories`: the tree in the configured order, each followed by its children. */
export async function listCategories(deps: Pick<CatalogReadDeps, 'catalog'>): Promise<CategoryDto[]> {
  return (await deps.catalog.listCategories()).map(categoryDto);
}

/** The variants among these ids that a visitor in the context sees, with their product. */
export async function loadVisibleVariants(
  catalog: CatalogRepository,
  variantIds: number[],
  context: PriceContext,
): Promise<Map<number, { view: ProductView; variant: Variant }>> {
  const visible = new Map<number, { view: ProductView; variant: Variant }>();
  if (variantIds.length === 0) return visible;
  const productOf = await catalog.productIdsOfVariants(variantIds);
  const views = await catalog.loadProducts([...new Set(productOf.values())]);
  for (const view of views) {
    for (const variant of view.product.variants) {
      if (productOf.has(variant.id) && visibleIn(view, variant, context)) visible.set(variant.id, { view, variant });
    }
  }
  return visible;
}
