import { catalogSettings } from './catalog-settings';
import type { CatalogRef, Category, Item, Product, ProductView, Variant } from './product';
import { itemTableOf, projection, toItemInfoDto, toProductDto, toSearchDoc } from './product.mapper';
import { visibleIn } from './visibility';

const settings = catalogSettings({
  currencies: [
    { currency: 'SEK', name: 'Krona', prefix: '', suffix: ' kr', decimalPoint: ',', decimalDigits: 2, uri: 'sek' },
    { currency: 'EUR', name: 'Euro', prefix: '€', suffix: '', decimalPoint: '.', decimalDigits: 2, uri: 'eur' },
  ],
  markets: [
    { market: '1', name: 'Sweden', pricelist: 'SE', currency: 'SEK' },
    { market: '2', name: 'Europe', pricelist: 'EU', currency: 'EUR' },
  ],
  swatches: { Oat: '#d8c8a8' },
  mediaSizes: { standard: '{url}', s_big: 'https://cdn.example/800/{url}' },
  newProductDays: 30,
});
const NOW = new Date('2026-01-20T12:00:00.000Z');
const SE = projection({ market: '1', pricelist: 'SE', language: 'sv' }, settings, NOW);
const EU = projection({ market: '2', pricelist: 'EU' }, settings, NOW);

const brand: CatalogRef = { id: 3, externalId: 'B-NW', name: 'Nordwear', uri: 'nordwear' };
const collection: CatalogRef = { id: 4, externalId: 'C-AW', name: 'Autumn/Winter', uri: 'autumn-winter' };
const category = (id: number, name: string, parentId: number | null, namePath: string[], uri: string): Category => ({
  id,
  externalId: `F-${id}`,
  name,
  uri,
  parentId,
  position: 0,
  configured: true,
  namePath,
});
const women = category(6, 'Women', null, ['Women'], 'women');
const knit = category(7, 'Knitwear', 6, ['Women', 'Knitwear'], 'women/knitwear');
const news = category(8, 'New Arrivals', null, ['New Arrivals'], 'new-arrivals');

const item = (variantId: number, sizeId: number, sizeName: string, stock: number, extra: Partial<Item> = {}): Item => ({
  id: `${variantId}-${sizeId}`,
  sizeId,
  sizeExternalId: `S${sizeId}`,
  sizeName,
  sizeTableExternalId: 'ST-LETTERS',
  sku: `SKU-${variantId}-${sizeName}`,
  ean: `EAN${sizeId}`,
  qty: stock,
  warehouseStock: {},
  stock,
  preorder: false,
  position: sizeId,
  ...extra,
});

const variant = (id: number, position: number, name: string, items: Item[], extra: Partial<Variant> = {}): Variant => ({
  id,
  externalId: `V${id}`,
  name,
  sku: `-${id}`,
  status: 'active',
  visible: true,
  uri: position === 0 ? 'cafe-sweater' : `cafe-sweater-${name.toLowerCase()}`,
  position,
  stockId: '',
  sizeTableExternalId: null,
  categoryIds: [8],
  markets: null,
  itemQuantityMinimum: 2,
  itemQuantityMultipleOf: 2,
  items,
  ...extra,
});

const brown = variant(10, 0, 'Brown', [item(10, 1, 'S', 0), item(10, 2, 'M', 2), item(10, 3, 'L', 0)]);
const oat = variant(11, 1, 'Oat', [item(11, 1, 'S', 0), item(11, 2, 'M', 0)], { markets: ['1'] });
const hidden = variant(12, 2, 'Grey', [item(12, 1, 'S', 1)], { visible: false });

const product: Product = {
  id: 1,
  externalId: 'P-1',
  name: 'Café Sweater',
  sku: 'CAFE',
  status: 'active',
  visible: true,
  description: 'Warm & soft.\nHand knitted.\n\nMachine <washable>.',
  excerpt: '<p>Short <b>text</b> &amp; more</p>',
  metaTitle: 'Café Sweater | Nordwear',
  metaDescription: 'A sweater',
  metaKeywords: 'knit, sweater',
  countryOfOrigin: 'SE',
  harmCode: '6110',
  harmCodeDescription: 'Apparel',
  weightValue: '0.5',
  weightUnit: 'kg',
  comment: '',
  brandId: 3,
  collectionId: 4,
  categoryId: 7,
  media: [
    { url: 'https://img/all.jpg', variantExternalId: null },
    { url: 'https://img/v11.jpg', variantExternalId: 'V11' },
  ],
  variants: [brown, oat, hidden],
  createdAt: '2026-01-01T00:00:00.000Z',
  modifiedAt: '2026-01-02T00:00:00.000Z',
};

