import Router, { type RouterContext } from '@koa/router';
import { z } from 'zod';
import { ValidationError, fieldsFromIssues, isDomainError, statusOfKind, type DomainError } from '@commerce/shared-errors';
import { answerOrNotFound, unavailableAnswer, withCodes as answerWithCodes, type LeanRoute } from '@commerce/shared-http';
import { withRequestId, type Logger } from '@commerce/shared-logging';
import {
  CART_BATCH_PATH,
  CART_CHANGES_PATH,
  type BatchedOutcome,
  type CartClient,
  type NewSelectionCommand,
  type SelectionChange,
  type SelectionDto,
} from '@commerce/cart-contracts';

const NewSelection = z.object({
  currency: z.string().regex(/^[A-Z]{3}$/),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/)
    .nullable(),
  language: z.string().min(1).nullable(),
  customerId: z.string().min(1).max(64).optional(),
});

/** An amount in integer minor units of the selection's currency. */
const Minor = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** One of the ERP's ids of a line's item (decision 113). */
const ErpId = z.string().max(255);

const LineItem = z.object({
  item: z.string().min(1),
  product: z.string(),
  size: z.string(),
  sku: z.string(),
  ean: z.string(),
  productName: z.string(),
  brandName: z.string(),
  priceEachMinor: Minor,
  priceEachBeforeDiscountMinor: Minor.optional(),
  quantityMinimum: z.number().int().min(1).optional(),
  quantityMultipleOf: z.number().int().min(1).optional(),
  external: z.object({ product: ErpId, variation: ErpId, size: ErpId, brand: ErpId }).optional(),
});

const AddItem = LineItem.extend({ quantity: z.number().int() });

