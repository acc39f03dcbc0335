import type { FilterDto, FilterValueDto } from '@commerce/catalog-contracts';
import type { CatalogSettings } from './catalog-settings';
import type { CatalogRepository } from './catalog.repository';
import { categoryDto } from './categories';
import type { CatalogRef, Category } from './product';
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

/** A value of the filter as the totals and the refs give it, in the answer's order; `key` compares it with the counts. */
interface OrderedValue {
  value: string;
  key: string;
  totalCount: number;
  data: Record<string, unknown>;
}

/**
 * The filter of each totals object without the request's counts: the values in order, with their data. Kept while
 * the settings and the refs read are the same objects (the listing's kept reads give the same refs until a change;
 * the engines keep `facetTotals` as one object until a write or their bound), so a listing request fills in its
 * counts instead of ordering ~100 values with `localeCompare` and making their data again (issue 28).
 */
const ordered = new WeakMap<
  FacetCounts,
  { settings: CatalogSettings; refs: readonly object[]; fields: Array<FilterField & { values: OrderedValue[] }> }
>();

const sameObjects = (a: readonly object[], b: readonly object[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

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
  const ids = (facet: FacetField) =>
    Object.keys(totals[facet] ?? {})
      .map(Number)
      .filter(Number.isSafeInteger);
  const [brands, collections, categories] = await Promise.all([
    deps.catalog.findRefs('brand', ids('brand')),
    deps.catalog.findRefs('collection', ids('collection')),
    ids('categoryTree').length > 0 ? deps.catalog.listCategories() : Promise.resolve([]),
  ]);
  const refs = [...brands, ...collections, ...categories];
  let kept = ordered.get(totals);
  if (!kept || kept.settings !== deps.settings || !sameObjects(kept.refs, refs)) {
    kept = { settings: deps.settings, refs, fields: orderedFilter(deps.settings, totals, brands, collections, categories) };
    ordered.set(totals, kept);
  }
  return kept.fields.map(({ field, facet, values }): FilterDto => {
    const current = new Map(Object.entries(counts[facet] ?? {}).map(([v, n]) => [keyOf(v), n]));
    return {
      field,
      values: values.map((v): FilterValueDto => ({
        value: v.value,
        count: current.get(v.key) ?? 0,
        totalCount: v.totalCount,
        data: v.data,
      })),
    };
  });
}

/** Each field's values in the totals, with their data, in the answer's order (values whose ref is gone left out). */
function orderedFilter(
  settings: CatalogSettings,
  totals: FacetCounts,
  brands: CatalogRef[],
  collections: CatalogRef[],
  categories: Category[],
): Array<FilterField & { values: OrderedValue[] }> {
  const refData = (refs: CatalogRef[], idKey: string, nameKey: string) =>
    new Map(refs.map((r) => [String(r.id), { sort: r.name, data: { [idKey]: String(r.id), [nameKey]: r.name } }]));
  const data: Partial<Record<FacetField, Map<string, { sort: string | number; data: Record<string, unknown> }>>> = {
    brand: refData(brands, 'brand', 'brandName'),
    collection: refData(collections, 'collection', 'collectionName'),
    // Categories come in tree order: their rank in it is the sort key.
    categoryTree: new Map(categories.map((c, rank) => [String(c.id), { sort: rank, data: { ...categoryDto(c) } }])),
  };

  return filterFieldsOf(settings).map(({ field, facet }) => {
    const known = data[facet];
    const values = Object.entries(totals[facet] ?? {}).flatMap(([value, totalCount]) => {
      // A value whose brand, collection or category is gone from the catalog is left out.
      const entry = known ? known.get(value) : { sort: value, data: dataOf(facet, value, settings) };
      return entry ? [{ sort: entry.sort, value: { value, key: keyOf(value), totalCount, data: entry.data } }] : [];
    });
    values.sort((a, b) =>
      typeof a.sort === 'number' && typeof b.sort === 'number'
        ? a.sort - b.sort
        : String(a.sort).localeCompare(String(b.sort)) || a.value.value.localeCompare(b.value.value),
    );
    return { field, facet, values: values.map((v) => v.value) };
  });
}

function dataOf(facet: FacetField, value: string, settings: CatalogSettings): Record<string, unknown> {
  if (facet === 'swatchDesc') return { ...swatchOfName(value, settings) };
  return { [facet]: value };
}