const view: ProductView = {
  product,
  brand,
  collection,
  categories: new Map([
    [6, women],
    [7, knit],
    [8, news],
  ]),
  sizeTables: new Map([['ST-LETTERS', { externalId: 'ST-LETTERS', description: 'Letters', stockDivisor: 1, stockUnit: 'pcs' }]]),
  prices: [
    { pricelist: 'SE', productExternalId: 'P-1', variationExternalId: '', price: 49_900, priceBeforeDiscount: 69_900 },
    { pricelist: 'SE', productExternalId: 'P-1', variationExternalId: 'V11', price: 59_950, priceBeforeDiscount: 50_000 },
    { pricelist: 'EU', productExternalId: 'P-1', variationExternalId: 'V10', price: 4_995, priceBeforeDiscount: null },
  ],
  pricelists: new Map([
    ['SE', { externalId: 'SE', store: '1', type: 'b2c', currency: 'SEK', description: 'Sweden' }],
    ['EU', { externalId: 'EU', store: '1', type: 'b2c', currency: 'EUR', description: 'Europe' }],
  ]),
  deliveryWindows: [],
};

describe('toProductDto', () => {
  it('projects every field of the checkout Product for the primary variant', () => {
    expect(toProductDto(view, brown, SE)).toEqual({
      product: '10',
      name: 'Café Sweater',
      uri: 'cafe-sweater',
      sku: 'CAFE-10',
      productSku: 'CAFE',
      variantName: 'Brown',
      countryOrigin: 'SE',
      stockUnit: 'pcs',
      brand: '3',
      brandName: 'Nordwear',
      brandUri: 'nordwear',
      collection: '4',
      collectionName: 'Autumn/Winter',
      collectionUri: 'autumn-winter',
      excerpt: 'Short text & more',
      excerptHtml: '<p>Short <b>text</b> &amp; more</p>',
      description: 'Warm & soft.\nHand knitted.\n\nMachine <washable>.',
      descriptionHtml: '<p>Warm &amp; soft.<br>Hand knitted.</p><p>Machine &lt;washable&gt;.</p>',
      metaTitle: 'Café Sweater | Nordwear',
      metaDescription: 'A sweater',
      metaKeywords: 'knit, sweater',
      category: '7',
      categoryUri: 'women/knitwear',
      categoryName: ['Women', 'Knitwear'],
      platformProduct: '1',
      platformVariant: '10',
      silkProduct: '1',
      silkVariant: '10',
      harmCode: '6110',
      harmCodeDescription: 'Apparel',
      canonicalUri: 'cafe-sweater',
      itemQuantityMinimum: 2,
      itemQuantityMultipleOf: 2,
      price: '499,00 kr',
      priceBeforeDiscount: '699,00 kr',
      priceReduction: '200,00 kr',
      priceAsNumber: 499,
      priceBeforeDiscountAsNumber: 699,
      priceReductionAsNumber: 200,
      discountPercent: 29,
      showAsOnSale: true,
      newProduct: true,
      inStock: true,
      primaryVariant: true,
      itemTable: { x: ['S', 'M', 'L'], y: [], dividerSymbol: 'x' },
      items: [
        { item: '10-1', itemTableX: 0, itemTableY: 0, name: 'S', ean: 'EAN1', sku: 'SKU-10-S', stock: 'no', inStock: false },
        { item: '10-2', itemTableX: 1, itemTableY: 0, name: 'M', ean: 'EAN2', sku: 'SKU-10-M', stock: 'yes', inStock: true },
        { item: '10-3', itemTableX: 2, itemTableY: 0, name: 'L', ean: 'EAN3', sku: 'SKU-10-L', stock: 'no', inStock: false },
      ],
      media: { standard: ['https://img/all.jpg'], s_big: ['https://cdn.example/800/https://img/all.jpg'] },
      swatch: { desc: 'Brown' },
      categories: {
        '7': { category: '7', name: ['Women', 'Knitwear'], uri: 'women/knitwear', inCategory: '6' },
        '8': { category: '8', name: ['New Arrivals'], uri: 'new-arrivals' },
      },
      relatedProducts: [
        {
          product: '11',
          relation: 'variant',
          media: {
            standard: ['https://img/all.jpg', 'https://img/v11.jpg'],
            s_big: ['https://cdn.example/800/https://img/all.jpg', 'https://cdn.example/800/https://img/v11.jpg'],
          },
        },
      ],
    });
  });

  it('prices a variant by its variation row before its product row, and never shows a lower price before discount', () => {
    expect(toProductDto(view, oat, SE)).toMatchObject({
      price: '599,50 kr',
      priceAsNumber: 599.5,
      priceBeforeDiscount: '599,50 kr',
      priceReductionAsNumber: 0,
      discountPercent: 0,
      showAsOnSale: false,
      primaryVariant: false,
      canonicalUri: 'cafe-sweater',
      swatch: { desc: 'Oat', hex: '#d8c8a8' },
      inStock: false,
    });
  });

  it('formats in the currency of the context pricelist and leaves out related variants not shown there', () => {
    const dto = toProductDto(view, brown, EU);
    expect(dto).toMatchObject({ price: '€49.95', priceAsNumber: 49.95, priceBeforeDiscount: '€49.95', showAsOnSale: false });
    expect(dto.relatedProducts).toEqual([]); // oat: market 1 only, and no EU price
  });

  it('is no longer new after newProductDays', () => {
    expect(toProductDto(view, brown, projection(SE.context, settings, new Date('2026-02-01T00:00:00Z'))).newProduct).toBe(false);
  });

  it('builds a two-dimensional item table when every size is <a>x<b>', () => {
    const jeans = variant(20, 0, 'Indigo', [
      item(20, 1, '30x32', 1),
      item(20, 2, '30x34', 0),
      item(20, 3, '32x32', 0),
      item(20, 4, '32x34', 1),
    ]);
    const dto = toProductDto({ ...view, product: { ...product, variants: [jeans] } }, jeans, projection({}, settings, NOW));
    expect(dto.itemTable).toEqual({ x: ['30', '32'], y: ['32', '34'], dividerSymbol: 'x' });
    expect(dto.items.map((i) => [i.name, i.itemTableX, i.itemTableY])).toEqual([
      ['30x32', 0, 0],
      ['30x34', 0, 1],
      ['32x32', 1, 0],
      ['32x34', 1, 1],
    ]);
    expect(itemTableOf([item(1, 1, 'XS', 0), item(1, 2, '32x34', 0)])).toMatchObject({ x: ['XS', '32x34'], y: [] });
  });

  it('counts a variant in an active delivery window as available for preorder, not one in an ended window', () => {
    const windows = (stopsAt: string) => [
      { windowExternalId: 'DW', variationExternalId: 'V11', status: 'active', startsAt: '2026-01-01T00:00:00.000Z', stopsAt },
    ];
    const active = toProductDto({ ...view, deliveryWindows: windows('2026-03-01T00:00:00.000Z') }, oat, SE);
    expect(active.inStock).toBe(true);
    expect(active.items.map((i) => i.stock)).toEqual(['yes', 'yes']);
    expect(toProductDto({ ...view, deliveryWindows: windows('2026-01-10T00:00:00.000Z') }, oat, SE).inStock).toBe(false);
  });

  it('counts stock in the size table’s stockdivisor: an item is in stock when its units make at least one (decision 22)', () => {
    const table = (id: string, stockDivisor: number) => [id, { externalId: id, description: id, stockDivisor, stockUnit: 'pcs' }] as const;
    // Brown M has 2 units: one item at a divisor of 2, none at 3.
    const pairs = { ...view, sizeTables: new Map([table('ST-LETTERS', 2)]) };
    const triples = { ...view, sizeTables: new Map([table('ST-LETTERS', 3)]) };
    expect(toProductDto(pairs, brown, SE).items.map((i) => i.stock)).toEqual(['no', 'yes', 'no']);
    expect(toItemInfoDto(pairs, brown, brown.items[1]!, SE).stock).toBe(1);
    expect(toProductDto(triples, brown, SE)).toMatchObject({
      inStock: false,
      items: [{ stock: 'no' }, { stock: 'no', inStock: false }, { stock: 'no' }],
    });
    expect(toItemInfoDto(triples, brown, brown.items[1]!, SE).stock).toBe(0);
    expect(toSearchDoc(triples, brown, NOW)).toMatchObject({ inStock: false, availableItemNames: [] });
    // The variation's own size table comes before its sizes' table; a table never sent counts as none.
    const byVariant = { ...view, sizeTables: new Map([table('ST-LETTERS', 3), table('ST-PAIRS', 2)]) };
    expect(toItemInfoDto(byVariant, { ...brown, sizeTableExternalId: 'ST-PAIRS' }, brown.items[1]!, SE).stock).toBe(1);
    expect(toItemInfoDto(byVariant, { ...brown, sizeTableExternalId: 'ST-UNKNOWN' }, brown.items[1]!, SE).stock).toBe(0);
    // Preorder is not limited by stock.
    const preorder = { ...brown, items: [item(10, 2, 'M', 0, { preorder: true })] };
    expect(toProductDto(triples, preorder, SE).items[0]!.stock).toBe('yes');
  });

  it('shows 0 in the market currency when the context has no pricelist', () => {
    expect(toProductDto(view, brown, projection({ market: '2' }, settings, NOW))).toMatchObject({ price: '€0.00', priceAsNumber: 0 });
  });
});

