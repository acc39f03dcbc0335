import {
  createOrderHttpClient,
  type BeginCheckoutCommand,
  type CheckoutBegun,
  type OrderClient,
  type PaymentResultCompletion,
} from '@commerce/order-contracts';
import { DomainError } from '@commerce/shared-errors';
import { createHttpApp, mountRouters, serve, type RunningServer } from '@commerce/shared-http';
import { createLogger } from '@commerce/shared-logging';
import { createOrderInternalRouter, createOrderLeanRoutes } from './order.internal-routes';

const logger = createLogger('order-routes-spec', 'silent');

describe.each([
  ['the app', false],
  ['lean routes before the app (decision 63)', true],
])("the order service's POST payment-results and checkouts over HTTP, on %s (issue 28: verify and complete in one call)", (_on, lean) => {
  let server: RunningServer;
  let client: OrderClient;
  let base: string;
  const asked: Array<[Record<string, string>, string | null]> = [];
  /** Requests the lean routes answered (none on the app). */
  let leanAnswered = 0;
  beforeEach(() => {
    leanAnswered = 0;
  });
  /** Which server answered: the lean routes' handlers in the lean run, the app's in the other. */
  const answeredBy = () => expect(leanAnswered > 0).toBe(lean);

  beforeAll(async () => {
    const orders = {
      completePaymentResult: async (fields: Record<string, string>, expected: string | null): Promise<PaymentResultCompletion> => {
        asked.push([fields, expected]);
        // The payment service's refusal of the fields, as its client raises it in the order service.
        if (fields['signature'] === 'bad')
          throw new DomainError('PAYMENT.INVALID_RESULT', 'invalid', { paymentMethodFields: 'signature does not match' });
        if (fields['signature'] === 'down')
          throw new DomainError('PAYMENT.REMOTE_ERROR', 'unavailable', { payment: 'unavailable (ECONNREFUSED)' });
        return { attemptId: 'a-1', selectionId: 's-1', completion: expected === 'a-1' ? { placed: false, failed: true } : null };
      },
      beginCheckout: async (command: BeginCheckoutCommand): Promise<CheckoutBegun> => {
        if (command.holdSeconds === 0) throw new DomainError('ORDER.INVALID_CHECKOUT', 'invalid', { holdSeconds: 'must be positive' });
        return { state: 'started', attemptId: command.attempt.attemptId, action: { action: 'redirect', url: 'https://psp.test/a' } };
      },
    } as unknown as OrderClient;
    const app = createHttpApp({ service: 'order', logger, metrics: false });
    mountRouters(app, [createOrderInternalRouter(orders)]);
    const leanRoutes = createOrderLeanRoutes(orders).map((route) => ({
      ...route,
      handle: (params: string[], body: unknown, opened: unknown) => (leanAnswered++, route.handle(params, body, opened)),
    }));
    server = await serve(app, { port: 0, host: '127.0.0.1', logger, ...(lean ? { leanRoutes } : {}) });
    base = server.url;
    client = createOrderHttpClient(base);
  });
  afterAll(() => server.close());

  it('begins a checkout with the body as sent, and answers its errors with their code and fields', async () => {
    const command = {
      attempt: { attemptId: 'a-2' },
      lines: [{ item: '1-1', quantity: 1 }],
      holdSeconds: 600,
    } as unknown as BeginCheckoutCommand;
    expect(await client.beginCheckout(command)).toEqual({
      state: 'started',
      attemptId: 'a-2',
      action: { action: 'redirect', url: 'https://psp.test/a' },
    });
    await expect(client.beginCheckout({ ...command, holdSeconds: 0 })).rejects.toMatchObject({
      code: 'ORDER.INVALID_CHECKOUT',
      kind: 'invalid',
      fields: { holdSeconds: 'must be positive' },
    });
    answeredBy();
  });

  it('refuses malformed JSON before any handler, as the app does', async () => {
    const res = await fetch(`${base}/internal/order/payment-results`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"fields":',
    });
    expect(res.status).toBe(400);
    // Refused before any handler on either: the lean route as the app's body parser does.
    expect(leanAnswered).toBe(0);
  });

  it('passes the fields and the expected attempt, and answers the completion (null for an attempt not expected)', async () => {
    const fields = { merchantReference: 'a-1', signature: 'ok' };
    expect(await client.completePaymentResult(fields, 'a-1')).toEqual({
      attemptId: 'a-1',
      selectionId: 's-1',
      completion: { placed: false, failed: true },
    });
    expect(await client.completePaymentResult(fields, null)).toEqual({ attemptId: 'a-1', selectionId: 's-1', completion: null });
    expect(asked).toEqual([
      [fields, 'a-1'],
      [fields, null],
    ]);
    answeredBy();
  });

  it("answers the payment service's errors as they came (code, kind, fields), so the edge answers what it answered", async () => {
    await expect(client.completePaymentResult({ signature: 'bad' }, 'a-1')).rejects.toMatchObject({
      code: 'PAYMENT.INVALID_RESULT',
      kind: 'invalid',
      fields: { paymentMethodFields: 'signature does not match' },
    });
    await expect(client.completePaymentResult({ signature: 'down' }, 'a-1')).rejects.toMatchObject({
      code: 'PAYMENT.REMOTE_ERROR',
      kind: 'unavailable',
      fields: { payment: 'unavailable (ECONNREFUSED)' },
    });
    answeredBy();
  });

  it('refuses a body whose fields are not strings, naming them, before asking anyone', async () => {
    const before = asked.length;
    await expect(client.completePaymentResult({ amount: 3 } as unknown as Record<string, string>, 'a-1')).rejects.toMatchObject({
      code: 'ORDER.INVALID_PAYMENT_RESULT',
      kind: 'invalid',
    });
    expect(asked).toHaveLength(before);
    answeredBy();
  });
});
