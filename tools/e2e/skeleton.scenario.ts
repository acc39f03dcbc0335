import http from 'node:http';
import { soapRequestXml } from '@commerce/backoffice-adapters';
import { expectMatchesSchema } from './openapi-validator';

/**
 * The walking skeleton through the public interfaces only (issue 2, part 5): a SOAP products_Update
 * is accepted, applied by the catalog, indexed, found by POST products with `search`, and added to a
 * selection whose token comes back in API-Token. Run against the all-in-one and the separate processes.
 */
export interface Endpoints {
  checkout: string; // e.g. http://127.0.0.1:8080/api/checkout
  soap: string; // e.g. http://127.0.0.1:8080/ams/system/service/module/soap/api
  soapUser: { username: string; password: string; namespace: string };
}

export const uniqueWord = (): string => `skel${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

export function skeletonProductXml(externalId: string, name: string, qty = 7): string {
  return `<products><product>
    <id>${externalId}</id><status>active</status><sku>SK-${externalId}</sku><description>${name}</description>
    <brand><id>b-${externalId}</id><description>Skeleton Brand</description></brand>
    <variations><variation><id>${externalId}-v1</id><description>Black</description><sku>SK-${externalId}-BLK</sku>
      <sizes><size><id>${externalId}-s1</id><qty>${qty}</qty><description>M</description><sku>SK-${externalId}-BLK-M</sku><ean>7300000000017</ean></size></sizes>
    </variation></variations>
  </product></products>`;
}

/** A price for the product in pricelist 1 (the demo store's Swedish market, where new sessions start). */
export function skeletonPricelistXml(externalId: string, price = '199.00'): string {
  return `<pricelists><pricelist>
    <id>1</id><currency>SEK</currency>
    <items><product><id>${externalId}</id><price>${price}</price></product></items>
  </pricelist></pricelists>`;
}

/** A product and its price: a product without a price in the visitor's pricelist is not shown (issue 6). */
export async function upsertPricedProduct(endpoints: Endpoints, externalId: string, name: string, qty = 7) {
  const price = await postSoap(endpoints, 'pricelists_Update', skeletonPricelistXml(externalId));
  expect(price.text).toMatch(/<pricelistsUpdateResponse(\s[^>]*)?>OK<\/pricelistsUpdateResponse>/);
  return postSoap(endpoints, 'products_Update', skeletonProductXml(externalId, name, qty));
}

export async function postSoap(endpoints: Endpoints, operation: string, innerXml: string, login = endpoints.soapUser) {
  const res = await fetch(endpoints.soap, {
    method: 'POST',
    headers: {
      'Content-Type': 'text/xml; charset=utf-8',
      SOAPAction: `${endpoints.soapUser.namespace}${operation[0]!.toUpperCase()}${operation.slice(1)}`,
    },
    body: soapRequestXml(operation, innerXml, { ...login, namespace: endpoints.soapUser.namespace }),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

export async function checkoutCall(
  endpoints: Endpoints,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const res = await fetch(`${endpoints.checkout}${path}`, {
    method,
    headers: {
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
      ...(options.token ? { 'API-Token': options.token } : {}),
    },
    ...(options.body !== undefined ? { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) } : {}),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

/** Any method, TRACE included (which fetch refuses to send), over plain node:http. */
export function rawRequest(url: string, method: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Polls POST products until the search finds the word (reads are eventually consistent with SOAP writes). */
export async function searchUntilFound(endpoints: Endpoints, word: string, timeoutMs = 15_000) {
  const started = Date.now();
  for (;;) {
    const res = await checkoutCall(endpoints, 'POST', '/products', { body: { search: word } });
    if (res.status === 200 && res.body['productCount'] > 0) return { ...res, elapsedMs: Date.now() - started };
    if (Date.now() - started > timeoutMs)
      throw new Error(`search for ${word} found nothing within ${timeoutMs} ms: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function runSkeletonScenario(endpoints: Endpoints) {
  const word = uniqueWord();
  const externalId = `ext-${word}`;

  const soap = await upsertPricedProduct(endpoints, externalId, `Skeleton ${word} Jacket`);
  expect(soap.status).toBe(200);
  expect(soap.headers.get('content-type')).toMatch(/^text\/xml; charset=utf-8/i);
  expect(soap.headers.get('x-service-request-id')).toBeTruthy();
  expect(soap.headers.get('x-correlation-id')).toContain(soap.headers.get('x-service-request-id')!);
  expect(soap.text).toMatch(/<productsUpdateResponse(\s[^>]*)?>OK<\/productsUpdateResponse>/);

  const found = await searchUntilFound(endpoints, word);
  expectMatchesSchema('ProductList', found.body);
  expect(found.body['productCount']).toBe(1);
  const product = found.body['products'][0];
  expect(product.name).toBe(`Skeleton ${word} Jacket`);
  expect(product.items).toHaveLength(1);
  expect(product).toMatchObject({ price: '199.00 SEK', priceAsNumber: 199 });
  const item: string = product.items[0].item;
  expect(item).toMatch(/^\d+-\d+$/);

  // A typo in a long word still finds it (fuzzy search), as the spec's search rules ask.
  const typo = await checkoutCall(endpoints, 'POST', '/products', { body: { search: `${word} Jackt` } });
  expect(typo.body['productCount']).toBe(1);

  const added = await checkoutCall(endpoints, 'POST', `/items/${item}`);
  expect(added.status).toBe(200);
  expectMatchesSchema('SelectionEnvelope', added.body);
  const token: string = added.body['token'];
  expect(token).toBeTruthy();
  expect(added.headers.get('api-token')).toBe(token);
  expect(added.body['selection'].items).toEqual([expect.objectContaining({ item, quantity: 1, product: product.product })]);

  const again = await checkoutCall(endpoints, 'POST', `/items/${item}`, { token, body: { quantity: 2 } });
  expect(again.body['token']).toBe(token);
  expect(again.body['selection'].items).toEqual([expect.objectContaining({ item, quantity: 3 })]);

  const selection = await checkoutCall(endpoints, 'GET', '/selection', { token });
  expect(selection.status).toBe(200);
  expectMatchesSchema('SelectionEnvelope', selection.body);
  expect(selection.body['token']).toBe(token);
  expect(selection.body['selection'].items).toEqual([expect.objectContaining({ item, quantity: 3 })]);
  expect(selection.body['selection'].totals.totalQuantity).toBe(3);

  return { word, item, token, productId: product.product as string, searchVisibleAfterMs: found.elapsedMs };
}

