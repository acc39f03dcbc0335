import type { ProductDto } from '@commerce/catalog-contracts';
import { defaultCatalogSettings } from './catalog-settings';
import type { ProductView, Variant } from './product';
import { cachedProductDto, listingJson, projectionChangesAt } from './product-dto-cache';
import { projection } from './product.mapper';

const DAY = 24 * 3600 * 1000;
const variant = { id: 7, externalId: 'V-1' } as Variant;
const viewOf = (windows: Array<{ startsAt: string | null; stopsAt: string | null; variationExternalId?: string }> = []) =>
  ({
    product: { createdAt: '2026-01-01T00:00:00.000Z' },
    deliveryWindows: windows.map((w) => ({ windowExternalId: 'W', status: 'active', variationExternalId: 'V-1', ...w })),
  }) as unknown as ProductView;
const at = (iso: string) => projection({ market: '1', pricelist: 'SE' }, defaultCatalogSettings, new Date(iso));
const created = Date.parse('2026-01-01T00:00:00.000Z');

describe('product DTOs kept with their view (decision 58)', () => {
  it('knows when time alone changes a projection: the product stops being new, a window of the variant opens or closes', () => {
    const newUntil = created + defaultCatalogSettings.newProductDays * DAY;
    expect(projectionChangesAt(viewOf(), variant, at('2026-01-02T00:00:00Z'))).toBe(newUntil);
    expect(projectionChangesAt(viewOf(), variant, at('2027-01-01T00:00:00Z'))).toBe(Infinity);
    const windows = viewOf([
      { startsAt: '2027-02-01T00:00:00.000Z', stopsAt: '2027-03-01T00:00:00.000Z' },
      { startsAt: '2027-01-15T00:00:00.000Z', stopsAt: null, variationExternalId: 'V-OTHER' },
    ]);
    expect(projectionChangesAt(windows, variant, at('2027-01-01T00:00:00Z'))).toBe(Date.parse('2027-02-01T00:00:00.000Z'));
    expect(projectionChangesAt(windows, variant, at('2027-02-10T00:00:00Z'))).toBe(Date.parse('2027-03-01T00:00:00.000Z') + 1);
  });

  it('projects once per view, context and form until that time, then again; another context or view is its own', () => {
    const view = viewOf([{ startsAt: '2027-02-01T00:00:00.000Z', stopsAt: null }]);
    let made = 0;
    const project = () => ({ product: String(++made) }) as ProductDto;
    const first = cachedProductDto(view, variant, at('2027-01-01T00:00:00Z'), false, project);
    expect(cachedProductDto(view, variant, at('2027-01-31T23:59:59Z'), false, project)).toBe(first);
    expect(cachedProductDto(view, variant, at('2027-01-31T23:59:59Z'), true, project).product).toBe('2');
    expect(
      cachedProductDto(
        view,
        variant,
        projection({ market: '2', pricelist: 'US' }, defaultCatalogSettings, new Date('2027-01-05')),
        false,
        project,
      ).product,
    ).toBe('3');
    expect(cachedProductDto(view, variant, at('2027-02-01T00:00:00Z'), false, project).product).toBe('4');
    // A clock that goes back (tests) projects again too.
    expect(cachedProductDto(view, variant, at('2026-12-01T00:00:00Z'), false, project).product).toBe('5');
    expect(cachedProductDto(viewOf(), variant, at('2027-01-01T00:00:00Z'), false, project).product).toBe('6');
  });

  it('writes a listing answer as JSON.stringify does, keys in their order', () => {
    const product = { product: '7', name: 'Café "Sweater"', items: [{ item: '7-1' }] };
    const list = { products: [product, product], productCount: 2, filter: [{ field: 'brands', values: [] }] };
    expect(listingJson(list).toString('utf8')).toBe(JSON.stringify(list));
    const category = {
      found: 'category',
      category: { category: '3', name: ['Women'] },
      products: [],
      productCount: 0,
      filter: [],
      missing: undefined,
    };
    expect(listingJson(category).toString('utf8')).toBe(JSON.stringify(category));
    expect(listingJson({}).toString('utf8')).toBe('{}');
    expect(listingJson({ found: 'product', product }).toString('utf8')).toBe(JSON.stringify({ found: 'product', product }));
  });
});
