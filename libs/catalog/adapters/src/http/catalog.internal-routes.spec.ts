import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { request } from 'undici';
import { createCatalogHttpClient, itemExternalIdsOf, type CatalogClient } from '@commerce/catalog-contracts';
import { createMemoryBus } from '@commerce/shared-bus';
import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { createLogger, withRequestContext } from '@commerce/shared-logging';
import { uniqueName } from '@commerce/shared-testing';
import { buildCatalogService, type CatalogService } from '../catalog.service';
import { emptyDemoCatalog } from '../demo-catalog';
import { MiniSearchIndex } from '../search/minisearch.search-index';
import { soapProduct } from '../testing/soap-product.fixture';

let engine: DbEngine;
let service: CatalogService;
let server: Server;
let baseUrl: string;
let client: CatalogClient;
const seenRequestIds: string[] = [];

beforeAll(async () => {
  engine = await createDbEngine('pglite://memory');
  const logger = createLogger('catalog-test', 'silent');
  service = await buildCatalogService({
    db: engine.forSchema(uniqueName('catalog')),
    bus: createMemoryBus({ logger }),
    search: new MiniSearchIndex(),
    logger,
  });
  await service.seed({
    ...emptyDemoCatalog(),
    pricelists: [{ id: 'SE', currency: 'SEK', items: [{ id: 'P-1', price: '499.00' }] }],
    products: [soapProduct()],
  });
  const app = new Koa();
  app.use(async (ctx, next) => {
    const id = ctx.get('x-request-id');
    if (id) seenRequestIds.push(id);
    await next();
  });
  app.use(bodyParser());
  app.use(service.router.routes()).use(service.router.allowedMethods());
  server = createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = createCatalogHttpClient(baseUrl);
}, 60_000);

afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await engine?.close();
});

