import Router from '@koa/router';
import { z } from 'zod';
import { ValidationError, fieldsFromIssues } from '@commerce/shared-errors';
import type { CartClient } from '@commerce/cart-contracts';

const NewSelection = z.object({
  currency: z.string().regex(/^[A-Z]{3}$/),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/)
    .nullable(),
  language: z.string().min(1).nullable(),
});

const AddItem = z.object({
  item: z.string().min(1),
  product: z.string(),
  size: z.string(),
  sku: z.string(),
  ean: z.string(),
  productName: z.string(),
  brandName: z.string(),
  priceEachAsNumber: z.number().min(0),
  quantity: z.number().int(),
});

const parse = <T>(schema: z.ZodType<T>, body: unknown): T => {
  const result = schema.safeParse(body);
  if (!result.success) throw new ValidationError(fieldsFromIssues(result.error.issues));
  return result.data;
};

const requestBody = (ctx: { request: unknown }): unknown => (ctx.request as { body?: unknown }).body;

/** The cart's internal HTTP API (DESIGN §2): what `createCartHttpClient` calls. */
export function createCartInternalRouter(cart: CartClient): Router {
  const router = new Router({ prefix: '/internal/cart' });
  router.post('/selections', async (ctx) => {
    ctx.status = 201;
    ctx.body = await cart.createSelection(parse(NewSelection, requestBody(ctx)));
  });
  router.get('/selections/:id', async (ctx) => {
    const selection = await cart.getSelection(ctx.params['id']!);
    if (!selection) {
      ctx.status = 404;
      ctx.body = { errors: { selection: 'not found' } };
      return;
    }
    ctx.body = selection;
  });
  router.post('/selections/:id/items', async (ctx) => {
    ctx.body = await cart.addItem(ctx.params['id']!, parse(AddItem, requestBody(ctx)));
  });
  return router;
}
