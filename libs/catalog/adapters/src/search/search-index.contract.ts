import type { FacetField, SearchDoc, SearchIndex, SearchQuery, SortKey } from '@commerce/catalog-core';
import { loadMeiliSettings } from './meilisearch.search-index';

/** A search document with every field set (tests override what they search, filter or sort on). */
export const searchDoc = (id: number, name: string, extra: Partial<SearchDoc> = {}): SearchDoc => ({
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
  categoryItemSort: id,
  countryOrigin: '',
  harmCode: '',
  stockUnit: '',
  ...extra,
  categoryTree: extra.categoryTree ?? extra.categories ?? [],
});

/**
 * The matching rules of DESIGN §4, written once and run on both search adapters (the embedded engine in
 * `*.spec.ts`, Meilisearch in `*.int-spec.ts`) so that they cannot drift apart.
 */
export function searchIndexContract(
  /** A new index; with `settings` (a settings file's contents), following them. */
  makeIndex: (settings?: Record<string, unknown>) => Promise<SearchIndex>,
  close: (index: SearchIndex) => Promise<void> = async () => undefined,
): void {
  let index: SearchIndex;

  const doc = searchDoc;

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

  describe('ligatures', () => {
    let folded: SearchIndex;
    beforeAll(async () => {
      folded = await makeIndex();
      await folded.clear();
      await folded.upsert([doc(51, 'Atelier Sœur Blouse'), doc(52, 'Ægir Coat'), doc(53, 'Jeans Größe')]);
    }, 60_000);
    afterAll(async () => {
      if (folded) await close(folded);
    });
    const search = async (text: string) => (await folded.search({ text, offset: 0, limit: 10 })).ids;

    it('folds œ and æ to their letters both ways (soeur finds Sœur, sœur finds it too, aegir finds Ægir)', async () => {
      expect(await search('soeur')).toEqual(['51']);
      expect(await search('SŒUR')).toEqual(['51']);
      expect(await search('aegir')).toEqual(['52']);
    });
    it('keeps ß as it is written (grosse does not find Größe, große does)', async () => {
      expect(await search('grosse')).toEqual([]);
      expect(await search('große')).toEqual(['53']);
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
    it('counts two letters swapped side by side as one typo (jakcet finds Jacket, swaeter finds Sweater)', async () => {
      expect(await find('jakcet')).toEqual(expect.arrayContaining(['2', '3']));
      expect(await find('swaeter')).toEqual(expect.arrayContaining(['1', '10']));
      expect(await find('ajcket')).toEqual([]);
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

  /**
   * Synonyms and stop words of the settings file (issue 26), as Meilisearch 1.50 applies them with
   * `matchingStrategy: "all"`: measured there, followed by the embedded engine.
   */
  describe('synonyms and stop words of the settings file', () => {
    let tuned: SearchIndex;
    const settings = {
      ...loadMeiliSettings(),
      synonyms: {
        tee: ['t-shirt'],
        't-shirt': ['tee'],
        sneakers: ['trainers'],
        Jumper: ['sweater', 'cardigan'],
        'blue jeans': ['denim'],
      },
      stopWords: ['the', 'in', 'of'],
    };
    const found = async (text: string) => (await tuned.search({ text, offset: 0, limit: 50 })).ids.sort((a, b) => Number(a) - Number(b));

    beforeAll(async () => {
      tuned = await makeIndex(settings);
      await tuned.clear();
      await tuned.upsert([
        doc(31, 'Cotton T-Shirt'),
        doc(32, 'Logo Tee'),
        doc(33, 'Running Trainers'),
        doc(34, 'Canvas Sneakers'),
        doc(35, 'Wool Sweater in Red'),
        doc(36, 'Denim Jacket'),
        doc(37, 'Blue Jeans'),
        doc(38, 'Knit Cardigan'),
        doc(39, 'Shirt T'),
      ]);
    }, 60_000);
    afterAll(async () => {
      if (tuned) await close(tuned);
    });

    it('a multi-way synonym finds either word from the other (tee finds T-Shirt, t-shirt finds Tee)', async () => {
      expect(await found('tee')).toEqual(['31', '32']);
      expect(await found('t-shirt')).toEqual(['31', '32', '39']);
    });
    it("a synonym's words must stand together (tee does not find Shirt T)", async () => {
      expect(await found('tee')).not.toContain('39');
    });
    it('a one-way synonym finds the other word, not the way back (sneakers finds Trainers, trainers not Sneakers)', async () => {
      expect(await found('sneakers')).toEqual(['33', '34']);
      expect(await found('trainers')).toEqual(['33']);
    });
    it('brings its alternatives only for the word spelt as the key, whatever its case (snekers finds Sneakers alone)', async () => {
      expect(await found('snekers')).toEqual(['34']);
      expect(await found('SNEAKERS')).toEqual(['33', '34']);
    });
    it('takes a key of several words and a key with several alternatives', async () => {
      expect(await found('blue jeans')).toEqual(['36', '37']);
      expect(await found('jumper')).toEqual(['35', '38']);
    });
    it('leaves stop words out of the query (sweater in red, the jacket)', async () => {
      expect(await found('sweater in red')).toEqual(['35']);
      expect(await found('the jacket')).toEqual(['36']);
      expect(await found('cardigan of the knit')).toEqual(['38']);
    });
    it('keeps a stop word that is the last word, and documents do not hold stop words (red in finds nothing)', async () => {
      expect(await found('red in')).toEqual([]);
      expect(await found('sweater in')).toEqual([]);
    });
  });

  /**
   * The product listing of `POST products` (issue 6): the visitor's scope (market, pricelist), every
   * filter of the request, the sort fields and the facet counts, on a catalogue of its own. Women (1) >
   * Tops (2) > Shirts (3); Men (4). Pricelist 1 prices in market 1, pricelist 3 in market 3.
   */
  describe('the product listing: scope, filters, sort and facets', () => {
    let listing: SearchIndex;
    const all = { offset: 0, limit: 50 } as const;
    const ids = async (query: Partial<SearchQuery>) => (await listing.search({ ...all, ...query })).ids;
    const byId: SortKey[] = [{ field: 'productId', order: 'asc' }];

    const items: SearchDoc[] = [
      doc(21, 'Linen Shirt', {
        platformProduct: 7,
        brand: '1',
        collection: '5',
        categories: ['3'],
        categoryTree: ['3', '2', '1'],
        markets: ['*'],
        pricelists: ['1', '3'],
        prices: { '1': 300, '3': 30 },
        swatchDesc: 'Forest Green',
        itemNames: ['S', 'M'],
        availableItemNames: ['M'],
        uri: 'linen-shirt',
        collectionUri: 'summer',
        categoryItemSort: 70_000,
        countryOrigin: 'PT',
        createdAt: 5,
        modifiedAt: 50,
      }),
      doc(22, 'Linen Shirt', {
        platformProduct: 7,
        brand: '1',
        collection: '5',
        categories: ['3'],
        categoryTree: ['3', '2', '1'],
        markets: ['*'],
        pricelists: ['1'],
        prices: { '1': 250 },
        swatchDesc: 'Navy',
        itemNames: ['S', 'M'],
        availableItemNames: [],
        uri: 'linen-shirt-navy',
        collectionUri: 'summer',
        categoryItemSort: 70_001,
        countryOrigin: 'PT',
        inStock: false,
        createdAt: 6,
        modifiedAt: 40,
      }),
      doc(23, 'Oxford Shirt', {
        platformProduct: 8,
        brand: '2',
        collection: null,
        categories: ['3', '4'],
        categoryTree: ['3', '2', '1', '4'],
        markets: ['1', '2'],
        pricelists: ['1'],
        prices: { '1': 100 },
        swatchDesc: 'navy blue',
        itemNames: ['M', 'L'],
        availableItemNames: ['M', 'L'],
        uri: 'oxford-shirt',
        collectionUri: '',
        categoryItemSort: 80_000,
        countryOrigin: 'IT',
        createdAt: 1,
        modifiedAt: 90,
      }),
      doc(24, 'Wool Top', {
        platformProduct: 9,
        brand: '2',
        collection: '6',
        categories: ['2'],
        categoryTree: ['2', '1'],
        markets: ['3'],
        pricelists: ['3'],
        prices: { '3': 20 },
        swatchDesc: 'Oat',
        itemNames: ['XS'],
        availableItemNames: ['XS'],
        uri: 'wool-top',
        collectionUri: 'winter',
        categoryItemSort: 90_000,
        countryOrigin: 'IT',
        createdAt: 9,
        modifiedAt: 10,
      }),
      doc(25, 'Chino Trousers', {
        platformProduct: 10,
        brand: '3',
        collection: '6',
        categories: ['4'],
        categoryTree: ['4'],
        markets: ['1'],
        pricelists: ['1', '3'],
        prices: { '1': 500, '3': 60 },
        swatchDesc: 'Sand',
        itemNames: ['32x34'],
        availableItemNames: ['32x34'],
        uri: 'chino-trousers',
        collectionUri: 'winter',
        categoryItemSort: 100_000,
        countryOrigin: 'PT',
        createdAt: 3,
        modifiedAt: 30,
      }),
      doc(26, 'Shirt Dress', {
        platformProduct: 11,
        brand: '1',
        collection: null,
        categories: ['1'],
        categoryTree: ['1'],
        markets: ['1'],
        pricelists: [],
        prices: {},
        swatchDesc: '',
        itemNames: ['M'],
        availableItemNames: ['M'],
        uri: 'shirt-dress',
        collectionUri: '',
        categoryItemSort: 60_000,
        countryOrigin: '',
        createdAt: 7,
        modifiedAt: 70,
      }),
    ];
    const sweden = { market: '1', pricelist: '1' };

    beforeAll(async () => {
      listing = await makeIndex();
      await listing.clear();
      await listing.upsert(items);
    }, 60_000);
    afterAll(async () => {
      if (listing) await close(listing);
    });

    it('scopes to the market (or every market) and the pricelist', async () => {
      expect(await ids({ scope: sweden, sort: byId })).toEqual(['21', '22', '23', '25']);
      expect(await ids({ scope: { market: '3', pricelist: '3' }, sort: byId })).toEqual(['21', '24']);
      expect(await ids({ scope: { market: '2' }, sort: byId })).toEqual(['21', '22', '23']);
      expect((await listing.search({ ...all, scope: sweden, offset: 1, limit: 2, sort: byId })).total).toBe(4);
    });

    it('filters on each field, OR within one and AND across them', async () => {
      expect(await ids({ filters: { platformProducts: [7] }, sort: byId })).toEqual(['21', '22']);
      expect(await ids({ filters: { categories: ['2'] }, sort: byId })).toEqual(['21', '22', '23', '24']);
      expect(await ids({ filters: { categories: ['3', '4'], brands: ['2', '3'] }, sort: byId })).toEqual(['23', '25']);
      expect(await ids({ filters: { itemNames: ['L', 'XS'] }, sort: byId })).toEqual(['23', '24']);
      expect(await ids({ filters: { availableItemNames: ['S', 'M'] }, sort: byId })).toEqual(['21', '23', '26']);
      expect(await ids({ filters: { extra: { countryOrigin: ['IT'] } }, sort: byId })).toEqual(['23', '24']);
      expect(await ids({ filters: { collections: ['6'], inStock: true }, scope: sweden, sort: byId })).toEqual(['25']);
    });

    it('matches string values whatever their case, but not a different word', async () => {
      expect(await ids({ filters: { swatchDescs: ['NAVY', 'forest green'] }, sort: byId })).toEqual(['21', '22']);
      expect(await ids({ filters: { extra: { countryOrigin: ['pt'] } }, sort: byId })).toEqual(['21', '22', '25']);
    });

    it('filters by uri: the product with the id OR the products in (or below) the category', async () => {
      expect(await ids({ filters: { uri: { ids: ['24'], categories: ['4'] } }, sort: byId })).toEqual(['23', '24', '25']);
      expect(await ids({ filters: { uri: { ids: [], categories: ['2'] } }, scope: sweden, sort: byId })).toEqual(['21', '22', '23']);
      expect(await ids({ filters: { uri: { ids: [], categories: [] } } })).toEqual([]);
    });

    it('matches nothing for a filter on an empty list', async () => {
      expect(await listing.search({ ...all, filters: { brands: [] }, facets: ['brand'] })).toEqual({
        ids: [],
        total: 0,
        facets: { brand: {} },
      });
    });

    it('sorts by the price in a pricelist, a document without one last in either order', async () => {
      expect(await ids({ sort: [{ field: 'price', pricelist: '1', order: 'asc' }, ...byId] })).toEqual([
        '23',
        '22',
        '21',
        '25',
        '24',
        '26',
      ]);
      expect(await ids({ sort: [{ field: 'price', pricelist: '1', order: 'desc' }, ...byId] })).toEqual([
        '25',
        '21',
        '22',
        '23',
        '24',
        '26',
      ]);
      expect(await ids({ scope: { market: '3', pricelist: '3' }, sort: [{ field: 'price', pricelist: '3', order: 'desc' }] })).toEqual([
        '21',
        '24',
      ]);
    });

    it('sorts by uri, collection uri, the catalogue order and dates, then by the next key', async () => {
      expect(await ids({ sort: [{ field: 'uri', order: 'asc' }] })).toEqual(['25', '21', '22', '23', '26', '24']);
      expect(
        await ids({
          sort: [
            { field: 'collectionUri', order: 'desc' },
            { field: 'productId', order: 'desc' },
          ],
        }),
      ).toEqual(['25', '24', '22', '21', '26', '23']);
      // An empty string counts as no value: last in either order.
      expect(await ids({ sort: [{ field: 'collectionUri', order: 'asc' }, ...byId] })).toEqual(['21', '22', '24', '25', '23', '26']);
      expect(await ids({ sort: [{ field: 'categoryItemSort', order: 'asc' }] })).toEqual(['26', '21', '22', '23', '24', '25']);
      expect(await ids({ sort: [{ field: 'createdAt', order: 'desc' }] })).toEqual(['24', '26', '22', '21', '25', '23']);
      expect(await ids({ sort: [{ field: 'modifiedAt', order: 'asc' }] })).toEqual(['24', '25', '22', '21', '26', '23']);
    });

    it('puts a requested order before relevance when there is text', async () => {
      expect(await ids({ text: 'shirt', sort: [{ field: 'price', pricelist: '1', order: 'desc' }, ...byId] })).toEqual([
        '21',
        '22',
        '23',
        '26',
      ]);
      expect(await ids({ text: 'shirt', scope: sweden, sort: [{ field: 'price', pricelist: '1', order: 'asc' }] })).toEqual([
        '23',
        '22',
        '21',
      ]);
    });

    it('counts facets over the matches (text, scope and filters) and totals over the scope alone', async () => {
      const facets: FacetField[] = ['brand', 'categoryTree', 'collection', 'swatchDesc', 'countryOrigin'];
      const r = await listing.search({ ...all, text: 'shirt', scope: sweden, filters: { categories: ['3'] }, facets, offset: 0, limit: 1 });
      expect(r.ids).toHaveLength(1);
      expect(r.total).toBe(3);
      expect(r.facets).toEqual({
        brand: { '1': 2, '2': 1 },
        categoryTree: { '1': 3, '2': 3, '3': 3, '4': 1 },
        collection: { '5': 2 },
        swatchDesc: { 'Forest Green': 1, Navy: 1, 'navy blue': 1 },
        countryOrigin: { PT: 2, IT: 1 },
      });
      expect(await listing.facetTotals(sweden, facets)).toEqual({
        brand: { '1': 2, '2': 1, '3': 1 },
        categoryTree: { '1': 3, '2': 3, '3': 3, '4': 2 },
        collection: { '5': 2, '6': 1 },
        swatchDesc: { 'Forest Green': 1, Navy: 1, 'navy blue': 1, Sand: 1 },
        countryOrigin: { PT: 3, IT: 1 },
      });
      expect(await listing.facetTotals({}, ['brand'])).toEqual({ brand: { '1': 3, '2': 2, '3': 1 } });
    });

    it('counts totals again after a document changes or goes', async () => {
      expect(await listing.facetTotals(sweden, ['brand'])).toEqual({ brand: { '1': 2, '2': 1, '3': 1 } });
      await listing.upsert([{ ...items[4]!, brand: '2' }]);
      expect(await listing.facetTotals(sweden, ['brand'])).toEqual({ brand: { '1': 2, '2': 2 } });
      await listing.remove(['23']);
      expect(await listing.facetTotals(sweden, ['brand'])).toEqual({ brand: { '1': 2, '2': 1 } });
      await listing.upsert([items[2]!, items[4]!]);
      expect(await listing.facetTotals(sweden, ['brand'])).toEqual({ brand: { '1': 2, '2': 1, '3': 1 } });
    });
  });
}