describe('visibleIn', () => {
  it('needs the variant displayed in the market and priced in the pricelist', () => {
    expect(visibleIn(view, brown, SE.context)).toBe(true); // every market (never named one), product price
    expect(visibleIn(view, oat, SE.context)).toBe(true); // market 1 named
    expect(visibleIn(view, oat, { market: '2', pricelist: 'SE' })).toBe(false); // not displayed in market 2
    expect(visibleIn(view, oat, EU.context)).toBe(false);
    expect(visibleIn(view, brown, { market: '1', pricelist: 'US' })).toBe(false); // no price there
    expect(visibleIn(view, hidden, {})).toBe(false); // inactive status
    expect(visibleIn(view, oat, {})).toBe(true); // no context: no market or price rule
  });
});

describe('toItemInfoDto and toSearchDoc', () => {
  it('gives the cart the item, its size and stock, and the price of one in major units', () => {
    expect(toItemInfoDto(view, brown, brown.items[1]!, SE)).toEqual({
      item: '10-2',
      product: '10',
      size: '2',
      sku: 'SKU-10-M',
      ean: 'EAN2',
      productName: 'Café Sweater',
      brandName: 'Nordwear',
      sizeName: 'M',
      external: { product: 'P-1', variation: 'V10', size: 'S2', brand: 'B-NW' },
      priceAsNumber: 499,
      stock: 2,
    });
  });

  it('indexes names for text, ids for filters, and markets, pricelists and prices for the context', () => {
    expect(toSearchDoc(view, brown, NOW)).toEqual({
      id: '10',
      productId: 10,
      name: 'Café Sweater',
      variantName: 'Brown',
      brandName: 'Nordwear',
      collectionName: 'Autumn/Winter',
      categoryNames: ['Women', 'Knitwear', 'New Arrivals'],
      sku: 'CAFE-10',
      uri: 'cafe-sweater',
      brand: '3',
      collection: '4',
      categories: ['7', '8'],
      // Knitwear (7) sits under Women (6): a filter or facet on Women counts it.
      categoryTree: ['7', '6', '8'],
      inStock: true,
      createdAt: Date.parse('2026-01-01T00:00:00.000Z'),
      modifiedAt: Date.parse('2026-01-02T00:00:00.000Z'),
      markets: ['*'],
      pricelists: ['EU', 'SE'],
      prices: { SE: 499, EU: 49.95 },
      swatchDesc: 'Brown',
      itemNames: ['S', 'M', 'L'],
      availableItemNames: ['M'],
      collectionUri: 'autumn-winter',
      categoryItemSort: 10_000,
      primaryVariant: true,
      platformProduct: 1,
      countryOrigin: 'SE',
      harmCode: '6110',
      stockUnit: 'pcs',
    });
    expect(toSearchDoc(view, oat, NOW)).toMatchObject({
      markets: ['1'],
      pricelists: ['SE'],
      prices: { SE: 599.5 },
      inStock: false,
      categoryItemSort: 10_000 + oat.position,
    });
  });
});
