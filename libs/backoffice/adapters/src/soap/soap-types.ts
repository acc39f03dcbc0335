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
  /** When set, the element itself repeats (no wrapper) and becomes an array. */
  repeated?: boolean;
  required?: boolean;
}

export type SoapTypes = Record<string, SoapField[]>;

const s = (name: string, required = false): SoapField => ({ name, type: 'string', ...(required ? { required } : {}) });
const ref = (name: string): SoapField => ({ name, type: 'Ref' });
const list = (name: string, item: string, type: string): SoapField => ({ name, type, list: item });
const int = (name: string): SoapField => ({ name, type: 'int' });
const bool = (name: string): SoapField => ({ name, type: 'boolean' });
const one = (name: string, type: string): SoapField => ({ name, type });
const refs = (...names: string[]): SoapField[] => names.map(ref);
const strings = (...names: string[]): SoapField[] => names.map((n) => s(n));
const address = (name: string): SoapField => one(name, 'Address');
const charge = (name: string): SoapField => one(name, 'Charge');

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

  // Shared blocks of the account and order entities (the spec's ADDRESS, CARRIER, CHARGE, PRODUCTLINE).
  Address: [
    ...strings('id', 'description', 'company', 'attn', 'firstname', 'lastname', 'address1', 'address2', 'city', 'state'),
    ...strings('zipcode', 'country', 'email', 'telephone', 'fax', 'vat', 'url', 'companyregistrationid'),
  ],
  Carrier: [...strings('carrier', 'service', 'account', 'taxid', 'tracking'), int('packages')],
  Charge: strings('subtotal', 'description', 'key', 'id'),
  Additional: strings('key', 'value'),
  LineWarehouse: [s('id', true), s('qty')],
  SupplierOrder: [s('id', true), s('qty'), s('eta')],
  LineSize: [
    s('id', true),
    ...strings('sku', 'qty', 'preorder', 'description'),
    ref('orderitem'),
    list('warehouseitems', 'warehouse', 'LineWarehouse'),
    list('supplierorderitems', 'supplierorder', 'SupplierOrder'),
  ],
  ProductLine: [
    s('id', true),
    ...strings('tax', 'sku', 'origprice', 'price', 'discount', 'qty', 'subtotal', 'description'),
    ...refs('variation', 'brand'),
    list('sizes', 'size', 'LineSize'),
    ...strings('type', 'comment'),
  ],

  Buyer: [
    s('id', true),
    int('store'),
    ...strings('status', 'firstname', 'lastname', 'address1', 'address2', 'city', 'state', 'zipcode', 'country'),
    ...strings('email', 'telephone', 'fax'),
    ...refs('market', 'pricelist'),
    s('password'),
  ],
  Account: [
    s('id', true),
    ...strings('type', 'status', 'description', 'other', 'discount'),
    ...refs('market', 'pricelist'),
    ...strings('internalinformation', 'creditlimit'),
    ...refs('salesrep', 'paymentterms', 'shippingterms'),
    ...['accountaddress', 'shippingaddress', 'invoiceaddress'].map(address),
    one('carrierinformation', 'Carrier'),
    list('buyers', 'buyer', 'Buyer'),
    list('addresses', 'address', 'Address'),
    list('additionals', 'additional', 'Additional'),
  ],
  Customer: [
    s('id', true),
    int('store'),
    ...strings('type', 'status', 'firstname', 'lastname', 'address1', 'address2', 'city', 'state', 'zipcode', 'country'),
    ...strings('email', 'telephone'),
  ],
  MasterSalesRep: [s('id', true), s('percent')],
  SalesRep: [s('id', true), ...strings('email', 'name', 'percent'), list('mastersalesrep', 'salesrep', 'MasterSalesRep')],
  PaymentTerms: [s('id', true), ...strings('name', 'description', 'duedays')],
  ShippingTerms: [s('id', true), ...strings('name', 'description', 'duedays')],

  InvoiceItem: [
    ...strings('itemid', 'qty', 'price', 'tax', 'subtotal', 'description'),
    ...refs('product', 'variation', 'size'),
    ...strings('discount', 'sku'),
  ],
  InvoiceItems: [
    { name: 'invoiceitem', type: 'InvoiceItem', repeated: true },
    { name: 'additional', type: 'Charge', repeated: true },
  ],
  Invoice: [
    s('id', true),
    ...strings('store', 'status', 'serialno', 'documenttype', 'type', 'currency', 'currencyrate', 'basecurrency'),
    ...strings('total', 'vat', 'totalpaid', 'invoicedate', 'orderdate', 'duedate'),
    ...refs('buyer', 'account', 'order', 'shipment', 'refund'),
    ...strings('paymentterms', 'shippingterms', 'internalinformation', 'ponumber'),
    address('billingaddress'),
    address('shippingaddress'),
    one('items', 'InvoiceItems'),
    s('locked'),
  ],

  OrderBuyer: [s('id', true), ...strings('description', 'firstname', 'lastname', 'email')],
  OrderMasterSalesRep: [s('id', true), ...strings('email', 'name', 'percent')],
  OrderDeliveryWindow: [s('id', true), ...strings('description', 'type'), bool('atonce'), ...strings('start', 'stop')],
  Payment: strings('type', 'paid', 'value', 'created', 'transaction', 'document'),
  Payments: [...strings('name', 'type', 'total', 'status', 'method'), one('payment', 'Payment')],
  Refund: [
    s('id', true),
    charge('shipping'),
    charge('voucher'),
    list('products', 'product', 'ProductLine'),
    s('comment'),
    charge('returnfee'),
    charge('handling'),
    ...strings('status', 'type'),
  ],
  Shipment: [
    s('id', true),
    ...strings('paid', 'shipped', 'goodtogo', 'capture', 'appendix', 'shipmenttotal', 'paidtotal'),
    ...strings('currency', 'currencyrate', 'basecurrency', 'created'),
    address('shippingaddress'),
    one('carrierinformation', 'Carrier'),
    list('products', 'product', 'ProductLine'),
    list('refunds', 'refund', 'Refund'),
    ...['shipping', 'handling', 'voucher'].map(charge),
  ],
  Order: [
    s('id', true),
    ...strings('ordernumber', 'type'),
    int('store'),
    ...strings('locked', 'status', 'ordertotal', 'currency', 'currencyrate', 'basecurrency', 'created'),
    bool('internal'),
    s('preferred_shipping_date'),
    one('buyer', 'OrderBuyer'),
    one('salesrep', 'SalesRep'),
    list('mastersalesrep', 'salesrep', 'OrderMasterSalesRep'),
    ...refs('account', 'paymentterms', 'shippingterms'),
    one('deliverywindow', 'OrderDeliveryWindow'),
    ref('collection'),
    list('additionals', 'additional', 'Additional'),
    list('primary_warehouse', 'warehouse', 'Ref'),
    ...['shipping', 'handling', 'voucher'].map(charge),
    one('payments', 'Payments'),
    list('products', 'product', 'ProductLine'),
    list('cancelled', 'product', 'ProductLine'),
    list('shipments', 'shipment', 'Shipment'),
    one('carrierinformation', 'Carrier'),
    ref('customer'),
    address('shippingaddress'),
    address('billingaddress'),
    ...strings('internalinformation', 'other', 'ponumber'),
    ...refs('market', 'pricelist'),
    s('ecvatno'),
  ],

  // The change-event feed (events_Get). `stock` is named by the spec's `data` without a shape of its own:
  // the product (the ERP's id) and, once the catalog publishes them, the size's quantities.
  Stock: [
    ref('product'),
    ref('variation'),
    ref('size'),
    ...strings('sku', 'ean', 'qty'),
    list('warehouseitems', 'warehouse', 'WarehouseItem'),
  ],
  EventData: [
    one('account', 'Account'),
    one('customer', 'Customer'),
    one('invoice', 'Invoice'),
    one('market', 'Market'),
    one('order', 'Order'),
    one('pricelist', 'Pricelist'),
    one('salesrep', 'SalesRep'),
    one('size', 'Size'),
    one('warehouse', 'Warehouse'),
    one('stock', 'Stock'),
    // Not in the spec's `data`, whose type list still names paymentterm and shippingterm events.
    one('paymentterms', 'PaymentTerms'),
    one('shippingterms', 'ShippingTerms'),
  ],
  Event: [s('id', true), s('type', true), s('entry', true), s('mission', true), s('date', true), one('data', 'EventData')],
};

export const isScalar = (type: string): type is Scalar => type === 'string' || type === 'int' || type === 'boolean';
