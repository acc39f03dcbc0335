import { Document as SpectralDocument, Spectral, type RulesetDefinition } from '@stoplight/spectral-core';
import { Json } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { CHECKOUT_OPERATIONS, PageUrl, PaymentFieldsBody, createCheckoutOpenApi } from '@commerce/checkout-contracts';
import { productQueryBody } from '@commerce/catalog-contracts';
import { CHECKOUT_PREFIX, createCheckoutRoutes, type CheckoutHttpDeps } from './checkout.routes';

type Document = ReturnType<typeof createCheckoutOpenApi>;

/** Every `METHOD /path` the checkout router answers (OpenAPI path form), the document itself aside. */
function routerOperations(): string[] {
  // Only the routes are read: no request is served, so the dependencies are never called.
  const deps = { view: { store: { productFilterFields: [] } }, cart: {}, catalog: {}, sessions: {} } as unknown as CheckoutHttpDeps;
  const { router } = createCheckoutRoutes(deps);
  return router.stack
    .filter((layer) => layer.methods.length > 0)
    .flatMap((layer) => {
      const path = String(layer.path)
        .slice(CHECKOUT_PREFIX.length)
        .replace(/:(\w+)/g, '{$1}');
      return layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${path}`);
    })
    .filter((op) => op !== 'GET /openapi.json')
    .sort();
}

function documentOperations(doc: Document): string[] {
  return Object.entries(doc.paths ?? {})
    .flatMap(([path, item]) =>
      ['get', 'put', 'post', 'delete', 'patch'].filter((m) => m in (item as object)).map((m) => `${m.toUpperCase()} ${path}`),
    )
    .sort();
}

describe('the checkout OpenAPI document (generated from the zod schemas)', () => {
  const doc = createCheckoutOpenApi({ productFilterFields: ['countryOrigin'] });

  it('is a valid OpenAPI 3.1 document (no error by the oas rules of spectral) whose schemas are valid JSON Schema 2020-12', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const spectral = new Spectral();
    // As `extends: spectral:oas` in .spectral.yaml: the ruleset's recommended rules.
    spectral.setRuleset({ extends: [[oas as RulesetDefinition, 'recommended']] });
    const problems = await spectral.run(new SpectralDocument(JSON.stringify(doc), Json, 'openapi.json'));
    // Severity 0 is an error (warnings are the lint step's, tools/openapi/lint).
    expect(problems.filter((p) => p.severity === 0).map((p) => `${p.code} ${p.path.join('.')}: ${p.message}`)).toEqual([]);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    // Every component schema compiles with its references resolved.
    ajv.addSchema({ ...doc, $id: 'checkout-openapi' });
    for (const name of Object.keys(doc.components?.schemas ?? {}))
      expect(ajv.getSchema(`checkout-openapi#/components/schemas/${name}`)).toBeDefined();
  });

  it('has an operation for every route the router registers, and a route for every operation', () => {
    expect(documentOperations(doc)).toEqual(routerOperations());
    expect(CHECKOUT_OPERATIONS.map((o) => `${o.method.toUpperCase()} ${o.path}`).sort()).toEqual(routerOperations());
  });

  it('gives every operation an id, a tag, a summary, the token scheme, 429 and 503', () => {
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths ?? {}))
      for (const [method, op] of Object.entries(item as Record<string, Record<string, unknown>>)) {
        const where = `${method} ${path}`;
        expect({ where, id: typeof op['operationId'], tags: (op['tags'] as string[]).length, summary: typeof op['summary'] }).toEqual({
          where,
          id: 'string',
          tags: 1,
          summary: 'string',
        });
        ids.add(op['operationId'] as string);
        expect(Object.keys(op['responses'] as object)).toEqual(expect.arrayContaining(['200', '400', '429', '503']));
      }
    expect(ids.size).toBe(CHECKOUT_OPERATIONS.length);
    expect(doc.components?.securitySchemes?.['ApiToken']).toMatchObject({ type: 'apiKey', in: 'header', name: 'API-Token' });
  });

  it('marks a body required exactly when validation refuses no body, and states the limits validation applies', () => {
    const body = (path: string, method = 'post') =>
      (doc.paths?.[path] as Record<string, { requestBody?: { required: boolean; content: Record<string, { schema: object }> } }>)[method]!
        .requestBody!;
    expect(body('/back-in-stock-subscription').required).toBe(true);
    expect(body('/items/{item}').required).toBe(false);
    expect(body('/address-search').content['application/json']!.schema).toMatchObject({
      properties: { identityNumber: { minLength: 1, maxLength: 64 }, paymentMethod: { minLength: 1, maxLength: 100 } },
      required: ['identityNumber', 'paymentMethod'],
    });
    // The store's extra filter field is a property of the products query; any other unknown key is refused.
    const query = doc.components?.schemas?.['ProductQuery'] as { properties: object; additionalProperties: unknown };
    expect(query.properties).toHaveProperty('countryOrigin');
    expect(query.additionalProperties).toBe(false);
  });

  it('refuses a NUL character in the strings that reach a query, and says so in the document (schemathesis found the 500)', () => {
    expect(PaymentFieldsBody.safeParse({ city: 'Lund\u0000' }).success).toBe(false);
    expect(PaymentFieldsBody.safeParse({ city: 'Lund' }).success).toBe(true);
    // A lone surrogate is stored as U+FFFD (a server error in jsonb before); a pair is kept.
    expect(PaymentFieldsBody.parse({ city: 'a\uD800b', state: 'x\uD83D\uDE00' })).toEqual({ city: 'a\uFFFDb', state: 'x\uD83D\uDE00' });
    expect(productQueryBody([]).safeParse({ uri: { uri: 'a\u0000', for: ['product'] } }).success).toBe(false);
    const city = (
      doc.paths?.['/payment-fields'] as { put: { requestBody: { content: Record<string, { schema: { properties: object } }> } } }
    ).put.requestBody.content['application/json']!.schema.properties;
    expect(city).toMatchObject({ city: { pattern: '^[^\\u0000]*$', maxLength: 200 } });
  });

  it('takes as a payment page only URLs that parse, by a pattern the document states', () => {
    const accepted = ['http://shop.example/ok', 'https://127.0.0.1:8443/return?x=1#y', 'http://localhost:3000', 'https://a.b-c.se/p/ä'];
    const refused = [
      'http://1.2.3.999/',
      'http://shop.example:99999/',
      'ftp://shop.example/',
      'http://shop .example/',
      'http://[::1]/',
      'http://a/\u0000',
    ];
    for (const url of accepted) expect({ url, ok: PageUrl.safeParse(url).success && URL.canParse(url) }).toEqual({ url, ok: true });
    for (const url of refused) expect({ url, ok: PageUrl.safeParse(url).success }).toEqual({ url, ok: false });
  });
});
