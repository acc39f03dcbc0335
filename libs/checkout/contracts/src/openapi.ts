/**
 * The checkout API as an OpenAPI 3.1 document, served at `/api/checkout/openapi.json`. Tests validate
 * real responses against these schemas, so the document cannot drift from the code; every endpoint a
 * later issue adds, adds itself here.
 */
const str = { type: 'string' } as const;
const num = { type: 'number' } as const;
const int = { type: 'integer' } as const;
const bool = { type: 'boolean' } as const;
const strOrFalse = { oneOf: [{ type: 'string' }, { const: false }] } as const;
const numOrFalse = { oneOf: [{ type: 'number' }, { const: false }] } as const;
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
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: ref('ErrorEnvelope') } },
});

const json = (schema: object, description = 'OK') => ({ description, content: { 'application/json': { schema } } });

/** A selection operation: the envelope on success, the listed errors otherwise. */
const selectionOperation = (summary: string, parameters: object[], errors: Record<string, string>, requestBody?: object) => ({
  summary,
  parameters: [tokenHeader, ...parameters],
  ...(requestBody ? { requestBody: { required: false, content: { 'application/json': { schema: requestBody } } } } : {}),
  responses: {
    '200': json(ref('SelectionEnvelope')),
    ...Object.fromEntries(Object.entries(errors).map(([status, description]) => [status, errorResponse(description)])),
  },
});
const pathParam = (name: string, description: string, schema: object = { type: 'string' }) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema,
});
const quantityParam = (minimum: number) => pathParam('n', `A whole number from ${minimum} to 10000`, { type: 'string', pattern: '^\\d+$' });
const lineParam = pathParam('line', 'The `line` of a selection item');

const tokenHeader = {
  name: 'API-Token',
  in: 'header',
  required: false,
  description: 'The session token of an earlier response. Without it (or with an unknown one) a new session and token are made.',
  schema: str,
};

/** Every checkout operation can meet a domain service that does not answer. */
const withUnavailable = <T extends Record<string, { responses: Record<string, unknown> }>>(path: T): T => {
  for (const operation of Object.values(path))
    operation.responses['503'] = errorResponse('A service the edge needs does not answer; `errors` names it');
  return path;
};