const Change = z.object({
  lines: z
    .array(
      z.discriminatedUnion('op', [
        z.object({ op: z.literal('addItem'), item: LineItem, quantity: z.number() }),
        z.object({ op: z.literal('setItem'), item: LineItem, quantity: z.number() }),
        z.object({ op: z.literal('addLine'), line: z.string(), quantity: z.number() }),
        z.object({ op: z.literal('setLine'), line: z.string(), quantity: z.number() }),
        z.object({ op: z.literal('removeLine'), line: z.string() }),
      ]),
    )
    .optional(),
  set: z
    .object({
      currency: z
        .string()
        .regex(/^[A-Z]{3}$/)
        .optional(),
      country: z
        .string()
        .regex(/^[A-Z]{2}$/)
        .nullable()
        .optional(),
      state: z.string().nullable().optional(),
      language: z.string().nullable().optional(),
      paymentMethod: z.string().optional(),
      shippingMethod: z.string().optional(),
      vouchers: z.array(z.string()).optional(),
      paymentFields: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  prices: z.array(z.object({ line: z.string(), priceEachMinor: Minor, priceEachBeforeDiscountMinor: Minor.optional() })).optional(),
  removeLines: z.array(z.string()).optional(),
  addVoucher: z.string().min(1).optional(),
  removeVoucher: z.string().min(1).optional(),
  mergePaymentFields: z.record(z.string(), z.string()).optional(),
});

/** A new selection, with its first change (decision 157) when given. */
const NewSelectionWithChange = NewSelection.extend({ change: Change.optional() });
const createSelection = (cart: CartClient, body: unknown) =>
  cart.createSelection(parse(NewSelectionWithChange, body) as NewSelectionCommand);

const parse = <T>(schema: z.ZodType<T>, body: unknown): T => {
  const result = schema.safeParse(body);
  if (!result.success) throw new ValidationError(fieldsFromIssues(result.error.issues));
  return result.data;
};

const requestBody = (ctx: { request: unknown }): unknown => (ctx.request as { body?: unknown }).body;

const selectionNotFound = (err: DomainError) => err.code === 'CART.SELECTION_NOT_FOUND';

const BatchedChanges = z
  .array(z.object({ id: z.string().min(1), change: z.unknown(), requestId: z.string().max(128).optional() }))
  .max(1000);
const Batch = z.object({ changes: BatchedChanges.min(1) });
/** New selections and changes in one batch (decision 184): each its own outcome, in its list's order. */
const MixedBatch = z
  .object({
    creates: z.array(z.object({ command: z.unknown(), requestId: z.string().max(128).optional() })).max(1000),
    changes: BatchedChanges,
  })
  .refine((b) => b.creates.length + b.changes.length > 0, { message: 'an empty batch', path: ['changes'] });

/** The selection changes, for the router and the lean routes alike. */
const changeHandlers = (cart: CartClient, logger?: Logger) => {
  const change = async (id: string, body: unknown) => cart.changeSelection(id, parse(Change, body) as never);
  /** One change's outcome as its own request on the change route would have been answered (decision 63's shapes). */
  const outcomeOf = (err: unknown): BatchedOutcome => {
    // An engine that did not answer in time: the 503 its own request is answered (decision 132), not a bug.
    const unavailable = isDomainError(err) ? undefined : unavailableAnswer(err, logger);
    if (unavailable) return { status: 503, body: { errors: unavailable.fields } };
    if (!isDomainError(err)) {
      logger?.error({ err }, 'unhandled error');
      return { status: 500, body: { errors: { server: 'internal error' } } };
    }
    const status = statusOfKind[err.kind];
    if (selectionNotFound(err)) return { status, body: { errors: err.fields, ...err.extra } };
    return { status, body: { code: err.code, errors: err.fields } };
  };
  /** Each valid one's settled outcome in its place among the batch's outcomes. */
  const answered = (
    outcomes: Array<BatchedOutcome | Promise<BatchedOutcome>>,
    valid: Array<{ index: number }>,
    settled: Array<PromiseSettledResult<SelectionDto>>,
  ) =>
    valid.forEach(({ index }, k) => {
      const outcome = settled[k]!;
      outcomes[index] = outcome.status === 'fulfilled' ? { ok: outcome.value } : outcomeOf(outcome.reason);
    });
  /**
   * A batch of changes (decision 78), each with its own outcome: applied at once, but a selection's changes
   * one after the other in the batch's order. Each runs under its own request's id.
   */
  const changeAll = async (
    changes: Array<{ id: string; change: unknown; requestId?: string | undefined }>,
  ): Promise<{ outcomes: BatchedOutcome[] }> => {
    const outcomes: Array<BatchedOutcome | Promise<BatchedOutcome>> = [];
    const valid: Array<{ index: number; id: string; change: SelectionChange }> = [];
    changes.forEach(({ id, change: given }, index) => {
      try {
        valid.push({ index, id, change: parse(Change, given) as SelectionChange });
      } catch (err) {
        outcomes[index] = outcomeOf(err);
      }
    });
    if (cart.changeSelections) {
      answered(outcomes, valid, await cart.changeSelections(valid));
    } else {
      // One at a time a selection, in the batch's order; each under its own request's id.
      const last = new Map<string, Promise<unknown>>();
      for (const { index, id, change: given } of valid) {
        const requestId = changes[index]!.requestId;
        const run = () => withRequestId(requestId, () => change(id, given)).then((ok): BatchedOutcome => ({ ok }), outcomeOf);
        const before = last.get(id);
        const outcome = before ? before.then(run) : run();
        last.set(id, outcome);
        outcomes[index] = outcome;
      }
    }
    return { outcomes: await Promise.all(outcomes) };
  };
  /** New selections (decision 184), each with its own outcome as the create route answers it. */
  const createAll = async (creates: Array<{ command: unknown; requestId?: string | undefined }>): Promise<BatchedOutcome[]> => {
    const outcomes: Array<BatchedOutcome | Promise<BatchedOutcome>> = [];
    const valid: Array<{ index: number; command: NewSelectionCommand }> = [];
    creates.forEach(({ command }, index) => {
      try {
        valid.push({ index, command: parse(NewSelectionWithChange, command) as NewSelectionCommand });
      } catch (err) {
        outcomes[index] = outcomeOf(err);
      }
    });
    const settled = cart.createSelections
      ? await cart.createSelections(valid.map((v) => v.command))
      : await Promise.allSettled(
          valid.map(({ index, command }) => {
            const requestId = creates[index]!.requestId;
            return withRequestId(requestId, () => cart.createSelection(command));
          }),
        );
    answered(outcomes, valid, settled);
    return Promise.all(outcomes);
  };
  return {
    addItem: (id: string, body: unknown) => cart.addItem(id, parse(AddItem, body)),
    change,
    batch: async (body: unknown): Promise<{ outcomes: BatchedOutcome[] }> => changeAll(parse(Batch, body).changes),
    /** New selections and changes (decision 184): the selections made together, beside the changes' batch. */
    mixed: async (body: unknown): Promise<{ created: BatchedOutcome[]; outcomes: BatchedOutcome[] }> => {
      const { creates, changes } = parse(MixedBatch, body);
      const [created, { outcomes }] = await Promise.all([createAll(creates), changes.length ? changeAll(changes) : { outcomes: [] }]);
      return { created, outcomes };
    },
  };
};

/**
 * The selection changes (the edge's `POST items/{item}` and every other change) answered without the app's
 * middleware (decision 63): the same answers and errors as the router's routes, which stay for everything
 * these do not take.
 */
export function createCartLeanRoutes(cart: CartClient, logger?: Logger): LeanRoute[] {
  const changes = changeHandlers(cart, logger);
  return [
    {
      // A visitor's first add, made with the selection (decisions 157, 162).
      method: 'POST',
      route: '/internal/cart/selections',
      path: /^\/internal\/cart\/selections$/,
      status: 201,
      handle: (_params, body) => createSelection(cart, body),
      passes: selectionNotFound,
    },
    {
      method: 'POST',
      route: CART_CHANGES_PATH,
      path: /^\/internal\/cart\/changes$/,
      handle: (_params, body) => changes.batch(body),
    },
    {
      method: 'POST',
      route: CART_BATCH_PATH,
      path: /^\/internal\/cart\/batch$/,
      handle: (_params, body) => changes.mixed(body),
    },
    {
      method: 'POST',
      route: '/internal/cart/selections/:id/items',
      path: /^\/internal\/cart\/selections\/([^/]+)\/items$/,
      handle: ([id = ''], body) => changes.addItem(id, body),
      passes: selectionNotFound,
    },
    {
      method: 'POST',
      route: '/internal/cart/selections/:id/changes',
      path: /^\/internal\/cart\/selections\/([^/]+)\/changes$/,
      handle: ([id = ''], body) => changes.change(id, body),
      passes: selectionNotFound,
    },
  ];
}

/** The cart's internal HTTP API (DESIGN §2): what `createCartHttpClient` calls. */
export function createCartInternalRouter(cart: CartClient, logger?: Logger): Router {
  const router = new Router({ prefix: '/internal/cart' });
  // Errors carry their code, so the client tells an unknown line (404 with a code) from an unknown selection (bare 404).
  // An unknown selection is left to the error middleware: a bare 404.
  const withCodes = (handler: (ctx: RouterContext) => Promise<unknown>, status?: number) =>
    answerWithCodes(handler, { passes: selectionNotFound, ...(status === undefined ? {} : { status }) });
  // A first change refused (decision 157) is answered as the change's own route answers it.
  router.post(
    '/selections',
    withCodes((ctx) => createSelection(cart, requestBody(ctx)), 201),
  );
  const answer = (ctx: RouterContext, selection: SelectionDto | null) => answerOrNotFound(ctx, selection, 'selection');
  router.get('/selections/:id', async (ctx) => answer(ctx, await cart.getSelection(ctx.params['id']!)));
  const changes = changeHandlers(cart, logger);
  router.post(
    '/changes',
    withCodes((ctx) => changes.batch(requestBody(ctx))),
  );
  router.post(
    '/batch',
    withCodes((ctx) => changes.mixed(requestBody(ctx))),
  );
  router.post(
    '/selections/:id/items',
    withCodes((ctx) => changes.addItem(ctx.params['id']!, requestBody(ctx))),
  );
  router.post(
    '/selections/:id/changes',
    withCodes((ctx) => changes.change(ctx.params['id']!, requestBody(ctx))),
  );

  router.post('/selections/:id/closing', async (ctx) => {
    await cart.closeSelection(ctx.params['id']!);
    ctx.body = { closed: true };
  });
  router.get('/customers/:customer/selection', async (ctx) => answer(ctx, await cart.savedSelection(ctx.params['customer']!)));
  router.post('/customers/:customer/selection/claims', async (ctx) => {
    const { anonymousSelectionId } = parse(z.object({ anonymousSelectionId: z.string().nullable() }), requestBody(ctx));
    answer(ctx, await cart.claimSelection(ctx.params['customer']!, anonymousSelectionId));
  });
  return router;
}
