import { Router } from '@koa/router';
import { z } from 'zod';
import type { StockClient } from '@commerce/catalog-contracts';
import { ValidationError, fieldsFromIssues } from '@commerce/shared-errors';

const HoldSchema = z.object({
  attemptId: z.string().min(1).max(100),
  selectionId: z.string().min(1).max(100),
  lines: z.array(z.object({ item: z.string().min(1).max(40), quantity: z.number().int().min(1).max(1_000_000) })).min(1),
  ttlSeconds: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 3600),
});

/** The catalog's stock API of the checkout saga: hold, release, commit (`createStockHttpClient` is its client). */
export function createStockInternalRouter(stock: StockClient): Router {
  const router = new Router({ prefix: '/internal/catalog/stock' });
  router.post('/holds', async (ctx) => {
    const parsed = HoldSchema.safeParse((ctx.request as { body?: unknown }).body ?? {});
    if (!parsed.success) throw new ValidationError(fieldsFromIssues(parsed.error.issues));
    ctx.body = await stock.holdStock(parsed.data);
  });
  router.post('/holds/:attemptId/release', async (ctx) => {
    await stock.releaseStock(ctx.params['attemptId']!);
    ctx.body = { released: true };
  });
  router.post('/holds/:attemptId/commit', async (ctx) => {
    ctx.body = await stock.commitStock(ctx.params['attemptId']!);
  });
  return router;
}
