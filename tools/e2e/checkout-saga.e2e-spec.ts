import { Client } from 'pg';
import { describeWithEngines, uniqueName } from '@commerce/shared-testing';
import { notificationOf } from '@commerce/payment-adapters';
import { checkoutCall, searchUntilFound, upsertPricedProduct, uniqueWord, type Endpoints } from './skeleton.scenario';
import { startApp, stopAppsAndDropSchemas, type ServiceProcess } from './processes';
import { DEMO_STORE, schemaOf, startShop } from '../services/shop';

// Issue 22's double charge, as it was seen: every service its own process on real Postgres, Redis and Kafka. Two
// tabs start a payment (the first replaced by the second), the second is approved, the order service is killed
// (SIGKILL) and `payment-result` answers 503; the PSP still authorizes the replaced one; the shopper tries
// `POST payment` again. Once the order service is back: one order, one kept authorization, the other voided.
const HMAC_KEY = '7a'.repeat(32);
const shopName = uniqueName('saga');

describeWithEngines(
  'the checkout saga as separate processes: the order service down during payment-result',
  ['postgres', 'redis', 'kafka'],
  ({ url }) => {
    const services: ServiceProcess[] = [];
    const schemas: string[] = [];
    let endpoints: Endpoints;
    let payment: ServiceProcess;
    let order: ServiceProcess;
    let orderEnv: Record<string, string>;
    let sql: Client;

    beforeAll(async () => {
      const engines = { DATABASE_URL: url('postgres'), REDIS_URL: url('redis'), KAFKA_BROKERS: url('kafka') };
      const shop = await startShop({ engines, name: shopName, per: { payment: { PAYMENT_TEST_HMAC_KEY: HMAC_KEY } } });
      services.push(...shop.all);
      schemas.push(...shop.schemas);
      endpoints = shop.endpoints;
      payment = shop.payment;
      order = shop.order;
      // What the launcher gave the order service, to start it again on its port.
      orderEnv = {
        ...engines,
        STORE_CONFIG: DEMO_STORE,
        KAFKA_NAMESPACE: shopName,
        DATABASE_SCHEMA: schemaOf('order', shopName)!,
        PAYMENT_URL: shop.payment.url,
        CATALOG_URL: shop.catalog.url,
        CART_URL: shop.cart.url,
      };
      sql = new Client({ connectionString: url('postgres') });
      await sql.connect();
    }, 180_000);

    afterAll(async () => {
      await sql?.end();
      const alive = services.filter((s) => s.child.exitCode === null && s.child.signalCode === null);
      await stopAppsAndDropSchemas(alive, url('postgres'), schemas);
    }, 60_000);

    const call = (method: string, path: string, token: string | undefined, body?: unknown) =>
      checkoutCall(endpoints, method, path, { ...(token ? { token } : {}), ...(body === undefined ? {} : { body }) });
    /** The payment service's pages as the browser reaches them (they name the service's own address). */
    const page = (pageUrl: string) => `${payment.url}${new URL(pageUrl).pathname}`;
    const attemptsOf = async (selectionId: string) =>
      (
        await sql.query(
          `select id, status, provider_reference, amount_minor, currency from "${schemaOf('payment', shopName)}".attempts where selection_id = $1`,
          [selectionId],
        )
      ).rows as Array<{ id: string; status: string; provider_reference: string; amount_minor: string; currency: string }>;
    const ordersOf = async (attemptIds: string[]) =>
      (
        await sql.query(`select payment_attempt_id from "${schemaOf('order', shopName)}".orders where payment_attempt_id = any($1)`, [
          attemptIds,
        ])
      ).rows as Array<{ payment_attempt_id: string }>;

    it('one order, one kept authorization, the other voided; POST payment while the order service is down starts nothing', async () => {
      const word = uniqueWord();
      await upsertPricedProduct(endpoints, `saga-${word}`, `Saga ${word} Coat`);
      const item = (await searchUntilFound(endpoints, word)).body['products'][0].items[0].item as string;
      const token = (await call('POST', `/items/${item}`, undefined)).body['token'] as string;
      expect((await call('PUT', '/countries/SE', token)).status).toBe(200);
      expect((await call('PUT', '/payment-methods/test-card', token)).status).toBe(200);
      const body = {
        paymentReturnPage: 'https://storefront.test/thanks',
        paymentFailedPage: 'https://storefront.test/failed',
        termsAndConditions: true,
        address: {
          email: 'ada@example.com',
          firstName: 'Ada',
          lastName: 'Lovelace',
          address1: 'Storgatan 1',
          city: 'Stockholm',
          zipCode: '11451',
          country: 'SE',
        },
      };

      // Two tabs: the second payment replaces the first (cancelled at the provider: its page refuses it).
      const first = await call('POST', '/payment', token, body);
      const second = await call('POST', '/payment', token, body);
      expect([first.body['action'], second.body['action']]).toEqual(['redirect', 'redirect']);
      expect((await fetch(page(first.body['url']))).status).toBe(409);
      const approved = await fetch(`${page(second.body['url'])}/decision`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ decision: 'approve' }).toString(),
        redirect: 'manual',
      });
      expect(approved.status).toBe(303);
      const fields = Object.fromEntries(new URL(approved.headers.get('location')!).searchParams);

      // The order service dies; the visitor's result cannot be completed.
      const killed = new Promise((resolve) => order.child.once('exit', resolve));
      order.child.kill('SIGKILL');
      await killed;
      const result = await call('POST', '/payment-result', token, { paymentMethodFields: fields });
      expect(result.status).toBe(503);
      // The spec's error envelope (which member names the cause is the edge's business: the order service, or a budget).
      expect(Object.keys(result.body['errors'] ?? {}).length).toBeGreaterThan(0);

      // The PSP had authorized the first attempt before its cancellation arrived: its notification still comes.
      const selectionId = (
        await sql.query(`select selection_id from "${schemaOf('payment', shopName)}".attempts where provider_reference = $1`, [
          fields['pspReference'],
        ])
      ).rows[0].selection_id as string;
      const replaced = (await attemptsOf(selectionId)).find((a) => a.status === 'cancelled')!;
      const notified = await fetch(`${payment.url}/payment/notifications/test`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(
          notificationOf(
            { publicUrl: payment.url, hmacKey: HMAC_KEY, merchantAccount: 'TestMerchant' },
            {
              attemptId: replaced.id,
              providerReference: replaced.provider_reference,
              amountMinor: Number(replaced.amount_minor),
              currency: replaced.currency,
            } as never,
            true,
          ),
        ),
      });
      expect(notified.status).toBe(200);

      // The shopper tries again while the order service is down: 503, and no third attempt.
      const again = await call('POST', '/payment', token, body);
      expect(again.status).toBe(503);
      expect(await attemptsOf(selectionId)).toHaveLength(2);

      // Back on its port: the consumer of PaymentAuthorized or the visitor's retry completes the paid attempt, once.
      order = await startApp('order', orderEnv, 60_000, Number(new URL(order.url).port));
      services.push(order);
      const completed = await call('POST', '/payment-result', token, { paymentMethodFields: fields });
      expect(completed.status).toBe(200);
      expect(completed.body['order']).toMatch(/^\d+$/);
      const retried = await call('POST', '/payment', token, body);
      // The selection was closed with the order: the session has a fresh, empty one.
      expect({ status: retried.status, errors: retried.body['errors'] }).toEqual({ status: 406, errors: { selection: 'empty' } });

      // Give the consumer its grace period and a redelivery's time: still one order.
      await new Promise((r) => setTimeout(r, 5000));
      const attempts = await attemptsOf(selectionId);
      expect(attempts.map((a) => a.status).sort()).toEqual(['authorized', 'voided']);
      const orders = await ordersOf(attempts.map((a) => a.id));
      expect(orders).toEqual([{ payment_attempt_id: attempts.find((a) => a.status === 'authorized')!.id }]);
    }, 180_000);
  },
);
