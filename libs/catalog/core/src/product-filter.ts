import type { FilterDto, FilterValueDto } from '@commerce/catalog-contracts';
import type { CatalogSettings } from './catalog-settings';
import type { CatalogRepository } from './catalog.repository';
import { categoryDto } from './categories';
import { swatchOfName } from './product.mapper';
import type { FacetCounts, FacetField } from './search-index.port';

/** A field of the response's `filter` and the facet it is counted on. */
interface FilterField {
  field: string;
  facet: FacetField;
}

/** The spec's filter fields, then the store's extra ones (`productFilterFields`) in its order. */
export function filterFieldsOf(settings: CatalogSettings): FilterField[] {
  return [
    { field: 'brands', facet: 'brand' },
    { field: 'categories', facet: 'categoryTree' },
    { field: 'collections', facet: 'collection' },
    { field: 'swatch.desc', facet: 'swatchDesc' },
    ...settings.productFilterFields.map((field) => ({ field, facet: field })),
  ];
}

/** Facet values compare as the engines compare them: trimmed, whatever their case. */
const keyOf = (value: string): string => value.trim().toLowerCase();

/**
 * The response's `filter`: every value found among the products visible in the market (`totals`, the
 * value's `totalCount`), with `count` its matches in the current filtered set (0 when none) and `data`
 * as the spec's Filter section shows it. Brands and collections by name, categories in tree order,
 * swatches and extra fields by value.
 */
export async function buildFilter(
  deps: { catalog: CatalogRepository; settings: CatalogSettings },
  counts: FacetCounts,
  totals: FacetCounts,
): Promise<FilterDto[]> {
  const fields = filterFieldsOf(deps.settings);
  const valuesOf = (facet: FacetField) => {
    const current = new Map(Object.entries(counts[facet] ?? {}).map(([v, n]) => [keyOf(v), n]));
    return Object.entries(totals[facet] ?? {}).map(([value, totalCount]) => ({ value, totalCount, count: current.get(keyOf(value)) ?? 0 }));
  };
  const ids = (facet: FacetField) =>
    valuesOf(facet)
      .map((v) => Number(v.value))
      .filter(Number.isSafeInteger);

  const [brands, collections, categories] = await Promise.all([
    deps.catalog.findRefs('brand', ids('brand')),
    deps.catalog.findRefs('collection', ids('collection')),
    ids('categoryTree').length > 0 ? deps.catalog.listCategories() : Promise.resolve([]),
  ]);
  const refData = (refs: typeof brands, idKey: string, nameKey: string) =>
    new Map(refs.map((r) => [String(r.id), { sort: r.name, data: { [idKey]: String(r.id), [nameKey]: r.name } }]));
  const data: Partial<Record<FacetField, Map<string, { sort: string | number; data: Record<string, unknown> }>>> = {
    brand: refData(brands, 'brand', 'brandName'),
    collection: refData(collections, 'collection', 'collectionName'),
    // Categories come in tree order: their rank in it is the sort key.
    categoryTree: new Map(categories.map((c, rank) => [String(c.id), { sort: rank, data: { ...categoryDto(c) } }])),
  };

  return fields.map(({ field, facet }): FilterDto => {
    const known = data[facet];
    const values = valuesOf(facet).flatMap((v) => {
      // A value whose brand, collection or category is gone from the catalog is left out.
      const entry = known ? known.get(v.value) : { sort: v.value, data: dataOf(facet, v.value, deps.settings) };
      return entry ? [{ sort: entry.sort, dto: { value: v.value, count: v.count, totalCount: v.totalCount, data: entry.data } }] : [];
    });
    values.sort((a, b) =>
      typeof a.sort === 'number' && typeof b.sort === 'number'
        ? a.sort - b.sort
        : String(a.sort).localeCompare(String(b.sort)) || a.dto.value.localeCompare(b.dto.value),
    );
    return { field, values: values.map((v): FilterValueDto => v.dto) };
  });
}

function dataOf(facet: FacetField, value: string, settings: CatalogSettings): Record<string, unknown> {
  if (facet === 'swatchDesc') return { ...swatchOfName(value, settings) };
  return { [facet]: value };
}
