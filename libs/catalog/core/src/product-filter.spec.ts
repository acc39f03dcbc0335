import { catalogSettings } from './catalog-settings';
import type { CatalogRepository } from './catalog.repository';
import type { CatalogRef, Category } from './product';
import { buildFilter } from './product-filter';
import type { FacetCounts } from './search-index.port';

// The filter's order and data are kept per totals object (issue 28); what a request shows must still follow
// its own counts and every change of the refs the listing reads.
describe('buildFilter', () => {
  const settings = catalogSettings({ currencies: [], markets: [], productFilterFields: ['countryOrigin'] });
  const category = (id: number, name: string, parentId: number | null, position: number): Category => ({
    id,
    externalId: String(id),
    name,
    uri: name.toLowerCase(),
    parentId,
    position,
    configured: true,
    namePath: [name],
  });
  const totals: FacetCounts = {
    brand: { '1': 5, '2': 3, '9': 1 },
    categoryTree: { '10': 8, '11': 4 },
    collection: {},
    swatchDesc: { Red: 2, blue: 6 },
    countryOrigin: { SE: 4 },
  };
  const brand = (id: number, name: string): CatalogRef => ({ id, externalId: `B-${id}`, name, uri: name.toLowerCase() });
  let brands: Map<number, CatalogRef>;
  let categories: Category[];
  const catalog = {
    findRefs: (_kind: string, ids: number[]) => Promise.resolve(ids.flatMap((id) => (brands.has(id) ? [brands.get(id)!] : []))),
    listCategories: () => Promise.resolve(categories),
  } as unknown as CatalogRepository;
  const deps = { catalog, settings };
  const brandsOf = (filter: Awaited<ReturnType<typeof buildFilter>>) => filter.find((f) => f.field === 'brands')!.values;

  beforeEach(() => {
    // Brand 9 is gone from the catalog: left out.
    brands = new Map([
      [1, brand(1, 'Zeta')],
      [2, brand(2, 'Alpha')],
    ]);
    categories = [category(10, 'Women', null, 0), category(11, 'Tops', 10, 0)];
  });

  it('orders by name, tree and value, and fills in each request its own counts', async () => {
    const first = await buildFilter(deps, { brand: { '1': 2 }, swatchDesc: { red: 1 } }, totals);
    expect(first.map((f) => f.field)).toEqual(['brands', 'categories', 'collections', 'swatch.desc', 'countryOrigin']);
    expect(brandsOf(first)).toEqual([
      { value: '2', count: 0, totalCount: 3, data: { brand: '2', brandName: 'Alpha' } },
      { value: '1', count: 2, totalCount: 5, data: { brand: '1', brandName: 'Zeta' } },
    ]);
    expect(first[1]!.values.map((v) => [v.value, v.count, v.totalCount])).toEqual([
      ['10', 0, 8],
      ['11', 0, 4],
    ]);
    expect(first[3]!.values.map((v) => [v.value, v.count])).toEqual([
      ['blue', 0],
      ['Red', 1],
    ]);
    const second = await buildFilter(deps, { brand: { '2': 3 }, categoryTree: { '11': 1 } }, totals);
    expect(brandsOf(second).map((v) => [v.value, v.count])).toEqual([
      ['2', 3],
      ['1', 0],
    ]);
    expect(second[1]!.values.map((v) => [v.value, v.count])).toEqual([
      ['10', 0],
      ['11', 1],
    ]);
    expect(second[3]!.values.map((v) => [v.value, v.count])).toEqual([
      ['blue', 0],
      ['Red', 0],
    ]);
  });

  it('follows a renamed brand and a moved category with the same totals', async () => {
    await buildFilter(deps, {}, totals);
    brands.set(2, brand(2, 'Zulu'));
    categories = [category(11, 'Tops', null, 0), category(10, 'Women', null, 1)];
    const after = await buildFilter(deps, {}, totals);
    expect(brandsOf(after).map((v) => [v.value, v.data['brandName']])).toEqual([
      ['1', 'Zeta'],
      ['2', 'Zulu'],
    ]);
    expect(after[1]!.values.map((v) => v.value)).toEqual(['11', '10']);
  });

  it('shows a brand that came back, and new totals', async () => {
    await buildFilter(deps, {}, totals);
    brands.set(9, brand(9, 'Beta'));
    expect(brandsOf(await buildFilter(deps, {}, totals)).map((v) => v.value)).toEqual(['2', '9', '1']);
    const fewer = await buildFilter(deps, {}, { ...totals, brand: { '1': 1 } });
    expect(brandsOf(fewer)).toEqual([{ value: '1', count: 0, totalCount: 1, data: { brand: '1', brandName: 'Zeta' } }]);
  });
});
