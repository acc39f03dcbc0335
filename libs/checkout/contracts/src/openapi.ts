import { ADDRESS_FIELDS } from './address';

/** An order's address: the checkout's address fields and the country's name. */
const ORDER_ADDRESS_FIELDS = [...ADDRESS_FIELDS, 'countryName'];

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
const ORDER_ITEM_PRICES = ['priceEach', 'totalPrice', 'priceEachBeforeDiscount', 'priceEachWithoutTax'] as const;

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

const prettyParam = { name: 'pretty', in: 'query', required: false, description: 'Indent the JSON', schema: str };

/** Every field of the spec's Product (checkout) but `relatedProducts`; all present on a product, `swatch` only for a variant with a name. */
const productProperties = {
  product: { type: 'string', description: "The variant's id: each variant is a checkout product" },
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
  categoryName: { type: 'array', items: str, description: 'The full path of names of the main category' },
  platformProduct: str,
  platformVariant: str,
  silkProduct: str,
  silkVariant: str,
  harmCode: str,
  harmCodeDescription: str,
  canonicalUri: str,
  itemQuantityMinimum: int,
  itemQuantityMultipleOf: int,
  price: { type: 'string', description: "Formatted in the market's currency" },
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
  itemTable: {
    type: 'object',
    required: ['x', 'y', 'dividerSymbol'],
    additionalProperties: false,
    properties: { x: { type: 'array', items: str }, y: { type: 'array', items: str }, dividerSymbol: str },
  },
  items: { type: 'array', items: ref('Item') },
  media: { type: 'object', additionalProperties: { type: 'array', items: str }, description: 'Media kind → image URLs' },
  swatch: { type: 'object', required: ['desc'], additionalProperties: false, properties: { desc: str, hex: str } },
  categories: { type: 'object', additionalProperties: ref('Category'), description: 'Its categories by id' },
} as const;
const PRODUCT_FIELDS = Object.keys(productProperties).filter((k) => k !== 'swatch');

