import Router, { type RouterContext } from '@koa/router';
import { answerOrNotFound, withCodes as answerWithCodes } from '@commerce/shared-http';
import type { AccountClient } from '@commerce/account-contracts';

type Body = Record<string, unknown>;
const requestBody = (ctx: { request: unknown }): Body => ((ctx.request as { body?: unknown }).body ?? {}) as Body;
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The account service's internal HTTP API (DESIGN §2): what `createAccountHttpClient` calls. */
export function createAccountInternalRouter(account: AccountClient): Router {
  const router = new Router({ prefix: '/internal/account' });
  // Errors carry their code, so the client rebuilds the same DomainError; an unknown customer is a bare 404.
  const withCodes = (handler: (ctx: RouterContext) => Promise<unknown>, status?: number) =>
    answerWithCodes(handler, { passes: (err) => err.code === 'ACCOUNT.CUSTOMER_NOT_FOUND', ...(status ? { status } : {}) });
  router.post(
    '/customers',
    withCodes((ctx) => account.register(requestBody(ctx) as never), 201),
  );
  router.post(
    '/logins',
    withCodes(async (ctx) => ({
      customer: await account.verifyLogin(text(requestBody(ctx)['email']), text(requestBody(ctx)['password'])),
    })),
  );
  router.get('/customers/:id', async (ctx) => answerOrNotFound(ctx, await account.getCustomer(ctx.params['id']!), 'customer'));
  router.put(
    '/customers/:id/address',
    withCodes((ctx) => account.updateAddress(ctx.params['id']!, requestBody(ctx) as never)),
  );
  router.put(
    '/customers/:id/email',
    withCodes((ctx) => account.changeEmail(ctx.params['id']!, text(requestBody(ctx)['newEmail']))),
  );
  router.put(
    '/customers/:id/password',
    withCodes((ctx) =>
      account.changePassword(ctx.params['id']!, text(requestBody(ctx)['password']), text(requestBody(ctx)['newPassword'])),
    ),
  );
  router.post(
    '/password-resets',
    withCodes(async (ctx) => {
      const body = requestBody(ctx);
      await account.requestPasswordReset(text(body['email']), body['linkUri'] as string | undefined);
      return {};
    }, 202),
  );
  router.post(
    '/password-resets/complete',
    withCodes((ctx) =>
      account.resetPassword(text(requestBody(ctx)['id']), text(requestBody(ctx)['i']), text(requestBody(ctx)['newPassword'])),
    ),
  );
  router.post(
    '/newsletter-subscriptions',
    withCodes(async (ctx) => {
      await account.subscribeNewsletter(requestBody(ctx) as never);
      return {};
    }),
  );
  router.post(
    '/back-in-stock-subscriptions',
    withCodes(async (ctx) => {
      await account.subscribeBackInStock(requestBody(ctx) as never);
      return {};
    }),
  );
  return router;
}