/** Bad input gets the spec's error shape and nothing half-written. */
export async function runBadInputScenario(endpoints: Endpoints) {
  const unknown = await checkoutCall(endpoints, 'POST', '/items/999999-999999');
  expect(unknown.status).toBe(404);
  expectMatchesSchema('ErrorEnvelope', unknown.body);
  expect(unknown.body['errors']).toEqual({ item: 'product item not found' });
  expect(unknown.body['token']).toBeTruthy();

  const malformedItem = await checkoutCall(endpoints, 'POST', '/items/not-an-item', { token: unknown.body['token'] });
  expect(malformedItem.status).toBe(404);
  expect(malformedItem.body['token']).toBe(unknown.body['token']);

  const badJson = await checkoutCall(endpoints, 'POST', '/products', { body: '{"search": ' });
  expect(badJson.status).toBe(400);
  expectMatchesSchema('ErrorEnvelope', badJson.body);

  // Well-formed JSON that is not an object is not "malformed": it is told what the body must be (decision 114).
  for (const [path, text] of [
    ['/products', 'null'],
    ['/items/999999-999999', 'null'],
    ['/items/999999-999999', '3'],
    ['/items/999999-999999', '[]'],
    ['/login/someone@example.com', '"secret"'],
  ] as const) {
    const notObject = await checkoutCall(endpoints, 'POST', path, { body: text, headers: { 'content-type': 'application/json' } });
    expect([path, text, notObject.status, notObject.body['errors']]).toEqual([path, text, 400, { body: 'must be a JSON object' }]);
    expectMatchesSchema('ErrorEnvelope', notObject.body);
  }

  const badField = await checkoutCall(endpoints, 'POST', '/products', { body: { limit: 'ten' } });
  expect(badField.status).toBe(400);
  expect(Object.keys(badField.body['errors'])).toEqual(['limit']);

  // A misspelt field is named by itself, as every bad field is, and nothing is added.
  const misspelt = await checkoutCall(endpoints, 'POST', '/items/999999-999999', { token: unknown.body['token'], body: { qty: 2 } });
  expect({ status: misspelt.status, body: misspelt.body }).toEqual({
    status: 400,
    body: { token: unknown.body['token'], errors: { qty: 'unknown field' } },
  });
  // A body that is not JSON (a form; a string fetch sends as text/plain) is refused, never served as if empty.
  for (const type of ['text/plain;charset=UTF-8', 'application/x-www-form-urlencoded']) {
    const notJson = await checkoutCall(endpoints, 'POST', '/products', { body: '{"limit":1}', headers: { 'content-type': type } });
    expect([type, notJson.status, notJson.body['errors']]).toEqual([type, 415, { body: 'must be JSON (Content-Type: application/json)' }]);
    expectMatchesSchema('ErrorEnvelope', notJson.body);
  }

  // A method a path does not have: 405 with Allow, in the envelope, whatever the method (not 501).
  const token = unknown.body['token'] as string;
  for (const method of ['TRACE', 'DELETE']) {
    const wrongMethod = await rawRequest(`${endpoints.checkout}/selection`, method, { 'API-Token': token });
    expect([method, wrongMethod.status]).toEqual([method, 405]);
    expect(wrongMethod.headers.allow?.split(', ').sort()).toEqual(['GET', 'HEAD']);
    const envelope = JSON.parse(wrongMethod.text) as Record<string, unknown>;
    expectMatchesSchema('ErrorEnvelope', envelope);
    expect(envelope).toEqual({ token, errors: { method: 'not allowed' } });
  }
  const soapWrongMethod = await rawRequest(endpoints.soap, 'TRACE');
  expect(soapWrongMethod.status).toBe(405);
  expect(soapWrongMethod.headers.allow?.split(', ').sort()).toEqual(['GET', 'HEAD', 'POST']);

  const word = uniqueWord();
  const badLogin = await postSoap(endpoints, 'products_Update', skeletonProductXml(`ext-${word}`, `Never ${word}`), {
    ...endpoints.soapUser,
    password: 'wrong',
  });
  expect(badLogin.status).toBe(500);
  expect(badLogin.text).toContain('Fault');
  expect(badLogin.text).not.toMatch(/at \w+ \(/); // no stack trace
  // Upserts are applied in order: once a later good batch is searchable, the rejected one would be too.
  const later = uniqueWord();
  expect((await upsertPricedProduct(endpoints, `ext-${later}`, `Later ${later}`)).status).toBe(200);
  await searchUntilFound(endpoints, later);
  const none = await checkoutCall(endpoints, 'POST', '/products', { body: { search: word } });
  expect(none.body['productCount']).toBe(0);
}