const ids = {
  type: 'array',
  maxItems: 1000,
  items: {
    oneOf: [
      { type: 'integer', minimum: 1 },
      { type: 'string', pattern: '^[1-9]\\d{0,14}$' },
    ],
  },
};
const names = { type: 'array', maxItems: 1000, items: { type: 'string', minLength: 1, maxLength: 200 } };
/** The fields of `POST products` (spec: POST products request body). */
const productQueryProperties = {
  skipFirst: { type: 'integer', minimum: 0, maximum: 100000, default: 0 },
  limit: { type: 'integer', minimum: 1, maximum: 1000, default: 1000 },
  categories: { ...ids, description: "A category matches its subcategories' products too" },
  collections: ids,
  products: ids,
  brands: ids,
  silkProduct: {
    oneOf: [
      { type: 'integer', minimum: 1 },
      { type: 'string', pattern: '^[1-9]\\d{0,14}$' },
    ],
    description: 'Every variant of this product (`platformProduct`)',
  },
  search: { type: 'string', maxLength: 500 },
  relatedProducts: { type: 'boolean', description: 'true: related products in full; otherwise their id, relation and media' },
  'swatch.desc': { ...names, description: 'Also accepted nested: `{"swatch": {"desc": [...]}}`; matched whatever the case' },
  'items.name': { ...names, description: 'Also accepted nested: `{"items": {"name": [...]}}`' },
  onlyAvailable: { type: 'boolean', description: 'Only products that can be bought; with `items.name`, those items must be' },
  uri: {
    type: 'object',
    required: ['uri', 'for'],
    additionalProperties: false,
    properties: { uri: str, for: { type: 'array', minItems: 1, items: { enum: ['product', 'category'] } } },
    description: 'The product with this uri, or the products in (or below) the category with this uri',
  },
  sortOrder: {
    type: 'array',
    maxItems: 6,
    items: {
      type: 'object',
      required: ['field'],
      additionalProperties: false,
      properties: {
        field: { enum: ['uri', 'categoryItemSort', 'collectionUri', 'priceAsNumber', 'createdAt', 'modifiedAt'] },
        order: { enum: ['asc', 'desc'], default: 'asc' },
      },
    },
    description: 'Without it: relevance when searching, else `categoryItemSort`. A product without the value comes last.',
  },
} as const;

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
          properties: Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, str])),
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
    '/payment': withUnavailable({
      post: {
        summary:
          "Begin payment: terms accepted, the address in the shipping country's format, the stock checked and held; answers one of the four actions",
        parameters: [tokenHeader],
        requestBody: { required: true, content: { 'application/json': { schema: ref('PaymentRequest') } } },
        responses: {
          '200': json(ref('PaymentAction')),
          '400': errorResponse('Malformed body or address; `errors` names the field (`address.zipCode`: must be in the format …)'),
          '404': errorResponse('`errors.country` = `not found`'),
          '406': errorResponse(
            '`errors.termsAndConditions` = `not accepted`, `errors.country` = `not shippable`, `errors.selection` = `empty`, or `errors.paymentMethod`',
          ),
          '410': json(
            ref('UnavailableEnvelope'),
            'Items are not in stock: they are removed from the selection and listed in `unavailable`',
          ),
        },
      },
    }),
    '/payment-result': withUnavailable({
      post: {
        summary: "The payment's result, from the provider's GET and POST variables with their original names; places the order",
        parameters: [tokenHeader],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['paymentMethodFields'],
                properties: { paymentMethodFields: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean'] } } },
              },
            },
          },
        },
        responses: {
          '200': json(ref('PaymentResult'), 'The order, the same however often the result is posted'),
          '400': errorResponse(
            '`errors.paymentMethodFields`: not a result of this shop, a signature, amount or currency that does not hold',
          ),
          '404': errorResponse('`errors.payment` = `not found`: the result is not of the payment this token started'),
          '406': errorResponse('`errors.payment` = `failed`: the provider declined'),
        },
      },
    }),
    '/receipt': withUnavailable({
      get: {
        summary: "The order last placed under the token, in the payment result's shape",
        parameters: [tokenHeader],
        responses: { '200': json(ref('PaymentResult')), '404': errorResponse('`errors.order` = `not found`') },
      },
    }),
    '/address-search': withUnavailable({
      post: {
        summary: 'The registered address of an identity number, for the invoice method of its one country',
        parameters: [tokenHeader],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['identityNumber', 'paymentMethod'],
                properties: { identityNumber: str, paymentMethod: str },
              },
            },
          },
        },
        responses: {
          '200': json({
            type: 'object',
            required: ['token', 'address'],
            additionalProperties: false,
            properties: {
              token: str,
              address: {
                type: 'object',
                required: ['firstName', 'lastName', 'address1', 'zipCode', 'city', 'country'],
                additionalProperties: false,
                properties: { firstName: str, lastName: str, address1: str, zipCode: str, city: str, country: str },
              },
            },
          }),
          '404': errorResponse('`errors.identityNumber` or `errors.paymentMethod` = `not found`'),
          '406': errorResponse('`errors.paymentMethod` = `has no address search`, or `errors.country` = `not available in this country`'),
        },
      },
    }),
    '/register': withUnavailable({
      post: selectionOperation(
        'Register a customer and log in on the token (with `SESSION_ROTATE_ON_LOGIN=true`, on a new token)',
        [],
        {
          '400': 'Malformed body; `errors` names the field',
          '406': '`errors.password` = `not valid`: under 8 or over 128 characters, a common password, or the e-mail itself',
          '409': '`errors.email` = `already registered`',
          '429': 'Too many attempts from this address; `Retry-After` says when to try again',
        },
        {
          allOf: [ref('AddressFields')],
          type: 'object',
          required: ['email', 'password'],
          properties: { email: str, password: str },
        },
      ),
    }),
    '/login/{email}': withUnavailable({
      post: selectionOperation(
        'Log in on the token (with `SESSION_ROTATE_ON_LOGIN=true`, on a new token); the items of the anonymous selection are merged into the saved selection of the account',
        [pathParam('email', 'The e-mail the customer registered with')],
        {
          '400': 'Malformed body',
          '406': '`errors.password` = `incorrect`, alike for an unknown e-mail and a wrong password',
          '429': 'Too many failed logins for this account or from this address; `Retry-After` says when to try again',
        },
        { type: 'object', required: ['password'], additionalProperties: false, properties: { password: str } },
      ),
    }),
    '/orders': withUnavailable({
      post: {
        summary: "The logged-in customer's orders, newest first, with shipments once the back office reports them",
        parameters: [tokenHeader],
        requestBody: {
          required: false,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                description: 'Without `size` every order from `from` on is returned (slow for a customer with many orders)',
                properties: {
                  from: { type: 'integer', minimum: 0, description: 'Orders to skip, newest first (default 0)' },
                  size: { type: 'integer', minimum: 0, maximum: 1000, description: 'Orders in the page' },
                },
              },
            },
          },
        },
        responses: {
          '200': json(ref('OrdersEnvelope')),
          '400': errorResponse('`from` or `size` is not a whole number in range; `errors` names it'),
          '403': errorResponse('`errors.accessRight` = `denied`: not logged in'),
        },
      },
    }),
    '/logout': withUnavailable({
      post: selectionOperation(
        'Log out: the token is anonymous again, with an empty selection (with `SESSION_ROTATE_ON_LOGIN=true`, a new token); `loggedIn` is gone',
        [],
        {},
      ),
    }),
    '/address': withUnavailable({
      put: selectionOperation(
        "Change the logged-in customer's address",
        [],
        { '400': 'Malformed body', '403': '`errors.accessRight` = `denied`: not logged in' },
        ref('AddressFields'),
      ),
    }),
    '/customer/update': withUnavailable({
      put: selectionOperation(
        "Change the logged-in customer's profile fields (the address fields but the e-mail)",
        [],
        { '400': 'Malformed body', '403': '`errors.accessRight` = `denied`: not logged in' },
        ref('AddressFields'),
      ),
    }),
    '/email': withUnavailable({
      put: selectionOperation(
        "Change the logged-in customer's e-mail",
        [],
        {
          '400': 'Malformed body or e-mail',
          '403': '`errors.accessRight` = `denied`: not logged in',
          '409': '`errors.newEmail` = `already registered`',
        },
        { type: 'object', required: ['newEmail'], additionalProperties: false, properties: { newEmail: str } },
      ),
    }),
    '/password': withUnavailable({
      put: selectionOperation(
        "Change the logged-in customer's password",
        [],
        {
          '400': 'Malformed body',
          '403': '`errors.accessRight` = `denied`: not logged in',
          '406': '`errors.password` = `incorrect` (the current password), or `errors.newPassword` = `not valid`',
        },
        {
          type: 'object',
          required: ['password', 'newPassword'],
          additionalProperties: false,
          properties: { password: str, newPassword: str },
        },
      ),
    }),
    '/password-reset-email/{email}': withUnavailable({
      post: selectionOperation(
        "Mail a password-reset link (the store's frontend URL + `linkUri`, query `id` and `i`) when a customer has the e-mail; the answer is the same either way",
        [pathParam('email', 'The e-mail the customer registered with')],
        {
          '400': '`errors.linkUri`: not a path (a scheme, a host, `//`, `..`, a query)',
          '429': 'Too many requests from this address; `Retry-After` says when to try again',
        },
        { type: 'object', additionalProperties: false, properties: { linkUri: str } },
      ),
    }),
    '/password-reset': withUnavailable({
      post: selectionOperation(
        'Set a new password with the `id` and `i` of a reset link (single use, expires), end every other login of the customer, and log in on the token (with `SESSION_ROTATE_ON_LOGIN=true`, on a new token)',
        [],
        {
          '400': 'Malformed body',
          '406': '`errors.i` = `not valid` (unknown, used or expired link), or `errors.newPassword` = `not valid`',
          '429': 'Too many links that did not work from this address; `Retry-After` says when to try again',
        },
        {
          type: 'object',
          required: ['newPassword', 'i', 'id'],
          additionalProperties: false,
          properties: { newPassword: str, i: str, id: str },
        },
      ),
    }),
    '/newsletter-subscription': withUnavailable({
      post: selectionOperation(
        'Subscribe an e-mail to the newsletter (idempotent; the time of the first consent is kept)',
        [],
        { '400': 'Malformed body; `errors` names the field (`email`, `country`, `language`)' },
        { type: 'object', required: ['email'], additionalProperties: false, properties: { email: str, country: str, language: str } },
      ),
    }),
    '/back-in-stock-subscription': withUnavailable({
      post: selectionOperation(
        "Ask for one mail when an item's stock rises above zero",
        [],
        { '400': 'Malformed body or e-mail', '404': '`errors.item` = `product item not found`' },
        { type: 'object', required: ['email', 'item'], additionalProperties: false, properties: { email: str, item: str } },
      ),
    }),
    '/products': withUnavailable({
      post: {
        summary: 'Search and filter products',
        description:
          "Every field is optional; with no body every product visible in the session's market is returned (up to `limit`, default and maximum 1000). Fields combine with AND, the values of one field with OR; an empty list restricts nothing. `productCount` counts the matches without paging; `filter` lists every value found in the market (`totalCount`) with its matches in this result (`count`).",
        parameters: [tokenHeader, prettyParam],
        requestBody: { required: false, content: { 'application/json': { schema: ref('ProductQuery') } } },
        responses: {
          '200': json(ref('ProductList')),
          '400': errorResponse(
            'Malformed body: one `errors` key per bad field (`limit`, `sortOrder.0.field`, an unknown field by its name)',
          ),
        },
      },
    }),
    '/products/{product}': withUnavailable({
      get: {
        summary: 'One product',
        parameters: [tokenHeader, prettyParam, { name: 'product', in: 'path', required: true, schema: str }],
        responses: {
          '200': json({
            type: 'object',
            required: ['token', 'product'],
            additionalProperties: false,
            properties: { token: str, product: ref('Product') },
          }),
          '404': errorResponse("`errors.product` = `not found`: unknown, malformed, or not shown in the session's market"),
        },
      },
    }),
    '/uri': withUnavailable({
      post: {
        summary: 'What a URI leads to: a product, or a category with its products',
        description:
          'Only the kinds named in `for` answer, the first one named first when a URI is both. A category answers with its products (and those of its subcategories), paged by `limit` and `skipFirst` and filtered by any other field of `POST products`.',
        parameters: [tokenHeader, prettyParam],
        requestBody: { required: true, content: { 'application/json': { schema: ref('UriQuery') } } },
        responses: {
          '200': json({ oneOf: [ref('UriProduct'), ref('UriCategory')] }),
          '400': errorResponse('Malformed body: one `errors` key per bad field'),
          '404': errorResponse('`errors.uri` = `not found`: nothing of the kinds asked'),
        },
      },
    }),
    '/categories': withUnavailable({
      get: {
        summary: 'Every category, in the order the store configuration sets (each followed by its subcategories)',
        parameters: [tokenHeader, prettyParam],
        responses: {
          '200': json({
            type: 'object',
            required: ['token', 'categories'],
            additionalProperties: false,
            properties: { token: str, categories: { type: 'array', items: ref('Category') } },
          }),
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
      Address: {
        type: 'object',
        description: "The spec's Address: one address per customer; `loggedIn` has exactly these fields",
        required: ['email', 'firstName', 'lastName', 'address1', 'address2', 'city', 'state', 'country', 'phoneNumber', 'zipCode'],
        additionalProperties: false,
        properties: {
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
        },
      },
      AddressFields: {
        type: 'object',
        description: 'Address fields to change (all optional; the e-mail is changed through `PUT email`)',
        additionalProperties: false,
        properties: {
          firstName: str,
          lastName: str,
          address1: str,
          address2: str,
          city: str,
          state: str,
          country: { type: 'string', pattern: '^([A-Za-z]{2})?$' },
          phoneNumber: str,
          zipCode: str,
        },
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
          storePickup: bool,
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
        description: "The spec's Order `currencyFormat`; a selection's is the same (decision 111)",
        type: 'object',
        required: ['currency', 'name', 'prefix', 'suffix', 'decimalPoint', 'decimalDigits', 'uri'],
        additionalProperties: false,
        properties: {
          currency: str,
          name: str,
          prefix: str,
          suffix: str,
          decimalPoint: str,
          decimalDigits: { type: 'string', pattern: '^\\d$', description: 'A string, as the spec gives it' },
          uri: str,
        },
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
          loggedIn: {
            ...ref('Address'),
            description: 'Present only when a customer is logged in on the token: exactly the Address fields',
          },
        },
      },
      OrderAddress: {
        type: 'object',
        description: "The spec's Address plus `company` and `countryName`",
        required: ORDER_ADDRESS_FIELDS,
        additionalProperties: false,
        properties: Object.fromEntries(ORDER_ADDRESS_FIELDS.map((f) => [f, str])),
      },
      OrderItem: {
        type: 'object',
        description: "The spec's Order item: prices formatted with the order's currencyFormat, each with its number",
        required: [
          'item',
          'product',
          'brandName',
          'productName',
          'size',
          'sku',
          'ean',
          'quantity',
          'storePickup',
          'line',
          ...ORDER_ITEM_PRICES.flatMap((p) => [p, `${p}AsNumber`]),
          'anyDiscount',
          'taxPercent',
        ],
        additionalProperties: false,
        properties: {
          item: str,
          product: str,
          brandName: str,
          productName: str,
          size: str,
          sku: str,
          ean: str,
          quantity: { type: 'integer', minimum: 1 },
          storePickup: bool,
          line: str,
          ...Object.fromEntries(
            ORDER_ITEM_PRICES.flatMap((p) => [
              [p, str],
              [`${p}AsNumber`, num],
            ]),
          ),
          anyDiscount: bool,
          taxPercent: num,
        },
      },
      Shipment: {
        type: 'object',
        required: ['shippedDate', 'carrier', 'service', 'trackingId', 'trackingUrl'],
        additionalProperties: false,
        properties: { shippedDate: str, carrier: str, service: str, trackingId: str, trackingUrl: str },
      },
      Order: {
        type: 'object',
        description:
          "The spec's Order (order history entry); `POST payment-result`, the `success` action and `GET receipt` answer its fields too",
        required: [
          'order',
          'status',
          'statusDescription',
          'message',
          'paymentMethod',
          'paymentMethodName',
          'shippingMethod',
          'shippingMethodName',
          'currency',
          'date',
          'items',
          'discounts',
          'totals',
          'vatExempt',
          'address',
          'shippingAddress',
          'giftMessage',
          'shipments',
          'currencyFormat',
        ],
        additionalProperties: false,
        properties: {
          order: { type: 'string', pattern: '^\\d+$', description: 'The order number, increasing per store' },
          status: { type: 'string', examples: ['untouched'] },
          statusDescription: { type: 'string', examples: ['Pending'] },
          message: str,
          paymentMethod: str,
          paymentMethodName: str,
          shippingMethod: str,
          shippingMethodName: str,
          currency: { type: 'string', pattern: '^[A-Z]{3}$' },
          date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$', description: 'UTC' },
          items: { type: 'array', items: ref('OrderItem') },
          discounts: ref('Discounts'),
          totals: ref('Totals'),
          vatExempt: bool,
          address: ref('OrderAddress'),
          shippingAddress: ref('OrderAddress'),
          giftMessage: { type: ['string', 'null'] },
          shipments: { type: 'array', items: ref('Shipment'), description: 'Empty until the back office reports a shipment' },
          currencyFormat: ref('CurrencyFormat'),
        },
      },
      OrdersEnvelope: {
        type: 'object',
        required: ['token', 'orders', 'ordersPaging', 'products', 'location', 'language', 'loggedIn'],
        additionalProperties: false,
        properties: {
          token: str,
          orders: { type: 'array', items: ref('Order') },
          ordersPaging: {
            type: 'object',
            required: ['from', 'size', 'totalSize'],
            additionalProperties: false,
            properties: {
              from: { type: 'integer', minimum: 0 },
              size: { type: 'integer', minimum: 0, description: 'The size asked for; without one, the number of orders answered' },
              totalSize: { type: 'integer', minimum: 0, description: "All the customer's orders" },
            },
          },
          products: { type: 'array', items: ref('Product'), description: 'The products of the orders’ items that the catalog still shows' },
          location: ref('Location'),
          language: ref('Language'),
          loggedIn: ref('Address'),
        },
      },
      Item: {
        type: 'object',
        required: ['item', 'itemTableX', 'itemTableY', 'name', 'ean', 'sku', 'stock', 'inStock'],
        additionalProperties: false,
        properties: {
          item: { type: 'string', pattern: '^\\d+-\\d+$', description: '`<product>-<size>`' },
          itemTableX: int,
          itemTableY: int,
          name: str,
          ean: str,
          sku: str,
          stock: { enum: ['yes', 'no'], description: '`yes` when it can be bought: in stock, preorder or an open delivery window' },
          inStock: bool,
        },
      },
      Product: {
        type: 'object',
        required: [...PRODUCT_FIELDS, 'relatedProducts'],
        additionalProperties: false,
        properties: { ...productProperties, relatedProducts: { type: 'array', items: ref('RelatedProduct') } },
      },
      RelatedProduct: {
        type: 'object',
        description:
          'Another variant of the product: its id, relation and media, or the whole product when the request asks `relatedProducts: true`',
        required: ['product', 'relation', 'media'],
        additionalProperties: false,
        properties: { ...productProperties, relation: { type: 'string', examples: ['variant'] } },
      },
      Category: {
        type: 'object',
        required: ['category', 'name', 'uri'],
        additionalProperties: false,
        properties: {
          category: str,
          name: { type: 'array', items: str, description: 'The full path of names from the top category' },
          uri: { type: 'string', description: 'The full path of slugs (`women/tops/shirts`)' },
          inCategory: { type: 'string', description: 'The parent; absent at the top level' },
        },
      },
      FilterValue: {
        type: 'object',
        required: ['value', 'count', 'totalCount', 'data'],
        additionalProperties: false,
        properties: {
          value: str,
          count: { type: 'integer', minimum: 0, description: 'Matches in the current filtered set' },
          totalCount: { type: 'integer', minimum: 1, description: 'Matches among every product of the market (no filter, no search)' },
          data: {
            type: 'object',
            description:
              'brands `{brand, brandName}`, collections `{collection, collectionName}`, categories a Category, `swatch.desc` `{desc, hex?}`, an extra field `{<field>: value}`',
          },
        },
      },
      Filter: {
        type: 'object',
        required: ['field', 'values'],
        additionalProperties: false,
        properties: {
          field: {
            type: 'string',
            description: "`brands`, `categories`, `collections`, `swatch.desc`, then the store's extra product filter fields",
          },
          values: { type: 'array', items: ref('FilterValue') },
        },
      },
      ProductList: {
        type: 'object',
        required: ['token', 'products', 'productCount', 'filter'],
        additionalProperties: false,
        properties: {
          token: str,
          products: { type: 'array', items: ref('Product') },
          productCount: { type: 'integer', minimum: 0, description: 'Matches without paging' },
          filter: { type: 'array', items: ref('Filter') },
        },
      },
      ProductQuery: {
        type: 'object',
        description:
          'Ids are integers (or strings of digits). A key the store enables as an extra product filter field (`productFilterFields`, e.g. `countryOrigin`) takes an array of values; any other unknown key is a 400.',
        properties: productQueryProperties,
        additionalProperties: { type: 'array', items: str },
      },
      UriQuery: {
        type: 'object',
        required: ['uri', 'for'],
        properties: {
          ...productQueryProperties,
          uri: {
            type: 'string',
            minLength: 1,
            maxLength: 1000,
            description: "A product's `uri` or a category's full path; slashes around it are ignored",
          },
          for: {
            type: 'array',
            minItems: 1,
            items: { enum: ['product', 'category'] },
            description: 'The kinds that may answer, the first preferred',
          },
        },
        additionalProperties: { type: 'array', items: str },
      },
      PaymentRequest: {
        type: 'object',
        required: ['paymentReturnPage', 'paymentFailedPage', 'termsAndConditions', 'address'],
        properties: {
          paymentReturnPage: { type: 'string', description: 'http(s) URL of the page the provider returns to after paying' },
          paymentFailedPage: { type: 'string', description: 'http(s) URL of the page the provider returns to after a failed payment' },
          termsAndConditions: { type: 'boolean', description: 'Must be true' },
          address: {
            type: 'object',
            description: 'The Address fields (and `company`); only `country` for a method that provides the address after payment',
            properties: Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, str])),
          },
        },
      },
      PaymentAction: {
        oneOf: [
          { type: 'object', required: ['token', 'action', 'url'], properties: { token: str, action: { const: 'redirect' }, url: str } },
          {
            type: 'object',
            required: ['token', 'action', 'formHtml'],
            properties: { token: str, action: { const: 'form' }, formHtml: str },
          },
          { allOf: [ref('PaymentResult')], required: ['action'], properties: { action: { const: 'success' } } },
          { type: 'object', required: ['token', 'action'], properties: { token: str, action: { const: 'failed' } } },
        ],
      },
      PaymentResult: {
        type: 'object',
        description: 'The token and the fields of an order-history entry (`order`, `status`, `statusDescription`, `items`, `totals`, …)',
        required: [
          'token',
          'order',
          'status',
          'statusDescription',
          'date',
          'items',
          'totals',
          'currency',
          'address',
          'shipments',
          'currencyFormat',
        ],
        properties: {
          token: str,
          order: { type: 'string', description: 'The order number' },
          status: { type: 'string', description: '`untouched` for a new order' },
          statusDescription: { type: 'string', description: '`Pending` for `untouched`' },
          date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$' },
          currency: str,
          items: {
            type: 'array',
            minItems: 1,
            items: { type: 'object', required: ['item', 'product', 'quantity', 'priceEach', 'priceEachAsNumber'] },
          },
          totals: { type: 'object', required: ['grandTotalPrice', 'grandTotalPriceAsNumber', 'totalQuantity'] },
          address: { type: 'object', required: ['country', 'countryName'] },
          shipments: { type: 'array' },
          currencyFormat: ref('CurrencyFormat'),
        },
      },
      UnavailableEnvelope: {
        allOf: [ref('ErrorEnvelope')],
        type: 'object',
        required: ['token', 'errors', 'unavailable', 'selection', 'products'],
        properties: {
          unavailable: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'object',
              required: ['item', 'product', 'originalQuantity', 'unavailable', 'available'],
              additionalProperties: false,
              properties: { item: str, product: str, originalQuantity: int, unavailable: int, available: int },
            },
          },
          selection: ref('Selection'),
          products: { type: 'array', items: ref('Product') },
        },
      },
      UriProduct: {
        type: 'object',
        required: ['token', 'found', 'product'],
        additionalProperties: false,
        properties: { token: str, found: { const: 'product' }, product: ref('Product') },
      },
      UriCategory: {
        type: 'object',
        required: ['token', 'found', 'category', 'products', 'productCount', 'filter'],
        additionalProperties: false,
        properties: {
          token: str,
          found: { const: 'category' },
          category: ref('Category'),
          products: { type: 'array', items: ref('Product') },
          productCount: { type: 'integer', minimum: 0 },
          filter: { type: 'array', items: ref('Filter') },
        },
      },
    },
  },
} as const;
