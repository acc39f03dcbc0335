/**
 * The checkout API as an OpenAPI 3.1 document, served at `/api/checkout/openapi.json`. Tests validate
 * real responses against these schemas, so the document cannot drift from the code; every endpoint a
 * later issue adds, adds itself here.
 */
const str = { type: 'string' } as const;
const num = { type: 'number' } as const;
const int = { type: 'integer' } as const;
const bool = { type: 'boolean' } as const;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: ref('ErrorEnvelope') } },
});

const json = (schema: object, description = 'OK') => ({ description, content: { 'application/json': { schema } } });

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
          anyDiscount: bool,
        },
      },
      Selection: {
        type: 'object',
        required: ['currency', 'paymentMethod', 'items', 'totals'],
        properties: {
          currency: { type: 'string', pattern: '^[A-Z]{3}$' },
          paymentMethod: str,
          country: { type: ['string', 'null'] },
          state: { type: ['string', 'null'] },
          language: { type: ['string', 'null'] },
          items: { type: 'array', items: ref('SelectionItem') },
          totals: {
            type: 'object',
            required: ['itemsTotalPrice', 'itemsTotalPriceAsNumber', 'grandTotalPrice', 'grandTotalPriceAsNumber', 'totalQuantity'],
            properties: {
              itemsTotalPrice: str,
              itemsTotalPriceAsNumber: num,
              grandTotalPrice: str,
              grandTotalPriceAsNumber: num,
              totalQuantity: int,
            },
          },
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
        required: ['token', 'selection', 'location', 'language', 'languages', 'countries', 'paymentMethods', 'paymentFields'],
        not: { required: ['errors'] },
        properties: {
          token: str,
          selection: ref('Selection'),
          location: ref('Location'),
          language: ref('Language'),
          languages: { type: 'array', items: ref('Language') },
          countries: { type: 'array', items: ref('Country') },
          paymentMethods: { type: 'array', items: ref('PaymentMethod') },
          paymentFields: { type: 'array' },
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
