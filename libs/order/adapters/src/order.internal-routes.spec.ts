import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOrderHttpClient, type OrderClient, type PaymentResultCompletion } from '@commerce/order-contracts';
import { DomainError } from '@commerce/shared-errors';
import { createHttpApp, mountRouters } from '@commerce/shared-http';
import { createLogger } from '@commerce/shared-logging';
import { createOrderInternalRouter } from './order.internal-routes';

const logger = createLogger('order-routes-spec', 'silent');

describe("the order service's POST payment-results over HTTP (issue 28: verify and complete in one call)", () => {
  let server: Server;
  let client: OrderClient;
  const asked: Array<[Record<string, string>, string | null]> = [];

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
    } as unknown as OrderClient;
    const app = createHttpApp({ service: 'order', logger, metrics: false });
    mountRouters(app, [createOrderInternalRouter(orders)]);
    server = createServer(app.callback());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    client = createOrderHttpClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  afterAll(() => new Promise((r) => server.close(r)));

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
  });

  it('refuses a body whose fields are not strings, naming them, before asking anyone', async () => {
    const before = asked.length;
    await expect(client.completePaymentResult({ amount: 3 } as unknown as Record<string, string>, 'a-1')).rejects.toMatchObject({
      code: 'ORDER.INVALID_PAYMENT_RESULT',
      kind: 'invalid',
    });
    expect(asked).toHaveLength(before);
  });
});
