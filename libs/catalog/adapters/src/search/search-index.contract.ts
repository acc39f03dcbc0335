import type { SearchDoc, SearchIndex } from '@commerce/catalog-core';

/**
 * The matching rules of DESIGN §4, written once and run on both search adapters (the embedded engine in
 * `*.spec.ts`, Meilisearch in `*.int-spec.ts`) so that they cannot drift apart.
 */
export function searchIndexContract(
  makeIndex: () => Promise<SearchIndex>,
  close: (index: SearchIndex) => Promise<void> = async () => undefined,
): void {
  let index: SearchIndex;

  const doc = (id: number, name: string, extra: Partial<SearchDoc> = {}): SearchDoc => ({
    id: String(id),
    productId: id,
    name,
    variantName: '',
    brandName: '',
    collectionName: '',
    categoryNames: [],
    sku: '',
    uri: `p-${id}`,
    brand: null,
    collection: null,
    categories: [],
    inStock: true,
    createdAt: 1_700_000_000_000 + id,
    modifiedAt: 1_700_000_000_000 + id,
    markets: ['*'],
    pricelists: [],
    prices: {},
    swatchDesc: '',
    itemNames: [],
    availableItemNames: [],
    collectionUri: '',
    primaryVariant: true,
    platformProduct: id,
    ...extra,
  });

  const docs: SearchDoc[] = [
    doc(1, 'Café Sweater', { brandName: 'Nordwear', brand: '10', categories: ['100'], categoryNames: ['Knitwear'] }),
    doc(2, 'Cafe Racer Jacket', { brandName: 'Roadline', brand: '11', categories: ['101'], categoryNames: ['Jackets'] }),
    doc(3, 'Jacket Classic', { brandName: 'Nordwear', brand: '10', categories: ['101'], categoryNames: ['Jackets'], inStock: false }),
    doc(4, 'Red Wool Scarf', { brand: '11', collection: '20', categories: ['102'] }),
    doc(5, 'Red Cotton Shirt', { brand: '10', collection: '20', categories: ['103'] }),
    doc(6, 'Платье летнее', { categories: ['104'] }),
    doc(7, 'Φόρεμα Καλοκαιρινό', { categories: ['104'] }),
    doc(8, 'Silk 連衣裙', { categories: ['104'] }),
    doc(9, 'Sun Hat', { categories: ['105'] }),
    doc(10, 'Wool Sweater in Red', { brand: '10', categories: ['100'] }),
    doc(12, 'Woll Socks', { categories: ['106'] }),
  ];

  const find = async (text: string): Promise<string[]> => (await index.search({ text, offset: 0, limit: 50 })).ids;

  beforeAll(async () => {
    index = await makeIndex();
    await index.clear();
    await index.upsert(docs);
  }, 60_000);
  afterAll(async () => {
    if (index) await close(index);
  });

  describe('diacritics and case', () => {
    it('finds an accented word from its plain spelling (cafe finds Café)', async () => {
      expect(await find('cafe')).toEqual(expect.arrayContaining(['1', '2']));
    });
    it('finds a plain word from its accented spelling (café finds Cafe)', async () => {
      expect(await find('café')).toEqual(expect.arrayContaining(['1', '2']));
    });
    it('ignores case', async () => {
      expect(await find('SWEATER')).toEqual(expect.arrayContaining(['1', '10']));
    });
  });

  describe('non-Latin scripts', () => {
    it('finds a Cyrillic word whatever its case', async () => {
      expect(await find('платье')).toEqual(['6']);
    });
    it('finds a Greek word', async () => {
      expect(await find('φόρεμα')).toEqual(['7']);
    });
    it('finds a Chinese word', async () => {
      expect(await find('連衣裙')).toEqual(['8']);
    });
    it('tolerates one typo in a long Cyrillic word', async () => {
      expect(await find('платьа')).toEqual(['6']);
    });
  });

  describe('typos', () => {
    it('tolerates one missing letter in a word of more than 3 characters (jackt finds Jacket)', async () => {
      expect(await find('jackt')).toEqual(expect.arrayContaining(['2', '3']));
    });
    it('tolerates one extra letter (jackket finds Jacket)', async () => {
      expect(await find('jackket')).toEqual(expect.arrayContaining(['2', '3']));
    });
    it('tolerates one changed letter (jscket finds Jacket)', async () => {
      expect(await find('jscket')).toEqual(expect.arrayContaining(['2', '3']));
    });
    it('tolerates one changed letter in a word of exactly 4 characters (woll finds Wool)', async () => {
      expect(await find('woll scarf')).toEqual(['4']);
    });
    it('does not tolerate two typos (jckt finds nothing)', async () => {
      expect(await find('jckt')).toEqual([]);
    });
    it('does not tolerate a typo in a word of 3 characters or fewer (hst does not find Hat)', async () => {
      expect(await find('hst')).toEqual([]);
      expect(await find('sun hst')).toEqual([]);
    });
    it('finds a short word spelt right (hat finds Sun Hat)', async () => {
      expect(await find('hat')).toEqual(['9']);
    });
    it('ranks exact matches above a match with a typo (wool: Wool first, Woll last)', async () => {
      const ids = await find('wool');
      expect(ids).toHaveLength(3);
      expect(ids.slice(0, 2).sort()).toEqual(['10', '4']);
      expect(ids[2]).toBe('12');
    });
  });

  describe('phrases', () => {
    it('requires every word of the query (red wool finds Red Wool Scarf, not Red Cotton Shirt)', async () => {
      const ids = await find('red wool');
      expect(ids).toContain('4');
      expect(ids).not.toContain('5');
    });
    it('ranks words that stand together above words far apart', async () => {
      expect(await find('red wool')).toEqual(['4', '10']);
    });
    it('matches the last word as a prefix (red sca finds Red Wool Scarf)', async () => {
      expect(await find('red sca')).toEqual(['4']);
    });
    it('matches other words only whole (re wool finds nothing)', async () => {
      expect(await find('re wool')).toEqual([]);
    });
    it('searches the brand and category names too', async () => {
      expect(await find('nordwear knitwear')).toEqual(['1']);
    });
  });

  describe('filters, paging and sort', () => {
    it('without text returns every document in the requested order, paged, with the full total', async () => {
      const page = await index.search({ sort: [{ field: 'productId', order: 'asc' }], offset: 2, limit: 3 });
      expect(page).toMatchObject({ ids: ['3', '4', '5'], total: 11 });
    });
    it('combines filter fields with AND and values of one field with OR', async () => {
      const r = await index.search({
        filters: { brands: ['10', '11'], categories: ['101'] },
        sort: [{ field: 'productId', order: 'asc' }],
        offset: 0,
        limit: 50,
      });
      expect(r).toMatchObject({ ids: ['2', '3'], total: 2 });
    });
    it('filters on stock and on ids', async () => {
      const r = await index.search({ text: 'jacket', filters: { inStock: true }, offset: 0, limit: 50 });
      expect(r.ids).toEqual(['2']);
      const byId = await index.search({
        filters: { ids: ['4', '9'] },
        sort: [{ field: 'productId', order: 'desc' }],
        offset: 0,
        limit: 50,
      });
      expect(byId.ids).toEqual(['9', '4']);
    });
    it('counts facet values over the matching documents', async () => {
      const r = await index.search({ text: 'red', facets: ['brand', 'collection'], offset: 0, limit: 50 });
      expect(r.facets?.brand).toEqual({ '10': 2, '11': 1 });
      expect(r.facets?.collection).toEqual({ '20': 2 });
    });
  });

  describe('updates', () => {
    it('replaces a document on upsert and forgets it on remove', async () => {
      await index.upsert([doc(11, 'Linen Trousers')]);
      expect(await find('linen')).toEqual(['11']);
      await index.upsert([doc(11, 'Denim Trousers')]);
      expect(await find('linen')).toEqual([]);
      expect(await find('denim')).toEqual(['11']);
      await index.remove(['11', 'unknown']);
      expect(await find('trousers')).toEqual([]);
    });
  });
}
