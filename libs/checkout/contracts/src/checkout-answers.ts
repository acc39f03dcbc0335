import { z } from 'zod';
import { ADDRESS_FIELDS } from './address';

/**
 * The checkout's answers as zod schemas, from which the OpenAPI document's response schemas are generated
 * (decision 126). An object made with `z.object` is closed in the document (`additionalProperties: false`),
 * one made with `z.looseObject` is open. The e2e suites validate real answers against the generated document.
 */

const str = z.string();
const num = z.number();
const int = z.int();
const bool = z.boolean();
const strOrFalse = z.union([z.string(), z.literal(false)]);
const numOrFalse = z.union([z.number(), z.literal(false)]);
const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const CURRENCY = /^[A-Z]{3}$/;
const TOTALS = [
  'itemsTotalPrice',
  'totalDiscountPrice',
  'shippingPrice',
  'handlingCostPrice',
  'taxDeducted',
  'taxAdded',
  'grandTotalPrice',
  'grandTotalPriceTax',
] as const;
const ORDER_ITEM_PRICES = ['priceEach', 'totalPrice', 'priceEachBeforeDiscount', 'priceEachWithoutTax'] as const;
/** An order's address: the checkout's address fields and the country's name. */
const ORDER_ADDRESS_FIELDS = [...ADDRESS_FIELDS, 'countryName'] as const;

const fieldsOf = <K extends string, S extends z.ZodType>(keys: readonly K[], schema: (key: K) => S) =>
  Object.fromEntries(keys.map((k) => [k, schema(k)])) as Record<K, S>;

export const Errors = z.record(z.string(), z.string()).meta({
  id: 'Errors',
  description: 'Field → message; at least one',
  minProperties: 1,
});
export const ErrorEnvelope = z
  .looseObject({ token: str.optional(), errors: Errors })
  .meta({ id: 'ErrorEnvelope', description: 'An error answer: the token (once a session is open) and `errors`' });

export const Address = z
  .object({
    email: str,
    firstName: str,
    lastName: str,
    address1: str,
    address2: str,
    city: str,
    state: str,
    country: str,
    phoneNumber: str,
    zipCode: str,
  })
  .meta({ id: 'Address', description: "The spec's Address: one address per customer; `loggedIn` has exactly these fields" });

export const SelectionItem = z
  .looseObject({
    line: str,
    item: str,
    product: str,
    size: str,
    sku: str,
    ean: str,
    productName: str.optional(),
    brandName: str.optional(),
    quantity: int,
    priceEach: str,
    priceEachAsNumber: num,
    totalPrice: str,
    totalPriceAsNumber: num,
    priceEachBeforeDiscount: str.optional(),
    priceEachBeforeDiscountAsNumber: num.optional(),
    priceEachWithoutTax: str.optional(),
    priceEachWithoutTaxAsNumber: num.optional(),
    anyDiscount: bool.optional(),
    taxPercent: num.optional(),
    storePickup: bool.optional(),
  })
  .meta({ id: 'SelectionItem' });

export const Totals = z
  .looseObject({
    ...Object.fromEntries(
      TOTALS.flatMap((t) => [
        [t, strOrFalse],
        [`${t}AsNumber`, numOrFalse],
      ]),
    ),
    totalQuantity: int,
    taxPercent: num,
  })
  .meta({
    id: 'Totals',
    description: "The spec's Totals: each amount as a formatted string and a number, both `false` where not applicable.",
  });

export const Discounts = z
  .looseObject({
    anyDiscount: bool,
    discount: str,
    discountAsNumber: num,
    automaticDiscounts: z.array(z.looseObject({})).describe('The discounts applied without a code'),
    vouchers: z.array(
      z.looseObject({
        voucher: str,
        name: str,
        type: z.enum(['percent', 'amount', 'freeShipping']),
        discount: str,
        discountAsNumber: num,
      }),
    ),
  })
  .meta({ id: 'Discounts' });

