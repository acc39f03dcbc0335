import {
  MAX_PAGE,
  noteItemExternalIds,
  ProductQuerySchema,
  UriQuerySchema,
  queryErrors,
  type CategoryDto,
  type ItemInfoDto,
  type ParsedProductQuery,
  type PriceContext,
  type ProductDto,
  type ProductListDto,
  type ProductQuery,
  type RelatedProductDto,
  type UriQuery,
  type UriResultDto,
} from '@commerce/catalog-contracts';
import { ValidationError, type ErrorFields } from '@commerce/shared-errors';
import { defaultCatalogSettings, type CatalogSettings } from './catalog-settings';
import { systemClock, type CatalogRepository, type Clock } from './catalog.repository';
import { categoryDto } from './categories';
import { parseItemId, parseProductId, type ProductView, type Variant } from './product';
import { buildFilter, filterFieldsOf } from './product-filter';
import { cachedProductDto } from './product-dto-cache';
import { externalIdsOf, projection, toItemInfoDto, toProductDto, type Projection } from './product.mapper';
import type { ExtraFilterField, SearchFilters, SearchIndex, SearchQuery, SearchScope, SortKey } from './search-index.port';
import { foldText } from './slug';
import { visibleIn } from './visibility';

export interface CatalogReadDeps {
  catalog: CatalogRepository;
  search: SearchIndex;
  settings?: CatalogSettings;
  clock?: Clock;
  /**
   * The store as the listing reads it (page views, refs, the category tree): a short-lived cache
   * (`cachedCatalogReads`, decision 38) in the service; `catalog` when absent.
   */
  listingReads?: CatalogRepository;
}

const projectionOf = (deps: Pick<CatalogReadDeps, 'settings' | 'clock'>, context: PriceContext): Projection =>
  projection(context, deps.settings ?? defaultCatalogSettings, (deps.clock ?? systemClock).now());

/**
 * A query as the catalog takes it: the edge has parsed the public body already, but the catalog checks
 * again (another process may call it) and is the one that knows which extra filter fields are enabled.
 */
function checkedQuery(deps: Pick<CatalogReadDeps, 'settings'>, input: ProductQuery): ParsedProductQuery {
  const parsed = ProductQuerySchema.safeParse(input);
  if (!parsed.success) throw new ValidationError(queryErrors(parsed.error.issues));
  const enabled: readonly string[] = (deps.settings ?? defaultCatalogSettings).productFilterFields;
  const unknown: ErrorFields = {};
  for (const field of Object.keys(parsed.data.filterFields ?? {})) if (!enabled.includes(field)) unknown[field] = 'unknown field';
  if (Object.keys(unknown).length > 0) throw new ValidationError(unknown);
  return parsed.data;
}

/** What the visitor's context lets them see at all: the market's variants, priced in its pricelist. */
const scopeOf = (context: PriceContext): SearchScope => ({
  ...(context.market !== undefined ? { market: context.market } : {}),
  ...(context.pricelist !== undefined ? { pricelist: context.pricelist } : {}),
});

/** A list field restricts only when it names something: `brands: []` is "no brand chosen", not "no brand". */
const some = <T>(values: T[] | undefined): values is T[] => values !== undefined && values.length > 0;

/** A URI as a client may send it (`/Women/Tops/`, percent-encoded) to the form the catalog stores. */
export function normalizeUri(uri: string): string {
  let decoded = uri;
  try {
    decoded = decodeURIComponent(uri);
  } catch {
    // Not percent-encoded after all: taken as it is.
  }
  return foldText(decoded.trim()).replace(/^\/+|\/+$/g, '');
}

