import { readFileSync } from 'node:fs';
import { parseDemoCatalog } from '@commerce/catalog-adapters';
import { createLogger } from '@commerce/shared-logging';
import { checkoutCall, type Endpoints } from '../e2e/skeleton.scenario';
import { expectMatchesSchema } from '../e2e/openapi-validator';
import { startAllInOne, type AllInOne } from '../../apps/all-in-one/src/all-in-one';
import { AllInOneConfigSchema } from '../../apps/all-in-one/src/config';

type Product = Record<string, any> & { product: string; categories: Record<string, { category: string; inCategory?: string }> };
type FilterField = { field: string; values: Array<{ value: string; count: number; totalCount: number; data: Record<string, unknown> }> };

/**
 * Products, their filter, URIs and categories through the public checkout API of the all-in-one, on the
 * demo shop (60 products, 3 markets): run on the embedded engines (`catalog-api.spec.ts`) and on
 * Meilisearch (`catalog-api.int-spec.ts`). Every expectation is checked against the products themselves:
 * a filter's result is the full listing narrowed by the products' own fields.
 */
export function catalogApiSuite(title: string, engines: () => Record<string, string> = () => ({})): void {
  describe(title, () => {
    let running: AllInOne;
    let endpoints: Endpoints;
    let everything: Product[];
    let categories: Array<{ category: string; name: string[]; uri: string; inCategory?: string }>;

    const post = async (body: unknown, token?: string) => {
      const res = await checkoutCall(endpoints, 'POST', '/products', { body, ...(token ? { token } : {}) });
      if (res.status === 200) expectMatchesSchema('ProductList', res.body);
      else expectMatchesSchema('ErrorEnvelope', res.body);
      return res;
    };
    const productIds = (res: { body: Record<string, any> }) => (res.body['products'] as Product[]).map((p) => p.product);
    const idsWhere = (predicate: (p: Product) => boolean) => everything.filter(predicate).map((p) => p.product);
    const field = (res: { body: Record<string, any> }, name: string): FilterField =>
      (res.body['filter'] as FilterField[]).find((f) => f.field === name)!;
    /** The category and every category above it, from GET categories. */
    const withAncestors = (id: string): string[] => {
      const c = categories.find((x) => x.category === id);
      return c ? [id, ...(c.inCategory ? withAncestors(c.inCategory) : [])] : [id];
    };
    const inCategory = (p: Product, id: string) => Object.keys(p.categories).some((c) => withAncestors(c).includes(id));

    beforeAll(async () => {
      const config = AllInOneConfigSchema.parse({ PORT: '0', DATABASE_URL: 'pglite://memory', LOG_LEVEL: 'silent', ...engines() });
      const demo = parseDemoCatalog(JSON.parse(readFileSync(config.DEMO_CATALOG, 'utf8')));
      running = await startAllInOne(config, createLogger('catalog-api-test', 'silent'), demo);
      endpoints = {
        checkout: `${running.url}/api/checkout`,
        soap: `${running.url}/ams/system/service/module/soap/api`,
        soapUser: { username: 'demo', password: 'demo-secret', namespace: 'urn:commerce-service:backoffice' },
      };
      everything = (await post({})).body['products'];
      categories = (await checkoutCall(endpoints, 'GET', '/categories')).body['categories'];
    }, 120_000);

    // Closing waits for the consumers and relays to stop: more than jest's 5 s default on a loaded machine.
    afterAll(async () => {
      await running?.close();
    }, 60_000);

    describe('POST products without a body', () => {
      it('returns every product of the market (Sweden for a new session), counted, with every filter field', async () => {
        const res = await post(undefined);
        expect(res.status).toBe(200);
        expect(res.body['productCount']).toBe(everything.length);
        expect(everything.length).toBeGreaterThan(100);
        expect(everything.every((p) => p.price.endsWith(' SEK'))).toBe(true);
        expect((res.body['filter'] as FilterField[]).map((f) => f.field)).toEqual([
          'brands',
          'categories',
          'collections',
          'swatch.desc',
          'countryOrigin',
        ]);
      });

      it('lists in the catalogue order: a product’s variants together, its primary variant first', async () => {
        const products = everything.map((p) => p.platformProduct);
        const firstSeen = [...new Set(products)];
        expect(firstSeen.map(Number)).toEqual([...firstSeen.map(Number)].sort((a, b) => a - b));
        for (const id of firstSeen) {
          const variants = everything.filter((p) => p.platformProduct === id);
          expect(everything.indexOf(variants.at(-1)!) - everything.indexOf(variants[0]!)).toBe(variants.length - 1);
          expect(variants[0]!.primaryVariant).toBe(true);
        }
      });

      it('gives every filter value count = totalCount, counted over the products and described by its data', async () => {
        const res = await post({});
        for (const f of res.body['filter'] as FilterField[]) {
          expect(f.values.length).toBeGreaterThan(0);
          for (const v of f.values) expect(v.count).toBe(v.totalCount);
        }
        const brands = field(res, 'brands');
        for (const v of brands.values) {
          expect(v.count).toBe(idsWhere((p) => p.brand === v.value).length);
          expect(v.data).toEqual({ brand: v.value, brandName: everything.find((p) => p.brand === v.value)!.brandName });
        }
        const names = brands.values.map((v) => v.data['brandName'] as string);
        expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
        for (const v of field(res, 'collections').values) {
          expect(v.count).toBe(idsWhere((p) => p.collection === v.value).length);
          expect(v.data).toEqual({ collection: v.value, collectionName: everything.find((p) => p.collection === v.value)!.collectionName });
        }
        const cats = field(res, 'categories');
        // In tree order, a parent counting its subcategories' products, the data a Category.
        expect(cats.values.map((v) => v.value)).toEqual(
          categories.map((c) => c.category).filter((c) => cats.values.some((v) => v.value === c)),
        );
        for (const v of cats.values) {
          expect(v.count).toBe(idsWhere((p) => inCategory(p, v.value)).length);
          expect(v.data).toEqual(categories.find((c) => c.category === v.value));
        }
        const women = cats.values.find((v) => (v.data['name'] as string[]).join('/') === 'Women')!;
        const womenTops = cats.values.find((v) => (v.data['name'] as string[]).join('/') === 'Women/Tops')!;
        expect(women.count).toBeGreaterThan(womenTops.count);
        for (const v of field(res, 'swatch.desc').values) {
          expect(v.count).toBe(idsWhere((p) => p.swatch?.desc === v.value).length);
          expect(v.data).toEqual(everything.find((p) => p.swatch?.desc === v.value)!.swatch);
        }
        expect(field(res, 'swatch.desc').values.some((v) => typeof v.data['hex'] === 'string')).toBe(true);
        for (const v of field(res, 'countryOrigin').values) {
          expect(v.count).toBe(idsWhere((p) => p.countryOrigin === v.value).length);
          expect(v.data).toEqual({ countryOrigin: v.value });
        }
      });
    });

    describe('POST products: each request field', () => {
      it('pages with skipFirst and limit; productCount counts without paging', async () => {
        const page = await post({ skipFirst: 5, limit: 7 });
        expect(page.body['productCount']).toBe(everything.length);
        expect(productIds(page)).toEqual(everything.slice(5, 12).map((p) => p.product));
        const last = await post({ skipFirst: everything.length - 2, limit: 10 });
        expect(productIds(last)).toEqual(everything.slice(-2).map((p) => p.product));
        expect(productIds(await post({ skipFirst: everything.length }))).toEqual([]);
      });

      it('restricts to brands, collections and products; an id may be a string of digits', async () => {
        const [a, b] = [...new Set(everything.map((p) => p.brand))];
        expect(productIds(await post({ brands: [Number(a), b] }))).toEqual(idsWhere((p) => p.brand === a || p.brand === b));
        const collection = everything[0]!.collection;
        expect(productIds(await post({ collections: [Number(collection)] }))).toEqual(idsWhere((p) => p.collection === collection));
        const some = [everything[3]!.product, everything[40]!.product];
        expect(productIds(await post({ products: some.map(Number) }))).toEqual(some);
      });

      it('restricts to a category and everything below it', async () => {
        const top = categories.find((c) => !c.inCategory)!;
        const expected = idsWhere((p) => inCategory(p, top.category));
        expect(expected.length).toBeGreaterThan(idsWhere((p) => top.category in p.categories).length);
        expect(productIds(await post({ categories: [Number(top.category)] }))).toEqual(expected);
      });

      it('combines fields with AND and values of one field with OR; an empty list restricts nothing', async () => {
        const brand = everything[0]!.brand;
        const [c1, c2] = categories.filter((c) => !c.inCategory).map((c) => c.category);
        const res = await post({ brands: [Number(brand)], categories: [Number(c1), Number(c2)], collections: [] });
        expect(productIds(res)).toEqual(idsWhere((p) => p.brand === brand && (inCategory(p, c1!) || inCategory(p, c2!))));
        expect(res.body['productCount']).toBeGreaterThan(0);
      });

      it('silkProduct gives every variant of that product', async () => {
        const silk = everything.find((p) => everything.filter((q) => q.platformProduct === p.platformProduct).length > 2)!.platformProduct;
        const res = await post({ silkProduct: Number(silk) });
        expect(productIds(res)).toEqual(idsWhere((p) => p.platformProduct === silk));
        expect(res.body['productCount']).toBeGreaterThan(2);
      });

      it('swatch.desc matches a variant name whatever its case, flat or nested', async () => {
        const expected = idsWhere((p) => p.swatch?.desc === 'Navy' || p.swatch?.desc === 'Oat');
        expect(productIds(await post({ 'swatch.desc': ['navy', 'Oat'] }))).toEqual(expected);
        expect(productIds(await post({ swatch: { desc: ['NAVY', 'oat'] } }))).toEqual(expected);
      });

      it('items.name matches a size; with onlyAvailable that size must be available', async () => {
        const has = (p: Product, name: string, available: boolean) =>
          p.items.some((i: any) => i.name === name && (!available || i.stock === 'yes'));
        expect(productIds(await post({ 'items.name': ['XS', '38'] }))).toEqual(idsWhere((p) => has(p, 'XS', false) || has(p, '38', false)));
        const available = idsWhere((p) => has(p, 'XS', true) || has(p, '38', true));
        expect(available.length).toBeLessThan(idsWhere((p) => has(p, 'XS', false) || has(p, '38', false)).length);
        expect(productIds(await post({ items: { name: ['XS', '38'] }, onlyAvailable: true }))).toEqual(available);
      });

      it('onlyAvailable alone keeps products that can be bought', async () => {
        const res = await post({ onlyAvailable: true });
        expect(productIds(res)).toEqual(idsWhere((p) => p.inStock));
        expect(res.body['productCount']).toBeLessThan(everything.length);
      });

      it('filters by the uri of a product or a category', async () => {
        const product = everything[10]!;
        expect(productIds(await post({ uri: { uri: product.uri, for: ['product'] } }))).toEqual([product.product]);
        expect(productIds(await post({ uri: { uri: product.uri, for: ['category'] } }))).toEqual([]);
        const category = categories.find((c) => c.inCategory && categories.some((d) => d.inCategory === c.category))!;
        expect(productIds(await post({ uri: { uri: `/${category.uri}/`, for: ['category', 'product'] } }))).toEqual(
          idsWhere((p) => inCategory(p, category.category)),
        );
        expect((await post({ uri: { uri: 'no/such/thing', for: ['category'] } })).body['productCount']).toBe(0);
      });

      it('takes an extra product filter field the store enables (countryOrigin)', async () => {
        const res = await post({ countryOrigin: ['PT', 'JP'] });
        expect(productIds(res)).toEqual(idsWhere((p) => p.countryOrigin === 'PT' || p.countryOrigin === 'JP'));
        // Only count changes with a filter: the field's own values keep their totalCount.
        const values = field(res, 'countryOrigin').values;
        expect(values.find((v) => v.value === 'IT')).toMatchObject({
          count: 0,
          totalCount: idsWhere((p) => p.countryOrigin === 'IT').length,
        });
      });

      it('searches, and counts the filter over the matches', async () => {
        const res = await post({ search: 'cafe', limit: 2 });
        const all = (await post({ search: 'cafe' })).body['products'] as Product[];
        expect(res.body['productCount']).toBe(all.length);
        expect(all.length).toBeGreaterThan(2);
        expect(all.every((p) => /caf[eé]/i.test(p.name))).toBe(true);
        for (const v of field(res, 'brands').values) {
          expect(v.count).toBe(all.filter((p) => p.brand === v.value).length);
          expect(v.totalCount).toBe(idsWhere((p) => p.brand === v.value).length);
        }
        // Search with filters: AND.
        const brand = all[0]!.brand;
        expect(productIds(await post({ search: 'café', brands: [Number(brand)] }))).toEqual(
          all.filter((p) => p.brand === brand).map((p) => p.product),
        );
        // Non-Latin scripts and a typo in a long word.
        expect((await post({ search: 'платье' })).body['productCount']).toBeGreaterThan(0);
        expect((await post({ search: 'sweatr' })).body['products'].map((p: Product) => p.name)).toEqual(
          expect.arrayContaining(['Café Sweater']),
        );
      });

      it('sorts on each sortOrder field, a product without the value last', async () => {
        const sorted = async (field: string, order: string) =>
          (await post({ sortOrder: [{ field, order }] })).body['products'] as Product[];
        const byPrice = (await sorted('priceAsNumber', 'asc')).map((p) => p.priceAsNumber);
        expect(byPrice).toEqual([...byPrice].sort((a, b) => a - b));
        const byPriceDesc = (await sorted('priceAsNumber', 'desc')).map((p) => p.priceAsNumber);
        expect(byPriceDesc).toEqual([...byPriceDesc].sort((a, b) => b - a));
        const uris = (await sorted('uri', 'desc')).map((p) => p.uri.toLowerCase());
        expect(uris).toEqual([...uris].sort().reverse());
        const collections = (await sorted('collectionUri', 'asc')).map((p) => p.collectionUri);
        const named = collections.filter((c) => c !== '');
        expect(collections).toEqual([...[...named].sort(), ...collections.filter((c) => c === '')]);
        expect((await sorted('categoryItemSort', 'asc')).map((p) => p.product)).toEqual(everything.map((p) => p.product));
        expect((await sorted('categoryItemSort', 'desc')).map((p) => p.product)).toEqual(everything.map((p) => p.product).reverse());
        for (const f of ['createdAt', 'modifiedAt']) {
          expect((await sorted(f, 'desc')).map((p) => p.product).sort()).toEqual(everything.map((p) => p.product).sort());
        }
        // Several keys: the second orders what the first leaves tied; order defaults to asc.
        const two = (await post({ sortOrder: [{ field: 'collectionUri' }, { field: 'priceAsNumber', order: 'desc' }] })).body[
          'products'
        ] as Product[];
        for (let i = 1; i < two.length; i++)
          if (two[i]!.collectionUri === two[i - 1]!.collectionUri)
            expect(two[i]!.priceAsNumber).toBeLessThanOrEqual(two[i - 1]!.priceAsNumber);
      });

      it('gives related products by id and media, or in full with relatedProducts: true', async () => {
        const silk = everything.find((p) => p.relatedProducts.length > 0)!;
        const brief = (await post({ products: [Number(silk.product)] })).body['products'][0] as Product;
        expect(Object.keys(brief.relatedProducts[0]).sort()).toEqual(['media', 'product', 'relation']);
        const full = (await post({ products: [Number(silk.product)], relatedProducts: true })).body['products'][0] as Product;
        const related = full.relatedProducts[0];
        const { relatedProducts: _, ...expected } = everything.find((p) => p.product === related.product)!;
        expect(related).toEqual({ ...expected, relation: 'variant' });
      });

      it('indents the JSON with ?pretty', async () => {
        const res = await fetch(`${endpoints.checkout}/products?pretty`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"limit":1}',
        });
        const text = await res.text();
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(text).toMatch(/^\{\n {2}"token": /);
        expect(JSON.parse(text).products).toHaveLength(1);
      });
    });

    describe('the market of the session', () => {
      it('shows only what is sold in the market, in its currency, and counts totalCount there', async () => {
        const token = (await checkoutCall(endpoints, 'GET', '/selection')).body['token'] as string;
        expect((await checkoutCall(endpoints, 'PUT', '/countries/US', { token })).status).toBe(200);
        const us = await post({}, token);
        const usProducts = us.body['products'] as Product[];
        expect(us.body['productCount']).toBe(usProducts.length);
        expect(usProducts.length).toBeLessThan(everything.length);
        expect(usProducts.every((p) => p.price.startsWith('$'))).toBe(true);
        for (const v of field(us, 'brands').values) expect(v.totalCount).toBe(usProducts.filter((p) => p.brand === v.value).length);
        // Paging happens among the market's products.
        expect(productIds(await post({ skipFirst: 3, limit: 4 }, token))).toEqual(usProducts.slice(3, 7).map((p) => p.product));

        const hidden = everything.find((p) => !usProducts.some((q) => q.product === p.product))!;
        const notThere = await checkoutCall(endpoints, 'GET', `/products/${hidden.product}`, { token });
        expect(notThere.status).toBe(404);
        expect(notThere.body['errors']).toEqual({ product: 'not found' });
        expect((await post({ products: [Number(hidden.product)] }, token)).body['productCount']).toBe(0);
      });
    });

    describe('GET products/{id}', () => {
      it('answers a product as the listing shows it', async () => {
        const res = await checkoutCall(endpoints, 'GET', `/products/${everything[7]!.product}`);
        expect(res.status).toBe(200);
        expect(res.body['product']).toEqual(everything[7]);
      });

      it.each(['999999', 'abc', '1.5', '-1'])('answers 404 {product: "not found"} for %s', async (id) => {
        const res = await checkoutCall(endpoints, 'GET', `/products/${id}`);
        expect(res.status).toBe(404);
        expectMatchesSchema('ErrorEnvelope', res.body);
        expect(res.body['errors']).toEqual({ product: 'not found' });
        expect(res.body['token']).toBeTruthy();
      });
    });

    describe('POST uri', () => {
      const uri = (body: unknown) => checkoutCall(endpoints, 'POST', '/uri', { body });

      it('finds a product by its uri', async () => {
        const product = everything[12]!;
        const res = await uri({ uri: product.uri, for: ['product', 'category'] });
        expect(res.status).toBe(200);
        expectMatchesSchema('UriProduct', res.body);
        expect(res.body).toMatchObject({ found: 'product', product });
      });

      it('finds a category with its products, paged, and their filter', async () => {
        const category = categories.find((c) => c.name.join('/') === 'Women')!;
        const inIt = idsWhere((p) => inCategory(p, category.category));
        const res = await uri({ uri: category.uri, for: ['category'], limit: 5, skipFirst: 2 });
        expect(res.status).toBe(200);
        expectMatchesSchema('UriCategory', res.body);
        expect(res.body['found']).toBe('category');
        expect(res.body['category']).toEqual(category);
        expect(res.body['productCount']).toBe(inIt.length);
        expect(productIds(res)).toEqual(inIt.slice(2, 7));
        const brands = field(res, 'brands');
        for (const v of brands.values)
          expect(v.count).toBe(everything.filter((p) => inCategory(p, category.category) && p.brand === v.value).length);
        // Any other field of POST products narrows the listing.
        const brand = brands.values[0]!.value;
        const narrowed = await uri({ uri: category.uri, for: ['category'], brands: [Number(brand)] });
        expect(productIds(narrowed)).toEqual(idsWhere((p) => inCategory(p, category.category) && p.brand === brand));
      });

      it('answers only the kinds named in for: 404 {uri: "not found"} otherwise', async () => {
        const product = everything[12]!;
        for (const body of [
          { uri: product.uri, for: ['category'] },
          { uri: categories[0]!.uri, for: ['product'] },
          { uri: 'no-such-page', for: ['product', 'category'] },
        ]) {
          const res = await uri(body);
          expect([body, res.status]).toEqual([body, 404]);
          expectMatchesSchema('ErrorEnvelope', res.body);
          expect(res.body['errors']).toEqual({ uri: 'not found' });
        }
      });

      it('refuses a body without uri or for, or with kinds it does not know', async () => {
        const res = await uri({ uri: 42, for: ['page'], limit: 0 });
        expect(res.status).toBe(400);
        expect(Object.keys(res.body['errors']).sort()).toEqual(['for.0', 'limit', 'uri']);
        expect((await uri({ uri: 'women' })).body['errors']).toEqual({ for: expect.any(String) });
        expect((await checkoutCall(endpoints, 'POST', '/uri')).status).toBe(400);
      });
    });

    describe('GET categories', () => {
      it('lists the tree in the configured order, three levels deep, names and uris as full paths', async () => {
        const res = await checkoutCall(endpoints, 'GET', '/categories');
        expect(res.status).toBe(200);
        expect(Object.keys(res.body).sort()).toEqual(['categories', 'token']);
        expect(categories.slice(0, 3).map((c) => c.name)).toEqual([['Women'], ['Women', 'Tops'], ['Women', 'Tops', 'Shirts']]);
        expect(categories.map((c) => c.name.length)).toContain(3);
        for (const [i, c] of categories.entries()) {
          expect(Object.keys(c).sort()).toEqual(
            c.name.length > 1 ? ['category', 'inCategory', 'name', 'uri'] : ['category', 'name', 'uri'],
          );
          if (c.inCategory) {
            const parent = categories.findIndex((p) => p.category === c.inCategory);
            expect(parent).toBeLessThan(i);
            expect(c.name.slice(0, -1)).toEqual(categories[parent]!.name);
            expect(c.uri.startsWith(`${categories[parent]!.uri}/`)).toBe(true);
          }
        }
      });
    });

    describe('POST products: bad input', () => {
      it.each<[string, unknown, string[]]>([
        [
          'wrong types',
          { limit: 'ten', skipFirst: true, search: 5, onlyAvailable: 'yes', relatedProducts: 1 },
          ['limit', 'onlyAvailable', 'relatedProducts', 'search', 'skipFirst'],
        ],
        ['negative or huge paging', { skipFirst: -1, limit: 1001 }, ['limit', 'skipFirst']],
        ['a limit of 0 or a fraction', { limit: 0, skipFirst: 1.5 }, ['limit', 'skipFirst']],
        [
          'unknown sort fields and directions',
          {
            sortOrder: [
              { field: 'price', order: 'asc' },
              { field: 'uri', order: 'up' },
            ],
          },
          ['sortOrder.0.field', 'sortOrder.1.order'],
        ],
        ['a sort entry with a key it does not know', { sortOrder: [{ field: 'uri', by: 1 }] }, ['sortOrder.0.by']],
        [
          'malformed ids',
          { brands: ['x'], categories: [0], products: [1.5], collections: 'all', silkProduct: 'p1' },
          ['brands.0', 'categories.0', 'collections', 'products.0', 'silkProduct'],
        ],
        ['malformed names', { 'swatch.desc': 'Navy', 'items.name': [''] }, ['items.name.0', 'swatch.desc']],
        ['a uri filter without for', { uri: { uri: 'women' } }, ['uri.for']],
        ['unknown fields', { colour: ['red'], harmCode: ['6110'] }, ['colour', 'harmCode']],
      ])('answers %s with 400 and one errors key per bad field', async (_name, body, keys) => {
        const res = await post(body);
        expect(res.status).toBe(400);
        expect(Object.keys(res.body['errors']).sort()).toEqual(keys);
        expect(res.body['token']).toBeTruthy();
      });

      it('names the rule in the message', async () => {
        const res = await post({ limit: 5000, sortOrder: [{ field: 'colour' }] });
        expect(res.body['errors']).toEqual({
          limit: 'must be an integer between 1 and 1000',
          'sortOrder.0.field': 'must be one of uri, categoryItemSort, collectionUri, priceAsNumber, createdAt, modifiedAt',
        });
      });

      it('answers a body that is not an object with 400', async () => {
        const res = await post([1, 2]);
        expect(res.status).toBe(400);
        expect(res.body['errors']).toEqual({ body: 'must be a JSON object' });
      });
    });
  });
}