export const CurrencyFormat = z
  .object({
    currency: str,
    name: str,
    prefix: str,
    suffix: str,
    decimalPoint: str,
    decimalDigits: z.string().regex(/^\d$/).describe('A string, as the spec gives it'),
    uri: str,
  })
  .meta({ id: 'CurrencyFormat', description: "The spec's Order `currencyFormat`; a selection's is the same (decision 111)" });

export const ShippingMethod = z
  .looseObject({ shippingMethod: str, name: str, price: str, priceAsNumber: num })
  .meta({ id: 'ShippingMethod' });
export const PaymentField = z.looseObject({ field: str, required: bool, value: str }).meta({ id: 'PaymentField' });

export const Selection = z
  .looseObject({
    currency: z.string().regex(CURRENCY),
    paymentMethod: str,
    shippingMethod: str,
    discounts: Discounts,
    vatExempt: bool,
    currencyFormat: CurrencyFormat,
    country: str.nullable().optional(),
    state: str.nullable().optional(),
    language: str.nullable().optional(),
    items: z.array(SelectionItem),
    totals: Totals,
  })
  .meta({ id: 'Selection' });

export const Location = z
  .looseObject({
    country: z
      .string()
      .regex(/^[A-Z]{2}$/)
      .nullable(),
    name: str,
    state: str.nullable(),
    stateName: str,
    eu: bool,
    shipTo: bool,
    language: str.optional(),
  })
  .meta({ id: 'Location' });
export const Language = z.looseObject({ language: str, name: str }).meta({ id: 'Language' });
export const Country = z
  .looseObject({ country: str, name: str, eu: bool, language: str, states: z.array(z.looseObject({})).optional() })
  .meta({ id: 'Country' });
export const PaymentMethod = z
  .looseObject({ paymentMethod: str, name: str, handlingCost: str, handlingCostAsNumber: num, providesCustomerAddressAfterPayment: bool })
  .meta({ id: 'PaymentMethod' });

export const Item = z
  .object({
    item: z
      .string()
      .regex(/^\d+-\d+$/)
      .describe('`<product>-<size>`'),
    itemTableX: int,
    itemTableY: int,
    name: str,
    ean: str,
    sku: str,
    stock: z.enum(['yes', 'no']).describe('`yes` when it can be bought: in stock, preorder or an open delivery window'),
    inStock: bool,
  })
  .meta({ id: 'Item' });

export const Category = z
  .object({
    category: str,
    name: z.array(str).describe('The full path of names from the top category'),
    uri: str.describe('The full path of slugs (`women/tops/shirts`)'),
    inCategory: str.optional().describe('The parent; absent at the top level'),
  })
  .meta({ id: 'Category' });

/** Every field of the spec's Product (checkout) but `relatedProducts`; all present on a product, `swatch` only for a variant with a name. */
const productFields = {
  product: str.describe("The variant's id: each variant is a checkout product"),
  name: str,
  uri: str,
  sku: str,
  productSku: str,
  variantName: str,
  countryOrigin: str,
  stockUnit: str,
  brand: str,
  brandName: str,
  brandUri: str,
  collection: str,
  collectionName: str,
  collectionUri: str,
  excerpt: str,
  excerptHtml: str,
  description: str,
  descriptionHtml: str,
  metaTitle: str,
  metaDescription: str,
  metaKeywords: str,
  category: str,
  categoryUri: str,
  categoryName: z.array(str).describe('The full path of names of the main category'),
  platformProduct: str,
  platformVariant: str,
  silkProduct: str,
  silkVariant: str,
  harmCode: str,
  harmCodeDescription: str,
  canonicalUri: str,
  itemQuantityMinimum: int,
  itemQuantityMultipleOf: int,
  price: str.describe("Formatted in the market's currency"),
  priceBeforeDiscount: str,
  priceReduction: str,
  priceAsNumber: num,
  priceBeforeDiscountAsNumber: num,
  priceReductionAsNumber: num,
  discountPercent: num,
  showAsOnSale: bool,
  newProduct: bool,
  inStock: bool,
  primaryVariant: bool,
  itemTable: z.object({ x: z.array(str), y: z.array(str), dividerSymbol: str }),
  items: z.array(Item),
  media: z.record(z.string(), z.array(str)).describe('Media kind → image URLs'),
  swatch: z.object({ desc: str, hex: str.optional() }).optional(),
  categories: z.record(z.string(), Category).describe('Its categories by id'),
};