/** The request's fields as index filters: AND across fields, OR within one. */
async function filtersOf(deps: CatalogReadDeps, query: ParsedProductQuery): Promise<SearchFilters> {
  const filters: SearchFilters = {};
  if (some(query.products)) filters.ids = query.products.map(String);
  if (query.silkProduct !== undefined) filters.platformProducts = [query.silkProduct];
  if (some(query.brands)) filters.brands = query.brands.map(String);
  if (some(query.collections)) filters.collections = query.collections.map(String);
  if (some(query.categories)) filters.categories = query.categories.map(String);
  if (some(query['swatch.desc'])) filters.swatchDescs = query['swatch.desc'];
  const itemNames = query['items.name'];
  // "onlyAvailable: with items.name, those items must be available"; alone, any item of the product.
  if (some(itemNames)) {
    if (query.onlyAvailable) filters.availableItemNames = itemNames;
    else filters.itemNames = itemNames;
  } else if (query.onlyAvailable) filters.inStock = true;
  if (query.uri) {
    const target = await deps.catalog.findUri(normalizeUri(query.uri.uri));
    filters.uri = {
      ids: query.uri.for.includes('product') && target.variantId !== null ? [String(target.variantId)] : [],
      categories: query.uri.for.includes('category') && target.categoryId !== null ? [String(target.categoryId)] : [],
    };
  }
  const extra = Object.entries(query.filterFields ?? {}).filter(([, values]) => values.length > 0);
  if (extra.length > 0) filters.extra = Object.fromEntries(extra) as Partial<Record<ExtraFilterField, string[]>>;
  return filters;
}

/**
 * The order: the requested `sortOrder` (then the id, so that ties come out the same on both engines);
 * without one, relevance when there is text, else the catalog's order (`categoryItemSort`).
 */
function sortOf(query: ParsedProductQuery, context: PriceContext, text: string | undefined): SortKey[] | undefined {
  if (!some(query.sortOrder))
    return text
      ? undefined
      : [
          { field: 'categoryItemSort', order: 'asc' },
          { field: 'productId', order: 'asc' },
        ];
  const keys = query.sortOrder.flatMap(({ field, order }): SortKey[] => {
    if (field !== 'priceAsNumber') return [{ field, order }];
    // Without a pricelist every price shows as 0: nothing to sort by.
    return context.pricelist !== undefined ? [{ field: 'price', pricelist: context.pricelist, order }] : [];
  });
  return [...keys, { field: 'productId', order: 'asc' }];
}

async function searchQueryOf(deps: CatalogReadDeps, query: ParsedProductQuery, context: PriceContext): Promise<SearchQuery> {
  const text = query.search?.trim() || undefined;
  const sort = sortOf(query, context, text);
  return {
    ...(text ? { text } : {}),
    scope: scopeOf(context),
    filters: await filtersOf(deps, query),
    ...(sort ? { sort } : {}),
    offset: query.skipFirst ?? 0,
    limit: query.limit ?? MAX_PAGE,
  };
}

/**
 * One page of products with their count and filter. The index scopes, filters, orders, pages and counts
 * (the facets of the matches, and the facets of everything in scope for `totalCount`); the store gives
 * the page's data. A page may come out shorter than the index said when the index has not yet caught up
 * with a change that hid a product.
 */
async function listProducts(
  deps: CatalogReadDeps,
  search: SearchQuery,
  context: PriceContext,
  fullRelated: boolean,
): Promise<ProductListDto> {
  const settings = deps.settings ?? defaultCatalogSettings;
  const facets = filterFieldsOf(settings).map((f) => f.facet);
  const [found, totals] = await Promise.all([
    deps.search.search({ ...search, facets }),
    deps.search.facetTotals(search.scope ?? {}, facets),
  ]);
  const reads = deps.listingReads ?? deps.catalog;
  const variantIds = found.ids.map(Number).filter(Number.isSafeInteger);
  const visible = await loadVisibleVariants(reads, variantIds, context);
  const p = projectionOf(deps, context);
  const products = variantIds.flatMap((id) => {
    const hit = visible.get(id);
    return hit ? [cachedProductDto(hit.view, hit.variant, p, fullRelated, () => productDtoOf(hit.view, hit.variant, p, fullRelated))] : [];
  });
  const filter = await buildFilter({ catalog: reads, settings }, found.facets ?? {}, totals);
  return { products, productCount: found.total, filter };
}

