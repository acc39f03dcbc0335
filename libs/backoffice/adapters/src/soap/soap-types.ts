/**
 * The XML shape of the SOAP entities, written once and used twice: to generate the WSDL's XSD types and
 * to turn a parsed request into the JSON the contracts' zod schemas validate (lists become arrays even
 * with one element, an empty list element becomes []). Extending the API to another entity means adding
 * its types here and its operation in soap-operations.ts.
 */
export type Scalar = 'string' | 'int' | 'boolean';

export interface SoapField {
  name: string;
  /** A scalar, or the name of a complex type in `soapTypes`. */
  type: Scalar | string;
  /** When set, the element is a list wrapper whose repeated children are named `list`. */
  list?: string;
  required?: boolean;
}

export type SoapTypes = Record<string, SoapField[]>;

const s = (name: string, required = false): SoapField => ({ name, type: 'string', ...(required ? { required } : {}) });
const ref = (name: string): SoapField => ({ name, type: 'Ref' });
const list = (name: string, item: string, type: string): SoapField => ({ name, type, list: item });
const int = (name: string): SoapField => ({ name, type: 'int' });
const bool = (name: string): SoapField => ({ name, type: 'boolean' });

export const soapTypes: SoapTypes = {
  Login: [s('username', true), s('password', true)],
  Ref: [s('id', true), s('description')],
  Weight: [s('value'), s('unit')],
  WarehouseItem: [s('id', true), s('qty'), s('cog')],
  ProductSize: [
    s('id', true),
    s('qty'),
    s('preorder'),
    s('description'),
    s('comment'),
    s('sku'),
    s('ean'),
    list('warehouseitems', 'warehouse', 'WarehouseItem'),
  ],
  Display: [
    s('store'),
    list('categories', 'category', 'Ref'),
    list('categoriesremove', 'category', 'Ref'),
    list('markets', 'market', 'Ref'),
    list('marketsremove', 'market', 'Ref'),
    s('minimumorderamount'),
    s('orderdenominator'),
  ],
  Variation: [
    s('id', true),
    s('stockid'),
    s('description'),
    s('sku'),
    s('status'),
    ref('sizetable'),
    list('sizes', 'size', 'ProductSize'),
    list('displays', 'display', 'Display'),
    s('cog'),
  ],
  Image: [s('id'), s('image'), ref('variation')],
  StoreMeta: [s('shortdescription'), s('description'), s('metatitle'), s('metakeywords'), s('metadescription'), s('taxgroup'), s('store')],
  Metadata: [{ name: 'storemeta', type: 'StoreMeta' }],
  Product: [
    s('id', true),
    s('status'),
    s('sku'),
    s('description'),
    ref('folder'),
    ref('brand'),
    ref('collection'),
    ref('harmcode'),
    s('countryoforigin'),
    { name: 'weight', type: 'Weight' },
    list('variations', 'variation', 'Variation'),
    list('media', 'image', 'Image'),
    { name: 'metadata', type: 'Metadata' },
    s('comment'),
  ],
  SizeTable: [s('id', true), s('description'), s('stockdivisor'), s('stockunit')],
  Size: [s('id', true), s('description'), s('sku'), s('ean'), s('comment'), { name: 'sizetable', type: 'SizeTable' }],
  PricelistVariation: [s('id', true), s('price'), s('priceb')],
  PricelistProduct: [s('id', true), s('price'), s('priceb'), { name: 'variation', type: 'PricelistVariation' }],
  Pricelist: [s('id', true), s('store'), s('type'), s('currency'), s('description'), list('items', 'product', 'PricelistProduct')],
  Market: [s('id', true), s('store'), s('type'), s('description')],
  Warehouse: [s('id', true), s('description')],
  DeliveryWindowVariation: [s('id', true), s('type'), int('productlimit'), int('variationlimit')],
  DeliveryWindow: [
    s('id', true),
    s('status'),
    s('description'),
    s('startdate'),
    s('stopdate'),
    bool('atonce'),
    list('variations', 'variation', 'DeliveryWindowVariation'),
    list('variationsremove', 'variation', 'DeliveryWindowVariation'),
  ],
};

export const isScalar = (type: string): type is Scalar => type === 'string' || type === 'int' || type === 'boolean';
