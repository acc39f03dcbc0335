import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { StorableText } from '@commerce/account-contracts';
import { productQueryBody, uriQueryBody } from '@commerce/catalog-contracts';
import * as answer from './checkout-answers';
import * as request from './checkout-requests';

/**
 * The checkout API as an OpenAPI 3.1 document, served at `/api/checkout/openapi.json`: generated from the
 * zod schemas that validate the requests (checkout-requests.ts, parsed by checkout core) and from those of
 * the answers (checkout-answers.ts, against which the e2e suites validate real answers), so that one change
 * moves both (decision 126). Only the prose (summaries, descriptions of the answers) is written here.
 * `redocly lint`, `spectral lint` and schemathesis check it in CI (tools/openapi).
 */

type Tag = 'Selection' | 'Catalog' | 'Customer' | 'Orders' | 'Payment' | 'Subscriptions';

interface Operation {
  method: 'get' | 'post' | 'put' | 'delete';
  /** The OpenAPI path (`{name}` parameters), relative to the server `/api/checkout`. */
  path: string;
  operationId: string;
  tag: Tag;
  summary: string;
  description?: string;
  path_?: Record<string, z.ZodType>;
  pretty?: boolean;
  body?: z.ZodType;
  ok: z.ZodType;
  okDescription?: string;
  /** Status → what it says; 400 on an operation with a body, 429 and 503 of every operation come from the shared responses. */
  errors?: Record<string, string>;
  links?: Record<string, { operationId: string; parameters: Record<string, string>; description: string }>;
}

/** A path value: any text without a NUL character (the routes refuse one with 400). */
const text = (description: string, example?: string) => StorableText.meta({ description, ...(example ? { example } : {}) });
const ITEM = text('`<product>-<size>`: an `item` of a product’s `items`', '1-1');
const LINE = text('The `line` of a selection item');
const EMAIL_PATH = text('The e-mail the customer registered with', 'someone@example.com');
const quantity = (min: 0 | 1) => request.quantityOf(min).meta({ description: `A whole number from ${min} to ${request.MAX_QUANTITY}` });
const NOT_LOGGED_IN = '`errors.accessRight` = `denied`: no customer is logged in on the token';

/** The token of an answer carried into the next request of a link (an OpenAPI link can set a header parameter). */
const TOKEN_OF_ANSWER = '$response.body#/token';
const lineLinks = Object.fromEntries(
  (
    [
      ['AddToLine', 'addToLine'],
      ['RemoveFromLine', 'removeFromLine'],
      ['SetLineQuantity', 'setLineQuantity'],
      ['RemoveLine', 'removeLine'],
    ] as const
  ).map(([name, operationId]) => [
    name,
    {
      operationId,
      parameters: { line: '$response.body#/selection/items/0/line', 'header.API-Token': TOKEN_OF_ANSWER },
      description: 'The line the item was added to, on the same token',
    },
  ]),
);
const profileLinks = Object.fromEntries(
  (
    [
      ['UpdateAddress', 'updateAddress'],
      ['UpdateCustomer', 'updateCustomer'],
      ['ChangeEmail', 'changeEmail'],
      ['ChangePassword', 'changePassword'],
      ['ListOrders', 'listOrders'],
      ['Logout', 'logout'],
    ] as const
  ).map(([name, operationId]) => [
    name,
    {
      operationId,
      parameters: { 'header.API-Token': TOKEN_OF_ANSWER },
      description: 'The customer just registered, logged in on the token',
    },
  ]),
);

const OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/selection',
    operationId: 'getSelection',
    tag: 'Selection',
    summary: 'The selection (cart) of the session',
    ok: answer.SelectionEnvelope,
  },
  {
    method: 'post',
    path: '/items/{item}',
    operationId: 'addItem',
    tag: 'Selection',
    summary: 'Add a product item to the selection',
    path_: { item: ITEM },
    body: request.QuantityBody,
    ok: answer.SelectionEnvelope,
    errors: { '404': "`errors.item` = `product item not found` (also when not for sale in the session's market)" },
    links: lineLinks,
  },
  {
    method: 'post',
    path: '/items/{item}/quantity/{n}',
    operationId: 'addItemQuantity',
    tag: 'Selection',
    summary: 'Add n of a product item',
    path_: { item: ITEM, n: quantity(1) },
    ok: answer.SelectionEnvelope,
    errors: {
      '400': "`errors.quantity`: not a whole number from 1, or against the product's itemQuantityMinimum/itemQuantityMultipleOf",
      '404': "`errors.item` = `product item not found` (also when not for sale in the session's market)",
    },
  },
  {
    method: 'put',
    path: '/items',
    operationId: 'setQuantities',
    tag: 'Selection',
    summary: 'Set the quantities of lines and items at once (0 removes); applied whole or not at all',
    body: request.BulkQuantitiesBody,
    ok: answer.SelectionEnvelope,
    errors: { '400': 'Malformed body or a quantity the product does not allow', '404': '`errors.item` or `errors.line` not found' },
  },
  ...(
    [
      ['post', 'addToLine', 'Add n to a line', 1],
      ['delete', 'removeFromLine', 'Remove n from a line (reaching 0 removes it)', 1],
      ['put', 'setLineQuantity', "Set a line's quantity (0 removes it)", 0],
    ] as const
  ).map(([method, operationId, summary, min]): Operation => ({
    method,
    path: '/lines/{line}/quantity/{n}',
    operationId,
    tag: 'Selection',
    summary,
    path_: { line: LINE, n: quantity(min) },
    ok: answer.SelectionEnvelope,
    errors: {
      '400': "`errors.quantity`: not a whole number in range, or against the product's quantity rules",
      '404': '`errors.line` = `not found`',
    },
  })),
  {
    method: 'delete',
    path: '/lines/{line}',
    operationId: 'removeLine',
    tag: 'Selection',
    summary: 'Remove a line',
    path_: { line: LINE },
    ok: answer.SelectionEnvelope,
    errors: { '404': '`errors.line` = `not found`' },
  },
  {
    method: 'put',
    path: '/countries/{country}',
    operationId: 'setCountry',
    tag: 'Selection',
    summary: 'Set the country (and optionally the language)',
    description: 'Reprices the selection in the country’s market; lines not for sale there are removed and listed in `removedItems`.',
    path_: { country: text('Two-letter code', 'SE') },
    body: request.CountryBody,
    ok: answer.SelectionEnvelope,
    errors: { '404': '`errors.country` or `errors.language` = `not found`' },
  },
  {
    method: 'put',
    path: '/countries/{country}/states/{state}',
    operationId: 'setCountryState',
    tag: 'Selection',
    summary: 'Set the country and state',
    path_: { country: text('Two-letter code', 'US'), state: text('State code', 'CA') },
    body: request.CountryBody,
    ok: answer.SelectionEnvelope,
    errors: { '404': '`errors.country`, `errors.state` or `errors.language` = `not found`' },
  },
  {
    method: 'put',
    path: '/languages/{language}',
    operationId: 'setLanguage',
    tag: 'Selection',
    summary: 'Select a language',
    path_: { language: text('A `language` of `languages`', 'en') },
    ok: answer.SelectionEnvelope,
    errors: { '404': '`errors.language` = `not found`' },
  },
  {
    method: 'put',
    path: '/payment-methods/{paymentMethod}',
    operationId: 'setPaymentMethod',
    tag: 'Selection',
    summary: "Select a payment method offered in the session's country",
    path_: { paymentMethod: text('A `paymentMethod` of `paymentMethods`') },
    ok: answer.SelectionEnvelope,
    errors: { '404': '`errors.paymentMethod` = `not found`' },
  },
  {
    method: 'put',
    path: '/shipping-methods/{shippingMethod}',
    operationId: 'setShippingMethod',
    tag: 'Selection',
    summary: "Select a shipping method offered to the session's country",
    path_: { shippingMethod: text('A `shippingMethod` of `shippingMethods`') },
    ok: answer.SelectionEnvelope,
    errors: { '404': '`errors.shippingMethod` = `not found`' },
  },
  {
    method: 'put',
    path: '/payment-fields',
    operationId: 'setPaymentFields',
    tag: 'Selection',
    summary: 'Store the address fields an embedded payment form reported (merged into those stored)',
    body: request.PaymentFieldsBody,
    ok: answer.SelectionEnvelope,
  },
  {
    method: 'post',
    path: '/vouchers',
    operationId: 'addVoucher',
    tag: 'Selection',
    summary: 'Use a voucher code',
    body: request.VoucherBody,
    ok: answer.SelectionEnvelope,
    errors: {
      '406':
        '`errors.voucher`: why the code cannot be used (not found, expired, not valid in this country, a minimum order, one of a kind)',
    },
  },
  {
    method: 'delete',
    path: '/vouchers/{voucher}',
    operationId: 'removeVoucher',
    tag: 'Selection',
    summary: 'Stop using a voucher code',
    path_: { voucher: text('The code') },
    ok: answer.SelectionEnvelope,
    errors: { '404': '`errors.voucher` = `not found`' },
  },
  {
    method: 'post',
    path: '/payment',
    operationId: 'startPayment',
    tag: 'Payment',
    summary: 'Begin payment; answers one of the four actions',
    description:
      "Terms accepted, the address in the shipping country's format, the stock checked and held; then the payment provider decides the action: `redirect`, `form`, `success` (the order is placed at once) or `failed`.",
    body: request.PaymentBody,
    ok: answer.PaymentAction,
    errors: {
      '400':
        "Malformed body or address; `errors` names the field (`address.zipCode`: must be in the format …); the address is checked against the country's rules",
      '404': '`errors.country` = `not found`',
      '406':
        '`errors.termsAndConditions` = `not accepted`, `errors.country` = `not shippable`, `errors.selection` = `empty`, or `errors.paymentMethod`',
      '410': 'Items are not in stock: they are removed from the selection and listed in `unavailable`',
    },
  },
  {
    method: 'post',
    path: '/payment-result',
    operationId: 'paymentResult',
    tag: 'Payment',
    summary: "The payment's result, from the provider's GET and POST variables with their original names; places the order",
    body: request.PaymentResultBody,
    ok: answer.PaymentResult,
    okDescription: 'The order, the same however often the result is posted',
    errors: {
      '400': '`errors.paymentMethodFields`: not a result of this shop, a signature, amount or currency that does not hold',
      '404': '`errors.payment` = `not found`: the result is not of the payment this token started',
      '406': '`errors.payment` = `failed`: the provider declined',
      '410': 'The hold had expired and the stock is gone: no order, the payment voided; the missing items listed in `unavailable`',
    },
  },
  {
    method: 'get',
    path: '/receipt',
    operationId: 'getReceipt',
    tag: 'Payment',
    summary: "The order last placed under the token, in the payment result's shape",
    ok: answer.PaymentResult,
    errors: { '404': '`errors.order` = `not found`' },
  },
  {
    method: 'post',
    path: '/address-search',
    operationId: 'addressSearch',
    tag: 'Payment',
    summary: 'The registered address of an identity number, for the invoice method of its one country',
    body: request.AddressSearchBody,
    ok: answer.AddressSearchAnswer,
    errors: {
      '404': '`errors.identityNumber` or `errors.paymentMethod` = `not found`',
      '406': '`errors.paymentMethod` = `has no address search`, or `errors.country` = `not available in this country`',
    },
  },
  {
    method: 'post',
    path: '/register',
    operationId: 'register',
    tag: 'Customer',
    summary: 'Register a customer and log in on the token (with `SESSION_ROTATE_ON_LOGIN=true`, on a new token)',
    body: request.RegisterBody,
    ok: answer.SelectionEnvelope,
    errors: {
      '406': '`errors.password` = `not valid`: under 8 or over 128 characters, a common password, or the e-mail itself',
      '409': '`errors.email` = `already registered`',
    },
    links: profileLinks,
  },
  {
    method: 'post',
    path: '/login/{email}',
    operationId: 'login',
    tag: 'Customer',
    summary:
      'Log in on the token (with `SESSION_ROTATE_ON_LOGIN=true`, on a new token); the items of the anonymous selection are merged into the saved selection of the account',
    path_: { email: EMAIL_PATH },
    body: request.LoginBody,
    ok: answer.SelectionEnvelope,
    errors: { '406': '`errors.password` = `incorrect`, alike for an unknown e-mail and a wrong password' },
  },
  {
    method: 'post',
    path: '/logout',
    operationId: 'logout',
    tag: 'Customer',
    summary:
      'Log out: the token is anonymous again, with an empty selection (with `SESSION_ROTATE_ON_LOGIN=true`, a new token); `loggedIn` is gone',
    ok: answer.SelectionEnvelope,
  },
  {
    method: 'put',
    path: '/address',
    operationId: 'updateAddress',
    tag: 'Customer',
    summary: "Change the logged-in customer's address",
    body: request.AddressBody,
    ok: answer.SelectionEnvelope,
    errors: { '403': NOT_LOGGED_IN },
  },
  {
    method: 'put',
    path: '/customer/update',
    operationId: 'updateCustomer',
    tag: 'Customer',
    summary: "Change the logged-in customer's profile fields (the address fields but the e-mail)",
    body: request.AddressBody,
    ok: answer.SelectionEnvelope,
    errors: { '403': NOT_LOGGED_IN },
  },
  {
    method: 'put',
    path: '/email',
    operationId: 'changeEmail',
    tag: 'Customer',
    summary: "Change the logged-in customer's e-mail",
    body: request.EmailBody,
    ok: answer.SelectionEnvelope,
    errors: { '403': NOT_LOGGED_IN, '409': '`errors.newEmail` = `already registered`' },
  },
  {
    method: 'put',
    path: '/password',
    operationId: 'changePassword',
    tag: 'Customer',
    summary: "Change the logged-in customer's password",
    body: request.PasswordBody,
    ok: answer.SelectionEnvelope,
    errors: {
      '403': NOT_LOGGED_IN,
      '406': '`errors.password` = `incorrect` (the current password), or `errors.newPassword` = `not valid`',
    },
  },
  {
    method: 'post',
    path: '/password-reset-email/{email}',
    operationId: 'passwordResetEmail',
    tag: 'Customer',
    summary: 'Mail a password-reset link when a customer has the e-mail; the answer is the same either way',
    description: "The link is the store's frontend URL + `linkUri`, with the query `id` and `i`.",
    path_: { email: EMAIL_PATH },
    body: request.ResetEmailBody,
    ok: answer.SelectionEnvelope,
  },
  {
    method: 'post',
    path: '/password-reset',
    operationId: 'passwordReset',
    tag: 'Customer',
    summary:
      'Set a new password with the `id` and `i` of a reset link and log in on the token (with `SESSION_ROTATE_ON_LOGIN=true`, on a new token)',
    description: 'The link is single use and expires; every other login of the customer ends.',
    body: request.ResetBody,
    ok: answer.SelectionEnvelope,
    errors: { '406': '`errors.i` = `not valid` (unknown, used or expired link), or `errors.newPassword` = `not valid`' },
  },
  {
    method: 'post',
    path: '/orders',
    operationId: 'listOrders',
    tag: 'Orders',
    summary: "The logged-in customer's orders, newest first, with shipments once the back office reports them",
    description: 'Without `size` every order from `from` on is returned.',
    body: request.OrdersBody,
    ok: answer.OrdersEnvelope,
    errors: { '403': NOT_LOGGED_IN },
  },
  {
    method: 'post',
    path: '/newsletter-subscription',
    operationId: 'subscribeNewsletter',
    tag: 'Subscriptions',
    summary: 'Subscribe an e-mail to the newsletter (idempotent; the time of the first consent is kept)',
    body: request.NewsletterBody,
    ok: answer.SelectionEnvelope,
  },
  {
    method: 'post',
    path: '/back-in-stock-subscription',
    operationId: 'subscribeBackInStock',
    tag: 'Subscriptions',
    summary: "Ask for one mail when an item's stock rises above zero",
    body: request.BackInStockBody,
    ok: answer.SelectionEnvelope,
    errors: { '404': '`errors.item` = `product item not found`' },
  },
  {
    method: 'post',
    path: '/products',
    operationId: 'searchProducts',
    tag: 'Catalog',
    summary: 'Search and filter products',
    description:
      'Every field is optional; with no body every product visible in the session\'s market is returned (up to `limit`, default and maximum 1000). Fields combine with AND, the values of one field with OR; an empty list restricts nothing. `swatch.desc` and `items.name` are also accepted nested (`{"swatch": {"desc": [...]}}`). `productCount` counts the matches without paging; `filter` lists every value found in the market (`totalCount`) with its matches in this result (`count`).',
    pretty: true,
    body: z.never(), // replaced by the store's productQueryBody
    ok: answer.ProductList,
  },
  {
    method: 'get',
    path: '/products/{product}',
    operationId: 'getProduct',
    tag: 'Catalog',
    summary: 'One product',
    pretty: true,
    path_: { product: text('A `product` id', '1') },
    ok: answer.ProductAnswer,
    errors: { '404': "`errors.product` = `not found`: unknown, malformed, or not shown in the session's market" },
  },
  {
    method: 'post',
    path: '/uri',
    operationId: 'resolveUri',
    tag: 'Catalog',
    summary: 'What a URI leads to: a product, or a category with its products',
    description:
      'Only the kinds named in `for` answer, the first one named first when a URI is both. A category answers with its products (and those of its subcategories), paged by `limit` and `skipFirst` and filtered by any other field of `POST products`.',
    pretty: true,
    body: z.never(), // replaced by the store's uriQueryBody
    ok: answer.UriAnswer,
    errors: { '404': '`errors.uri` = `not found`: nothing of the kinds asked' },
  },
  {
    method: 'get',
    path: '/categories',
    operationId: 'listCategories',
    tag: 'Catalog',
    summary: 'Every category, in the order the store configuration sets (each followed by its subcategories)',
    pretty: true,
    ok: answer.CategoriesAnswer,
  },
];