/** `relatedProducts: true`: each related variant in full (without its own related products), else its id, relation and media. */
function productDtoOf(view: ProductView, variant: Variant, p: Projection, fullRelated: boolean): ProductDto {
  const dto = toProductDto(view, variant, p);
  if (!fullRelated) return dto;
  const variants = new Map(view.product.variants.map((v) => [String(v.id), v]));
  return {
    ...dto,
    relatedProducts: dto.relatedProducts.map((related): RelatedProductDto => {
      const other = variants.get(related.product);
      if (!other) return related;
      const { relatedProducts: _nested, ...full } = toProductDto(view, other, p);
      return { ...full, relation: related.relation };
    }),
  };
}

/** `POST products`: search, filters, order and paging in the index, scoped to the visitor's market and pricelist. */
export async function searchProducts(deps: CatalogReadDeps, input: ProductQuery, context: PriceContext): Promise<ProductListDto> {
  const query = checkedQuery(deps, input);
  return listProducts(deps, await searchQueryOf(deps, query, context), context, query.relatedProducts === true);
}

/**
 * `POST uri`: what a URI leads to, trying the kinds in the order `for` names them (a URI that is both a
 * product's and a category's answers as the first kind asked). A product must be visible in the context;
 * a category answers with its products (and those of its subcategories), paged and filtered by the rest
 * of the body as in `POST products`. Null when nothing of the kinds asked is there.
 */
export async function resolveUri(deps: CatalogReadDeps, input: UriQuery, context: PriceContext): Promise<UriResultDto | null> {
  const parsed = UriQuerySchema.safeParse(input);
  if (!parsed.success) throw new ValidationError(queryErrors(parsed.error.issues));
  const query = checkedQuery(deps, parsed.data.query);
  const target = await deps.catalog.findUri(normalizeUri(parsed.data.uri));
  for (const kind of new Set(parsed.data.for)) {
    if (kind === 'product' && target.variantId !== null) {
      const hit = (await loadVisibleVariants(deps.catalog, [target.variantId], context)).get(target.variantId);
      if (hit)
        return {
          found: 'product',
          product: productDtoOf(hit.view, hit.variant, projectionOf(deps, context), query.relatedProducts === true),
        };
    }
    if (kind === 'category' && target.categoryId !== null) {
      const category = (await deps.catalog.listCategories()).find((c) => c.id === target.categoryId);
      if (!category) continue;
      const search = await searchQueryOf(deps, query, context);
      search.filters = { ...search.filters, uri: { ids: [], categories: [String(category.id)] } };
      const list = await listProducts(deps, search, context, query.relatedProducts === true);
      return { found: 'category', category: categoryDto(category), ...list };
    }
  }
  return null;
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
  if (!hit) return null;
  // The ERP's ids of its items beside it (not in it): the edge keeps them on the cart's line at the add.
  return noteItemExternalIds(
    toProductDto(hit.view, hit.variant, projectionOf(deps, context)),
    hit.variant.items.map((item) => [item.id, externalIdsOf(hit.view, hit.variant, item)] as const),
  );
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

/** `getItem` of many items with one read of their variants: those found, in no set order. */
export async function getItems(
  deps: Pick<CatalogReadDeps, 'catalog' | 'settings' | 'clock'>,
  itemIds: readonly string[],
  context: PriceContext,
): Promise<ItemInfoDto[]> {
  const wanted = [...new Set(itemIds)].flatMap((id) => {
    const parsed = parseItemId(id);
    return parsed ? [{ id, variantId: parsed.variantId }] : [];
  });
  if (wanted.length === 0) return [];
  const hits = await loadVisibleVariants(deps.catalog, [...new Set(wanted.map((w) => w.variantId))], context);
  const projection = projectionOf(deps, context);
  return wanted.flatMap(({ id, variantId }) => {
    const hit = hits.get(variantId);
    const item = hit?.variant.items.find((i) => i.id === id);
    return hit && item ? [toItemInfoDto(hit.view, hit.variant, item, projection)] : [];
  });
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
  const wanted = new Set(variantIds);
  for (const view of await catalog.loadProductsOfVariants(variantIds)) {
    for (const variant of view.product.variants) {
      if (wanted.has(variant.id) && visibleIn(view, variant, context)) visible.set(variant.id, { view, variant });
    }
  }
  return visible;
}