export const checkoutOpenApi = {
  openapi: '3.1.0',
  info: {
    title: 'Checkout API',
    version: '1',
    description:
      'The checkout JSON API storefronts run on. Every response is a JSON object with `token`; an error adds an `errors` object (field → message) and a status of 400 or above.',
  },
  servers: [{ url: '/api/checkout' }],
  paths: {
    '/selection': withUnavailable({
      get: {
        summary: 'The selection (cart) of the session',
        parameters: [tokenHeader],
        responses: { '200': json(ref('SelectionEnvelope')) },
      },
    }),
    '/items/{item}': withUnavailable({
      post: {
        summary: 'Add a product item to the selection',
        parameters: [tokenHeader, { name: 'item', in: 'path', required: true, description: '`<product_id>-<size_id>`', schema: str }],
        requestBody: {
          required: false,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                properties: { quantity: { type: 'integer', minimum: 1, maximum: 10000 } },
              },
            },
          },
        },
        responses: {
          '200': json(ref('SelectionEnvelope')),
          '400': errorResponse('Malformed body'),
          '404': errorResponse('`errors.item` = `product item not found`'),
        },
      },
    }),
    '/items/{item}/quantity/{n}': withUnavailable({
      post: selectionOperation('Add n of a product item', [pathParam('item', '`<product_id>-<size_id>`'), quantityParam(1)], {
        '400': "`errors.quantity`: not a whole number from 1, or against the product's itemQuantityMinimum/itemQuantityMultipleOf",
        '404': "`errors.item` = `product item not found` (also when not for sale in the session's market)",
      }),
    }),
    '/items': withUnavailable({
      put: selectionOperation(
        'Set the quantities of lines and items at once (0 removes); applied whole or not at all',
        [],
        { '400': 'Malformed body or a quantity the product does not allow', '404': '`errors.item` or `errors.line` not found' },
        {
          type: 'object',
          additionalProperties: false,
          properties: {
            lines: {
              type: 'array',
              items: {
                type: 'object',
                required: ['line', 'quantity'],
                properties: { line: str, quantity: { type: 'integer', minimum: 0 } },
              },
            },
            items: {
              type: 'array',
              items: {
                type: 'object',
                required: ['item', 'quantity'],
                properties: { item: str, quantity: { type: 'integer', minimum: 0 } },
              },
            },
          },
        },
      ),
    }),
    '/lines/{line}/quantity/{n}': withUnavailable({
      post: selectionOperation('Add n to a line', [lineParam, quantityParam(1)], {
        '400': '`errors.quantity`',
        '404': '`errors.line` = `not found`',
      }),
      delete: selectionOperation('Remove n from a line (reaching 0 removes it)', [lineParam, quantityParam(1)], {
        '400': '`errors.quantity`',
        '404': '`errors.line` = `not found`',
      }),
      put: selectionOperation("Set a line's quantity (0 removes it)", [lineParam, quantityParam(0)], {
        '400': '`errors.quantity`',
        '404': '`errors.line` = `not found`',
      }),
    }),
    '/lines/{line}': withUnavailable({
      delete: selectionOperation('Remove a line', [lineParam], { '404': '`errors.line` = `not found`' }),
    }),
    '/countries/{country}': withUnavailable({
      put: selectionOperation(
        'Set the country (and optionally the language): reprices in its market; lines not for sale there are removed and listed in `removedItems`',
        [pathParam('country', 'Two-letter code')],
        { '400': 'Malformed body', '404': '`errors.country` or `errors.language` = `not found`' },
        { type: 'object', additionalProperties: false, properties: { language: str } },
      ),
    }),
    '/countries/{country}/states/{state}': withUnavailable({
      put: selectionOperation('Set the country and state', [pathParam('country', 'Two-letter code'), pathParam('state', 'State code')], {
        '404': '`errors.country` or `errors.state` = `not found`',
      }),
    }),
    '/languages/{language}': withUnavailable({
      put: selectionOperation('Select a language', [pathParam('language', 'A `language` of `languages`')], {
        '404': '`errors.language` = `not found`',
      }),
    }),
    '/payment-methods/{paymentMethod}': withUnavailable({
      put: selectionOperation(
        "Select a payment method offered in the session's country",
        [pathParam('paymentMethod', 'A `paymentMethod` of `paymentMethods`')],
        {
          '404': '`errors.paymentMethod` = `not found`',
        },
      ),
    }),
    '/shipping-methods/{shippingMethod}': withUnavailable({
      put: selectionOperation(
        "Select a shipping method offered to the session's country",
        [pathParam('shippingMethod', 'A `shippingMethod` of `shippingMethods`')],
        {
          '404': '`errors.shippingMethod` = `not found`',
        },
      ),
    }),
    '/payment-fields': withUnavailable({
      put: selectionOperation(
        'Store the address fields an embedded payment form reported (merged into those stored)',
        [],
        { '400': 'An unknown field or a value that is not a string' },
        {
          type: 'object',
          additionalProperties: false,
          properties: Object.fromEntries(
            ['email', 'firstName', 'lastName', 'company', 'address1', 'address2', 'city', 'zipCode', 'state', 'country', 'phoneNumber'].map(
              (f) => [f, str],
            ),
          ),
        },
      ),
    }),
    '/vouchers': withUnavailable({
      post: selectionOperation(
        'Use a voucher code',
        [],
        {
          '400': 'Malformed body',
          '406':
            '`errors.voucher`: why the code cannot be used (not found, expired, not valid in this country, a minimum order, one of a kind)',
        },
        { type: 'object', required: ['voucher'], additionalProperties: false, properties: { voucher: str } },
      ),
    }),
    '/vouchers/{voucher}': withUnavailable({
      delete: selectionOperation('Stop using a voucher code', [pathParam('voucher', 'The code')], {
        '404': '`errors.voucher` = `not found`',
      }),
    }),
    '/products': withUnavailable({
      post: {
        summary: 'Search and filter products',
        parameters: [tokenHeader, { name: 'pretty', in: 'query', required: false, description: 'Indent the JSON', schema: str }],
        requestBody: { required: false, content: { 'application/json': { schema: ref('ProductQuery') } } },
        responses: { '200': json(ref('ProductList')), '400': errorResponse('Malformed body: one `errors` key per bad field') },
      },
    }),
    '/products/{product}': withUnavailable({
      get: {
        summary: 'One product',
        parameters: [tokenHeader, { name: 'product', in: 'path', required: true, schema: str }],
        responses: {
          '200': json({ type: 'object', required: ['token', 'product'], properties: { token: str, product: ref('Product') } }),
          '404': errorResponse('`errors.product` = `not found`'),
        },
      },
    }),
  },
  components: {
    schemas: {
      Errors: { type: 'object', minProperties: 1, additionalProperties: { type: 'string' } },
      ErrorEnvelope: {
        type: 'object',
        required: ['errors'],
        properties: { token: str, errors: ref('Errors') },
      },
      Money: str,
      SelectionItem: {
        type: 'object',
        required: [
          'line',
          'item',
          'product',
          'size',
          'sku',
          'ean',
          'quantity',
          'priceEach',
          'priceEachAsNumber',
          'totalPrice',
          'totalPriceAsNumber',
        ],
        properties: {
          line: str,
          item: str,
          product: str,
          size: str,
          sku: str,
          ean: str,
          productName: str,
          brandName: str,
          quantity: int,
          priceEach: str,
          priceEachAsNumber: num,
          totalPrice: str,
          totalPriceAsNumber: num,
          priceEachBeforeDiscount: str,
          priceEachBeforeDiscountAsNumber: num,
          priceEachWithoutTax: str,
          priceEachWithoutTaxAsNumber: num,
          anyDiscount: bool,
          taxPercent: num,
        },
      },
      Totals: {
        type: 'object',
        description: "The spec's Totals: each amount as a formatted string and a number, both `false` where not applicable.",
        required: [...TOTALS.flatMap((t) => [t, `${t}AsNumber`]), 'totalQuantity', 'taxPercent'],
        properties: {
          ...Object.fromEntries(
            TOTALS.flatMap((t) => [
              [t, strOrFalse],
              [`${t}AsNumber`, numOrFalse],
            ]),
          ),
          totalQuantity: int,
          taxPercent: num,
        },
      },
      Discounts: {
        type: 'object',
        required: ['anyDiscount', 'discount', 'discountAsNumber', 'automaticDiscounts', 'vouchers'],
        properties: {
          anyDiscount: bool,
          discount: str,
          discountAsNumber: num,
          automaticDiscounts: { type: 'array' },
          vouchers: {
            type: 'array',
            items: {
              type: 'object',
              required: ['voucher', 'name', 'type', 'discount', 'discountAsNumber'],
              properties: {
                voucher: str,
                name: str,
                type: { enum: ['percent', 'amount', 'freeShipping'] },
                discount: str,
                discountAsNumber: num,
              },
            },
          },
        },
      },
      CurrencyFormat: {
        type: 'object',
        required: ['currency', 'name', 'prefix', 'suffix', 'decimalPoint', 'decimalDigits', 'uri'],
        properties: { currency: str, name: str, prefix: str, suffix: str, decimalPoint: str, decimalDigits: int, uri: str },
      },
      ShippingMethod: {
        type: 'object',
        required: ['shippingMethod', 'name', 'price', 'priceAsNumber'],
        properties: { shippingMethod: str, name: str, price: str, priceAsNumber: num },
      },
      PaymentField: {
        type: 'object',
        required: ['field', 'required', 'value'],
        properties: { field: str, required: bool, value: str },
      },
      Selection: {
        type: 'object',
        required: ['currency', 'paymentMethod', 'shippingMethod', 'items', 'totals', 'discounts', 'vatExempt', 'currencyFormat'],
        properties: {
          currency: { type: 'string', pattern: '^[A-Z]{3}$' },
          paymentMethod: str,
          shippingMethod: str,
          discounts: ref('Discounts'),
          vatExempt: bool,
          currencyFormat: ref('CurrencyFormat'),
          country: { type: ['string', 'null'] },
          state: { type: ['string', 'null'] },
          language: { type: ['string', 'null'] },
          items: { type: 'array', items: ref('SelectionItem') },
          totals: ref('Totals'),
        },
      },
      Location: {
        type: 'object',
        required: ['country', 'name', 'state', 'stateName', 'eu', 'shipTo'],
        properties: {
          country: { type: ['string', 'null'], pattern: '^[A-Z]{2}$' },
          name: str,
          state: { type: ['string', 'null'] },
          stateName: str,
          eu: bool,
          shipTo: bool,
          language: str,
        },
      },
      Language: { type: 'object', required: ['language', 'name'], properties: { language: str, name: str } },
      Country: {
        type: 'object',
        required: ['country', 'name', 'eu', 'language'],
        properties: { country: str, name: str, eu: bool, language: str, states: { type: 'array', items: { type: 'object' } } },
      },
      PaymentMethod: {
        type: 'object',
        required: ['paymentMethod', 'name', 'handlingCost', 'handlingCostAsNumber', 'providesCustomerAddressAfterPayment'],
        properties: {
          paymentMethod: str,
          name: str,
          handlingCost: str,
          handlingCostAsNumber: num,
          providesCustomerAddressAfterPayment: bool,
        },
      },
      SelectionEnvelope: {
        type: 'object',
        required: [
          'token',
          'selection',
          'products',
          'location',
          'language',
          'languages',
          'countries',
          'paymentMethods',
          'paymentFields',
          'shippingMethods',
        ],
        additionalProperties: false,
        properties: {
          token: str,
          selection: ref('Selection'),
          products: { type: 'array', items: ref('Product'), description: 'The products of the items in the selection' },
          shippingMethods: { type: 'array', items: ref('ShippingMethod') },
          removedItems: {
            type: 'array',
            description: 'After a change of country: the lines removed because their item is not for sale there',
            items: {
              type: 'object',
              required: ['line', 'item', 'product', 'productName', 'quantity'],
              properties: { line: str, item: str, product: str, productName: str, quantity: int },
            },
          },
          location: ref('Location'),
          language: ref('Language'),
          languages: { type: 'array', items: ref('Language') },
          countries: { type: 'array', items: ref('Country') },
          paymentMethods: { type: 'array', items: ref('PaymentMethod') },
          paymentFields: { type: 'array', items: ref('PaymentField') },
          loggedIn: { type: 'object' },
        },
      },
      Item: {
        type: 'object',
        required: ['item', 'name', 'sku', 'stock'],
        properties: {
          item: { type: 'string', pattern: '^\\d+-\\d+$' },
          itemTableX: int,
          itemTableY: int,
          name: str,
          ean: str,
          sku: str,
          stock: str,
        },
      },
      Product: {
        type: 'object',
        required: ['product', 'name', 'uri', 'price', 'priceAsNumber', 'inStock', 'items', 'media', 'categoryName'],
        properties: {
          product: str,
          name: str,
          uri: str,
          sku: str,
          productSku: str,
          variantName: str,
          brand: str,
          brandName: str,
          collection: str,
          collectionName: str,
          category: str,
          categoryUri: str,
          categoryName: { type: 'array', items: str },
          price: str,
          priceAsNumber: num,
          priceBeforeDiscount: str,
          priceBeforeDiscountAsNumber: num,
          discountPercent: num,
          showAsOnSale: bool,
          newProduct: bool,
          inStock: bool,
          primaryVariant: bool,
          itemTable: {
            type: 'object',
            properties: { x: { type: 'array', items: str }, y: { type: 'array', items: str }, dividerSymbol: str },
          },
          items: { type: 'array', items: ref('Item') },
          media: { type: 'object', additionalProperties: { type: 'array', items: str } },
          categories: { type: 'object' },
          relatedProducts: {
            type: 'array',
            items: { type: 'object', required: ['product', 'relation'], properties: { product: str, relation: str } },
          },
        },
      },
      FilterValue: {
        type: 'object',
        required: ['value', 'count', 'totalCount', 'data'],
        properties: { value: str, count: int, totalCount: int, data: { type: 'object' } },
      },
      ProductList: {
        type: 'object',
        required: ['token', 'products', 'productCount', 'filter'],
        not: { required: ['errors'] },
        properties: {
          token: str,
          products: { type: 'array', items: ref('Product') },
          productCount: int,
          filter: {
            type: 'array',
            items: {
              type: 'object',
              required: ['field', 'values'],
              properties: { field: str, values: { type: 'array', items: ref('FilterValue') } },
            },
          },
        },
      },
      ProductQuery: {
        type: 'object',
        properties: {
          skipFirst: { type: 'integer', minimum: 0 },
          limit: { type: 'integer', minimum: 1, maximum: 1000 },
          search: { type: 'string', maxLength: 500 },
          products: { type: 'array', items: int },
          categories: { type: 'array', items: int },
          brands: { type: 'array', items: int },
          collections: { type: 'array', items: int },
          onlyAvailable: bool,
          relatedProducts: bool,
        },
      },
    },
  },
} as const;