const TAGS: Record<Tag, string> = {
  Selection: 'The selection (cart) of the session and its country, language, methods and vouchers',
  Catalog: 'Products and categories in the session’s market',
  Customer: 'Registration, login and the logged-in customer’s profile',
  Orders: 'The order history of the logged-in customer',
  Payment: 'Payment and the placed order',
  Subscriptions: 'Newsletter and back-in-stock subscriptions',
};

const errorAnswer = (description: string, schema: z.ZodType = answer.ErrorEnvelope) => ({
  description,
  content: { 'application/json': { schema } },
});

/** `{}` passes: no body is read as `{}`, so the body is optional exactly then. */
const bodyRequired = (schema: z.ZodType) => !schema.safeParse({}).success;

function operationObject(op: Operation, bodies: { products: z.ZodType; uri: z.ZodType }): ZodOpenApiOperationObject {
  const body = op.operationId === 'searchProducts' ? bodies.products : op.operationId === 'resolveUri' ? bodies.uri : op.body;
  const errors = {
    ...(body
      ? { '400': 'Malformed body, or a path value with a NUL character; `errors` names each field (an unknown one by its name)' }
      : {}),
    ...op.errors,
  };
  return {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    parameters: [{ $ref: '#/components/parameters/ApiToken' }, ...(op.pretty ? [{ $ref: '#/components/parameters/Pretty' }] : [])],
    ...(op.path_ ? { requestParams: { path: z.object(op.path_) } } : {}),
    ...(body ? { requestBody: { required: bodyRequired(body), content: { 'application/json': { schema: body } } } } : {}),
    responses: {
      '200': {
        description: op.okDescription ?? 'OK',
        content: { 'application/json': { schema: op.ok } },
        ...(op.links ? { links: op.links } : {}),
      },
      ...Object.fromEntries(
        Object.entries(errors).map(([status, description]) => [
          status,
          errorAnswer(description, status === '410' ? answer.UnavailableEnvelope : answer.ErrorEnvelope),
        ]),
      ),
      ...(body || op.errors?.['400'] ? {} : { '400': { $ref: '#/components/responses/MalformedRequest' } }),
      '415': { $ref: '#/components/responses/UnsupportedMediaType' },
      '429': { $ref: '#/components/responses/TooManyRequests' },
      '503': { $ref: '#/components/responses/Unavailable' },
    },
  };
}