export const RelatedProduct = z
  .object({
    ...z.object(productFields).partial().shape,
    product: productFields.product,
    media: productFields.media,
    relation: str.meta({ examples: ['variant'] }),
  })
  .meta({
    id: 'RelatedProduct',
    description:
      'Another variant of the product: its id, relation and media, or the whole product when the request asks `relatedProducts: true`',
  });
export const Product = z.object({ ...productFields, relatedProducts: z.array(RelatedProduct) }).meta({ id: 'Product' });

export const SelectionEnvelope = z
  .object({
    token: str,
    selection: Selection,
    products: z.array(Product).describe('The products of the items in the selection'),
    shippingMethods: z.array(ShippingMethod),
    removedItems: z
      .array(z.looseObject({ line: str, item: str, product: str, productName: str, quantity: int }))
      .optional()
      .describe('After a change of country: the lines removed because their item is not for sale there'),
    location: Location,
    language: Language,
    languages: z.array(Language),
    countries: z.array(Country),
    paymentMethods: z.array(PaymentMethod),
    paymentFields: z.array(PaymentField),
    loggedIn: Address.optional().describe('Present only when a customer is logged in on the token: exactly the Address fields'),
  })
  .meta({ id: 'SelectionEnvelope' });

export const OrderAddress = z
  .object(fieldsOf(ORDER_ADDRESS_FIELDS, () => str))
  .meta({ id: 'OrderAddress', description: "The spec's Address plus `company` and `countryName`" });

export const OrderItem = z
  .object({
    item: str,
    product: str,
    brandName: str,
    productName: str,
    size: str,
    sku: str,
    ean: str,
    quantity: z.int().min(1),
    storePickup: bool,
    line: str,
    ...fieldsOf(ORDER_ITEM_PRICES, () => str),
    ...fieldsOf(
      ORDER_ITEM_PRICES.map((p) => `${p}AsNumber` as const),
      () => num,
    ),
    anyDiscount: bool,
    taxPercent: num,
  })
  .meta({ id: 'OrderItem', description: "The spec's Order item: prices formatted with the order's currencyFormat, each with its number" });

export const Shipment = z
  .object({ shippedDate: str, carrier: str, service: str, trackingId: str, trackingUrl: str })
  .meta({ id: 'Shipment' });

export const Order = z
  .object({
    order: z.string().regex(/^\d+$/).describe('The order number, increasing per store'),
    status: str.meta({ examples: ['untouched'] }),
    statusDescription: str.meta({ examples: ['Pending'] }),
    message: str,
    paymentMethod: str,
    paymentMethodName: str,
    shippingMethod: str,
    shippingMethodName: str,
    currency: z.string().regex(CURRENCY),
    date: z.string().regex(DATE_TIME).describe('UTC'),
    items: z.array(OrderItem),
    discounts: Discounts,
    totals: Totals,
    vatExempt: bool,
    address: OrderAddress,
    shippingAddress: OrderAddress,
    giftMessage: str.nullable(),
    shipments: z.array(Shipment).describe('Empty until the back office reports a shipment'),
    currencyFormat: CurrencyFormat,
  })
  .meta({
    id: 'Order',
    description:
      "The spec's Order (order history entry); `POST payment-result`, the `success` action and `GET receipt` answer its fields too",
  });