describe('catalog internal HTTP API and its client', () => {
  it('counts every text search (answers from the cache too) and lists the top and zero-result queries read-only', async () => {
    for (const search of ['Sweater', 'sweater ', 'SWEATER', 'bicycle', 'bicycle'])
      await client.searchProducts({ search }, { market: '1', language: 'sv' });
    await client.searchProducts({}, { market: '1' }); // no text: not a search of the shopper's
    await service.searchQueries.flush();
    const top = await request(`${baseUrl}/internal/catalog/search-queries?days=1`);
    expect(top.statusCode).toBe(200);
    expect(((await top.body.json()) as { queries: unknown[] }).queries).toEqual([
      { query: 'sweater', searches: 3, zeroResults: 0 },
      { query: 'bicycle', searches: 2, zeroResults: 2 },
    ]);
    const zero = await request(`${baseUrl}/internal/catalog/search-queries?kind=zero&market=1&language=sv`);
    expect(await zero.body.json()).toMatchObject({ kind: 'zero', queries: [{ query: 'bicycle', searches: 2, zeroResults: 2 }] });
    const metrics = await service.searchQueries.registry.metrics();
    expect(metrics).toContain('catalog_searches_total{market="1",language="sv"} 5');
    expect(metrics).toContain('catalog_zero_result_searches_total{market="1",language="sv"} 2');
    const bad = await request(`${baseUrl}/internal/catalog/search-queries?kind=all&days=0`);
    expect(bad.statusCode).toBe(400);
    expect(((await bad.body.json()) as { errors: Record<string, string> }).errors).toEqual({
      kind: expect.any(String),
      days: expect.any(String),
    });
    const post = await request(`${baseUrl}/internal/catalog/search-queries`, { method: 'POST' });
    expect(post.statusCode).toBe(405);
    await post.body.dump();
  });

  it('answers a search over HTTP exactly as in process', async () => {
    const query = { search: 'sweater', limit: 1 };
    const overHttp = await client.searchProducts(query, {});
    expect(overHttp).toEqual(await service.client.searchProducts(query, {}));
    expect(overHttp).toMatchObject({ productCount: 2, filter: expect.arrayContaining([expect.objectContaining({ field: 'brands' })]) });
    expect(overHttp.products).toHaveLength(1);
  });

  it('gets a product and an item by id', async () => {
    const context = { market: '1', pricelist: 'SE' };
    const [product] = (await client.searchProducts({}, context)).products;
    expect(product).toMatchObject({ price: '499.00 SEK', priceAsNumber: 499 });
    expect(await client.getProduct(product!.product, context)).toEqual(product);
    expect(await client.getItem(product!.items[0]!.item, context)).toMatchObject({
      item: product!.items[0]!.item,
      sizeName: 'S',
      stock: 4,
      priceAsNumber: 499,
    });
    // The context travels over the wire: a pricelist without a price hides the product.
    expect(await client.getProduct(product!.product, { market: '1', pricelist: 'US' })).toBeNull();
  });

  it("carries a product's items' ERP ids beside the product, not in it (issue 28: the cart's line keeps them from the add)", async () => {
    const context = { market: '1', pricelist: 'SE' };
    const [listed] = (await client.searchProducts({}, context)).products;
    const product = (await client.getProduct(listed!.product, context))!;
    expect(product).not.toHaveProperty('itemsExternal');
    expect(product.items.length).toBeGreaterThan(0);
    for (const { item } of product.items) {
      const info = await client.getItem(item, context);
      expect(itemExternalIdsOf(product, item)).toEqual(info!.external);
      expect(info!.external.variation).not.toBe('');
    }
    // On the wire as `itemsExternal`; a search's products carry none (only getProduct's answer does).
    const wire = (await (
      await request(`${baseUrl}/internal/catalog/products/${product.product}?market=1&pricelist=SE`)
    ).body.json()) as Record<string, unknown>;
    expect(Object.keys(wire['itemsExternal'] as object).sort()).toEqual(product.items.map((i) => i.item).sort());
    expect(itemExternalIdsOf(listed!, listed!.items[0]!.item)).toBeUndefined();
  });

  it('gets many items in one call, as getItem each, leaving out the unknown and the malformed (issue 28)', async () => {
    const context = { market: '1', pricelist: 'SE' };
    const items = (await client.searchProducts({}, context)).products.flatMap((p) => p.items.map((i) => i.item));
    expect(items.length).toBeGreaterThan(1);
    const many = await client.getItems([...items, items[0]!, '999-1', 'not-an-item'], context);
    const each = await Promise.all(items.map((item) => client.getItem(item, context)));
    expect([...many].sort((a, b) => a.item.localeCompare(b.item))).toEqual([...each].sort((a, b) => a!.item.localeCompare(b!.item)));
    expect(await client.getItems([], context)).toEqual([]);
    const refused = await request(`${baseUrl}/internal/catalog/items`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items: 'x' }),
    });
    expect(refused.statusCode).toBe(400);
  });

  it('answers null for an unknown product or item (404 on the wire, with the spec errors)', async () => {
    expect(await client.getProduct('999999', {})).toBeNull();
    expect(await client.getItem('999-1', {})).toBeNull();
    const res = await request(`${baseUrl}/internal/catalog/items/999-1`);
    expect(res.statusCode).toBe(404);
    // No code: the internal caller reads a bare 404 as "nothing there" (null), a 404 with a code as an error.
    expect(await res.body.json()).toEqual({ errors: { item: 'product item not found' } });
  });

  it('gets a pricelist with its currency, null for one the ERP has not sent', async () => {
    expect(await client.getPricelist('SE')).toEqual({ pricelist: 'SE', currency: 'SEK' });
    expect(await client.getPricelist('SE')).toEqual(await service.client.getPricelist('SE'));
    expect(await client.getPricelist('no-such-pricelist')).toBeNull();
  });

  it('lists categories and resolves a URI exactly as in process', async () => {
    expect(await client.listCategories()).toEqual(await service.client.listCategories());
    const context = { market: '1', pricelist: 'SE' };
    const [product] = (await client.searchProducts({}, context)).products;
    const asProduct = await client.resolveUri({ uri: product!.uri, for: ['product'] }, context);
    expect(asProduct).toEqual({ found: 'product', product });
    const category = (await client.listCategories())[0]!;
    const asCategory = await client.resolveUri({ uri: category.uri, for: ['category'], query: { limit: 1 } }, context);
    expect(asCategory).toEqual(await service.client.resolveUri({ uri: category.uri, for: ['category'], query: { limit: 1 } }, context));
    expect(asCategory).toMatchObject({ found: 'category', category, productCount: 2 });
    expect(await client.resolveUri({ uri: product!.uri, for: ['category'] }, context)).toBeNull();
  });

  it('gives the same answers as JSON text for a caller that passes them on (decision 58)', async () => {
    const context = { market: '1', pricelist: 'SE' };
    const text = await client.searchProductsJson!({ search: 'sweater' }, context);
    expect(JSON.parse(text.toString('utf8'))).toEqual(await service.client.searchProducts({ search: 'sweater' }, context));
    const category = (await client.listCategories())[0]!;
    const uri = { uri: category.uri, for: ['category' as const], query: { limit: 1 } };
    expect(JSON.parse((await client.resolveUriJson!(uri, context))!.toString('utf8'))).toEqual(
      await service.client.resolveUri(uri, context),
    );
    expect(await client.resolveUriJson!({ uri: 'nowhere', for: ['category'] }, context)).toBeNull();
    await expect(client.searchProductsJson!({ limit: -1 }, {})).rejects.toMatchObject({ kind: 'invalid' });
  });

  it('rejects a malformed query with 400 and one error per bad field', async () => {
    const res = await request(`${baseUrl}/internal/catalog/products/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: { limit: 'ten' } }),
    });
    expect(res.statusCode).toBe(400);
    expect(((await res.body.json()) as { errors: Record<string, string> }).errors).toHaveProperty(['query.limit']);
    await expect(client.searchProducts({ limit: -1 }, {})).rejects.toMatchObject({ kind: 'invalid' });
  });

  it('forwards the request id of the caller', async () => {
    await withRequestContext({ requestId: 'req-catalog-1' }, () => client.getProduct('1', {}));
    expect(seenRequestIds).toContain('req-catalog-1');
  });
});
