import type { CatalogRef, Product, ProductView, Variant } from './product';
import { toItemInfoDto, toProductDto, toSearchDoc } from './product.mapper';

const brand: CatalogRef = { id: 3, externalId: 'B-NW', name: 'Nordwear', uri: 'nordwear' };
const knit: CatalogRef = { id: 7, externalId: 'F-KNIT', name: 'Knitwear', uri: 'knitwear' };
const news: CatalogRef = { id: 8, externalId: 'F-NEW', name: 'New Arrivals', uri: 'new-arrivals' };

const variant = (id: number, position: number, stocks: number[], extra: Partial<Variant> = {}): Variant => ({
  id,
  externalId: `V${id}`,
  name: `Colour ${id}`,
  sku: `-${id}`,
  status: 'active',
  visible: true,
  uri: `cafe-sweater${position ? `-colour-${id}` : ''}`,
  position,
  categoryIds: [8],
  itemQuantityMinimum: 1,
  itemQuantityMultipleOf: 1,
  items: stocks.map((stock, k) => ({
    id: `${id}-${k + 1}`,
    sizeId: k + 1,
    sizeExternalId: `S${k + 1}`,
    sizeName: ['S', 'M', 'L'][k]!,
    sku: `SKU-${id}-${k}`,
    ean: `EAN${k}`,
    stock,
    preorder: false,
    position: k,
  })),
  ...extra,
});

const product: Product = {
  id: 1,
  externalId: 'P-1',
  name: 'Café Sweater',
  sku: 'CAFE',
  status: 'active',
  visible: true,
  description: 'Long text',
  excerpt: 'Short text',
  metaTitle: '',
  metaDescription: '',
  metaKeywords: '',
  countryOfOrigin: 'SE',
  harmCode: '',
  brandId: 3,
  collectionId: null,
  categoryId: 7,
  media: [
    { url: 'https://img/all.jpg', variantExternalId: null },
    { url: 'https://img/v11.jpg', variantExternalId: 'V11' },
  ],
  variants: [variant(10, 0, [0, 2, 0]), variant(11, 1, [0, 0, 0]), variant(12, 2, [1, 1, 1], { visible: false })],
  createdAt: '2026-01-01T00:00:00.000Z',
  modifiedAt: '2026-01-02T00:00:00.000Z',
};
const view: ProductView = {
  product,
  brand,
  collection: null,
  categories: new Map([
    [7, knit],
    [8, news],
  ]),
};

describe('toProductDto', () => {
  it('shows a variant as a checkout product with its product, brand and folder category', () => {
    const dto = toProductDto(view, product.variants[0]!, null);
    expect(dto).toMatchObject({
      product: '10',
      name: 'Café Sweater',
      uri: 'cafe-sweater',
      sku: 'CAFE-10',
      productSku: 'CAFE',
      variantName: 'Colour 10',
      brand: '3',
      brandName: 'Nordwear',
      brandUri: 'nordwear',
      collection: '',
      category: '7',
      categoryUri: 'knitwear',
      categoryName: ['Knitwear'],
      platformProduct: '1',
      platformVariant: '10',
      excerpt: 'Short text',
      description: 'Long text',
      primaryVariant: true,
      inStock: true,
      itemTable: { x: ['S', 'M', 'L'], y: [], dividerSymbol: 'x' },
      media: { standard: ['https://img/all.jpg'] },
      relatedProducts: [{ product: '11', relation: 'variant' }],
    });
    expect(Object.keys(dto.categories)).toEqual(['7', '8']);
    expect(dto.items.map((i) => [i.item, i.name, i.stock, i.itemTableX])).toEqual([
      ['10-1', 'S', 'no', 0],
      ['10-2', 'M', 'yes', 1],
      ['10-3', 'L', 'no', 2],
    ]);
  });

  it('without a price in the pricelist shows 0.00 and no discount', () => {
    const dto = toProductDto(view, product.variants[0]!, null);
    expect(dto).toMatchObject({ price: '0.00', priceAsNumber: 0, priceBeforeDiscount: '0.00', discountPercent: 0, showAsOnSale: false });
  });

  it('with a discounted price shows the reduction and the percentage', () => {
    const dto = toProductDto(view, product.variants[0]!, { price: 75, priceBeforeDiscount: 100, currency: 'SEK' });
    expect(dto).toMatchObject({
      price: '75.00',
      priceBeforeDiscount: '100.00',
      priceReduction: '25.00',
      priceReductionAsNumber: 25,
      discountPercent: 25,
      showAsOnSale: true,
    });
  });

  it('marks a variant with no stock in any size as out of stock, with its own images', () => {
    const dto = toProductDto(view, product.variants[1]!, null);
    expect(dto.inStock).toBe(false);
    expect(dto.primaryVariant).toBe(false);
    expect(dto.media).toEqual({ standard: ['https://img/all.jpg', 'https://img/v11.jpg'] });
  });
});

describe('toItemInfoDto and toSearchDoc', () => {
  it('gives the cart the item, its size and stock, and the price of one', () => {
    const v = product.variants[0]!;
    expect(toItemInfoDto(view, v, v.items[1]!, { price: 499, priceBeforeDiscount: 499, currency: 'SEK' })).toEqual({
      item: '10-2',
      product: '10',
      size: '2',
      sku: 'SKU-10-1',
      ean: 'EAN1',
      productName: 'Café Sweater',
      brandName: 'Nordwear',
      sizeName: 'M',
      priceAsNumber: 499,
      stock: 2,
    });
  });

  it('indexes names for text and ids for filters', () => {
    expect(toSearchDoc(view, product.variants[1]!)).toMatchObject({
      id: '11',
      productId: 11,
      name: 'Café Sweater',
      variantName: 'Colour 11',
      brandName: 'Nordwear',
      categoryNames: ['Knitwear', 'New Arrivals'],
      brand: '3',
      collection: null,
      categories: ['7', '8'],
      inStock: false,
    });
  });
});