export const OrdersEnvelope = z
  .object({
    token: str,
    orders: z.array(Order),
    ordersPaging: z.object({
      from: z.int().min(0),
      size: z.int().min(0).describe('The size asked for; without one, the number of orders answered'),
      totalSize: z.int().min(0).describe("All the customer's orders"),
    }),
    products: z.array(Product).describe('The products of the orders’ items that the catalog still shows'),
    location: Location,
    language: Language,
    loggedIn: Address,
  })
  .meta({ id: 'OrdersEnvelope' });

export const FilterValue = z
  .object({
    value: str,
    count: z.int().min(0).describe('Matches in the current filtered set'),
    totalCount: z.int().min(1).describe('Matches among every product of the market (no filter, no search)'),
    data: z
      .looseObject({})
      .describe(
        'brands `{brand, brandName}`, collections `{collection, collectionName}`, categories a Category, `swatch.desc` `{desc, hex?}`, an extra field `{<field>: value}`',
      ),
  })
  .meta({ id: 'FilterValue' });
export const Filter = z
  .object({
    field: str.describe("`brands`, `categories`, `collections`, `swatch.desc`, then the store's extra product filter fields"),
    values: z.array(FilterValue),
  })
  .meta({ id: 'Filter' });

export const ProductList = z
  .object({
    token: str,
    products: z.array(Product),
    productCount: z.int().min(0).describe('Matches without paging'),
    filter: z.array(Filter),
  })
  .meta({ id: 'ProductList' });
export const ProductAnswer = z.object({ token: str, product: Product }).meta({ id: 'ProductAnswer' });
export const CategoriesAnswer = z.object({ token: str, categories: z.array(Category) }).meta({ id: 'CategoriesAnswer' });
export const UriProduct = z.object({ token: str, found: z.literal('product'), product: Product }).meta({ id: 'UriProduct' });
export const UriCategory = z
  .object({
    token: str,
    found: z.literal('category'),
    category: Category,
    products: z.array(Product),
    productCount: z.int().min(0),
    filter: z.array(Filter),
  })
  .meta({ id: 'UriCategory' });
export const UriAnswer = z.union([UriProduct, UriCategory]).meta({ id: 'UriAnswer' });

export const PaymentResult = z
  .looseObject({
    token: str,
    order: str.describe('The order number'),
    status: str.describe('`untouched` for a new order'),
    statusDescription: str.describe('`Pending` for `untouched`'),
    date: z.string().regex(DATE_TIME),
    currency: str,
    items: z.array(z.looseObject({ item: str, product: str, quantity: int, priceEach: str, priceEachAsNumber: num })).min(1),
    totals: z.looseObject({ grandTotalPrice: strOrFalse, grandTotalPriceAsNumber: numOrFalse, totalQuantity: int }),
    address: z.looseObject({ country: str, countryName: str }),
    shipments: z.array(Shipment),
    currencyFormat: CurrencyFormat,
  })
  .meta({
    id: 'PaymentResult',
    description: 'The token and the fields of an order-history entry (`order`, `status`, `statusDescription`, `items`, `totals`, …)',
  });

export const PaymentAction = z
  .union([
    z.looseObject({ token: str, action: z.literal('redirect'), url: str }),
    z.looseObject({ token: str, action: z.literal('form'), formHtml: str }),
    PaymentResult.extend({ action: z.literal('success') }),
    z.looseObject({ token: str, action: z.literal('failed') }),
  ])
  .meta({
    id: 'PaymentAction',
    description: 'What the storefront does next: `redirect`, show a `form`, the order on `success`, or `failed`',
  });

export const UnavailableEnvelope = ErrorEnvelope.extend({
  token: str,
  unavailable: z.array(z.object({ item: str, product: str, originalQuantity: int, unavailable: int, available: int })).min(1),
  selection: Selection,
  products: z.array(Product),
}).meta({ id: 'UnavailableEnvelope', description: 'The items not in stock, taken out of the selection, and the selection as it is now' });

export const AddressSearchAnswer = z
  .object({
    token: str,
    address: z.object({ firstName: str, lastName: str, address1: str, zipCode: str, city: str, country: str }),
  })
  .meta({ id: 'AddressSearchAnswer' });
