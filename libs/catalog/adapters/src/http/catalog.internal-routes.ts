import { Router } from '@koa/router';
import { productOnWire, ProductQuerySchema, queryErrors, UriQuerySchema, type CatalogClient } from '@commerce/catalog-contracts';
import { ItemNotFoundError, listingJson, ProductNotFoundError } from '@commerce/catalog-core';
import { isDomainError, statusOfKind, ValidationError } from '@commerce/shared-errors';
import { answerNotFound } from '@commerce/shared-http';
import { z } from 'zod';
import { ListOptionsSchema, type SearchQueryStats } from '../search/search-queries.store';

const PriceContextSchema = z.object({ market: z.string().optional(), pricelist: z.string().optional(), language: z.string().optional() });
const SearchBodySchema = z.object({ query: ProductQuerySchema.default({}), context: PriceContextSchema.default({}) });
const UriBodySchema = z.object({ query: UriQuerySchema, context: PriceContextSchema.default({}) });
/** A checkout's items (a selection has at most a few hundred lines). */
const ItemsBodySchema = z.object({ items: z.array(z.string().min(1).max(64)).max(1000), context: PriceContextSchema.default({}) });

/** `?market=…&pricelist=…&language=…` of the GET routes. */
const contextOf = (query: Record<string, unknown>) => {
  const parsed = PriceContextSchema.safeParse(query);
  return parsed.success ? parsed.data : {};
};

/**
 * The JSON of a listing answer, made once per answer object: a listing answer the catalog keeps (decision
 * 53) comes back as the same object until it is cleared, so it is serialised once, not at every request;
 * a new answer reuses each product's JSON while its DTO is kept (`listingJson`, decision 58).
 */
const serialised = new WeakMap<object, Buffer>();
function sendJson(ctx: { type: string; body: unknown }, answer: object): void {
  let json = serialised.get(answer);
  if (json === undefined) {
    json = listingJson(answer);
    serialised.set(answer, json);
  }
  ctx.type = 'application/json';
  ctx.body = json;
}

/**
 * The catalog's internal HTTP API, for deployments where the edge runs in another process
 * (`createCatalogHttpClient` is its client). It only parses, calls the use case and maps the result.
 */
export function createCatalogInternalRouter(catalog: CatalogClient, searchQueries?: Pick<SearchQueryStats, 'list'>): Router {
  const router = new Router({ prefix: '/internal/catalog' });

  // Errors answer with the spec's `errors` shape whatever the app's own error middleware does.
  router.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (!isDomainError(error)) throw error;
      ctx.status = statusOfKind[error.kind];
      ctx.body = { errors: error.fields, code: error.code };
    }
  });

  router.post('/products/search', async (ctx) => {
    const parsed = SearchBodySchema.safeParse((ctx.request as { body?: unknown }).body ?? {});
    if (!parsed.success) throw new ValidationError(queryErrors(parsed.error.issues));
    sendJson(ctx, await catalog.searchProducts(parsed.data.query, parsed.data.context));
  });

  router.post('/uri', async (ctx) => {
    const parsed = UriBodySchema.safeParse((ctx.request as { body?: unknown }).body ?? {});
    if (!parsed.success) throw new ValidationError(queryErrors(parsed.error.issues));
    const found = await catalog.resolveUri(parsed.data.query, parsed.data.context);
    if (!found) return answerNotFound(ctx, { uri: 'not found' });
    sendJson(ctx, found);
  });

  // What shoppers searched for (read-only; docs/search.md): ?days=7&kind=top|zero&limit=50&market=&language=
  if (searchQueries) {
    router.get('/search-queries', async (ctx) => {
      const parsed = ListOptionsSchema.safeParse(ctx.query);
      if (!parsed.success) throw new ValidationError(queryErrors(parsed.error.issues));
      ctx.body = await searchQueries.list(parsed.data);
    });
  }

  router.get('/categories', async (ctx) => {
    ctx.body = { categories: await catalog.listCategories() };
  });

  router.get('/products/:id', async (ctx) => {
    const product = await catalog.getProduct(ctx.params['id']!, contextOf(ctx.query));
    if (!product) return answerNotFound(ctx, new ProductNotFoundError().fields);
    ctx.body = productOnWire(product);
  });

  router.get('/items/:item', async (ctx) => {
    const item = await catalog.getItem(ctx.params['item']!, contextOf(ctx.query));
    if (!item) return answerNotFound(ctx, new ItemNotFoundError().fields);
    ctx.body = item;
  });

  router.post('/items', async (ctx) => {
    const parsed = ItemsBodySchema.safeParse((ctx.request as { body?: unknown }).body ?? {});
    if (!parsed.success) throw new ValidationError(queryErrors(parsed.error.issues));
    ctx.body = { items: await catalog.getItems(parsed.data.items, parsed.data.context) };
  });

  router.get('/pricelists/:id', async (ctx) => {
    const pricelist = await catalog.getPricelist(ctx.params['id']!);
    if (!pricelist) return answerNotFound(ctx, { pricelist: 'not found' });
    ctx.body = pricelist;
  });

  return router;
}