export interface CheckoutOpenApiOptions {
  /** The store's extra product filter fields (`productFilterFields`), which `POST products` and `POST uri` accept. */
  productFilterFields?: readonly string[];
}

/** The document for a store (its extra product filter fields are part of the products query). */
export function createCheckoutOpenApi(options: CheckoutOpenApiOptions = {}) {
  const fields = options.productFilterFields ?? [];
  const bodies = {
    products: productQueryBody(fields).meta({
      id: 'ProductQuery',
      description:
        'Ids are integers (or strings of digits); the store’s extra product filter fields take a list of values; any other key is a 400.',
    }),
    uri: uriQueryBody(fields).meta({ id: 'UriQuery' }),
  };
  const paths: ZodOpenApiPathsObject = {};
  for (const op of OPERATIONS) (paths[op.path] ??= {})[op.method] = operationObject(op, bodies);
  const retryAfter = {
    'Retry-After': { description: 'Seconds until a new attempt can succeed', schema: { type: 'integer', minimum: 0 } },
  } as const;
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Checkout API',
      version: '1',
      description:
        'The checkout JSON API storefronts run on. Every response is a JSON object with `token`; an error adds an `errors` object (field → message) and a status of 400 or above.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/api/checkout' }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    security: [{}, { ApiToken: [] }],
    paths,
    components: {
      securitySchemes: {
        ApiToken: {
          type: 'apiKey',
          in: 'header',
          name: 'API-Token',
          description:
            'The session token of an earlier answer (its `token`, also in its `API-Token` header), an answer that stored nothing included. Without it, or with an unknown or expired one, a new session and token are made.',
        },
      },
      parameters: {
        ApiToken: {
          name: 'API-Token',
          in: 'header',
          required: false,
          description: 'The session token (the `ApiToken` scheme), as a parameter so that links can carry it',
          schema: { type: 'string' },
        },
        Pretty: { name: 'pretty', in: 'query', required: false, description: 'Indent the JSON', schema: { type: 'string' } },
      },
      responses: {
        MalformedRequest: errorAnswer('A body that is not a JSON object (`errors.body`), or a path value with a NUL character'),
        UnsupportedMediaType: errorAnswer('A body that is not `application/json`'),
        TooManyRequests: {
          ...errorAnswer(
            'Too many requests of this kind from this address or for this account (logins, registrations, reset mails; new sessions stored: `errors.session`)',
          ),
          headers: retryAfter,
        },
        Unavailable: {
          ...errorAnswer(
            'A service the checkout needs does not answer in time; `errors` names it. Try again after `Retry-After` when given.',
          ),
          headers: retryAfter,
        },
      },
    },
  });
}

/** The document of a store without extra product filter fields. */
export const checkoutOpenApi = createCheckoutOpenApi();

/** Every operation's method and path (OpenAPI form), for the test that the router and the document agree. */
export const CHECKOUT_OPERATIONS = OPERATIONS.map((op) => ({ method: op.method, path: op.path, operationId: op.operationId }));
