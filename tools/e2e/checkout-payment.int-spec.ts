import { Client } from 'pg';
import { createLogger } from '@commerce/shared-logging';
import { describeWithEngines, uniqueName } from '@commerce/shared-testing';
import { AllInOneConfigSchema } from '../../apps/all-in-one/src/config';
import { startAllInOne } from '../../apps/all-in-one/src/all-in-one';
import { checkoutPaymentContract, paymentDemoCatalog, paymentShopEnv, type PaymentApiHarness } from './checkout-payment.contract';

// The checkout saga on real Postgres (a database of its own: the all-in-one names its schemas) and Redis
// sessions. The bus stays in memory: an all-in-one on the shared Kafka would join the consumer groups of
// other processes using it. The order service's `OrderPlaced` events are counted in its outbox.
describeWithEngines('the checkout saga on Postgres and Redis', ['postgres', 'redis'], ({ url }) => {
  const admin = () => new Client({ connectionString: url('postgres') });

  /** The all-in-one on a database of its own, its stock held for `holdSeconds`. */
  async function start(race: number, holdSeconds = 1200): Promise<PaymentApiHarness> {
    const database = uniqueName('checkout_saga');
    const u = new URL(url('postgres'));
    u.pathname = `/${database}`;
    const databaseUrl = u.toString();
    const client = admin();
    await client.connect();
    await client.query(`create database ${database}`);
    await client.end();
    const config = AllInOneConfigSchema.parse({
      ...paymentShopEnv(holdSeconds),
      DATABASE_URL: databaseUrl,
      REDIS_URL: url('redis'),
      KAFKA_BROKERS: 'memory',
    });
    const running = await startAllInOne(config, createLogger('payment-int', 'silent'), paymentDemoCatalog(race));
    // The demo catalog's events consumed first: on a loaded box they took the first case's CPU past jest's 5 s.
    await running.settled();
    const events = new Client({ connectionString: databaseUrl });
    await events.connect();
    return {
      url: running.url,
      orderEvents: async (order) =>
        Number(
          (
            await events.query(
              `select count(*)::int as n from "order".outbox where envelope->>'type' = 'OrderPlaced' and envelope->'payload'->'order'->>'order' = $1`,
              [order],
            )
          ).rows[0].n,
        ),
      close: async () => {
        await events.end();
        await running.close();
        const dropping = admin();
        await dropping.connect();
        await dropping.query(`drop database if exists ${database} with (force)`);
        await dropping.end();
      },
    };
  }

  checkoutPaymentContract('Postgres and Redis', () => start(10), { race: { visitors: 100, stock: 10 }, shortHold: () => start(1, 1) });
});
