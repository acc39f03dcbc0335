// The server of the order-history benchmark (tools/bench/orders.ts), in its own process so that autocannon
// does not share its event loop: the all-in-one, two customers with BENCH_SMALL (10) and BENCH_LARGE
// (10,000) orders placed through the order service as the checkout saga places them, each logged in.
//   tsx tools/bench/orders-serve.ts embedded   PGlite in memory, in-memory bus and sessions
//   tsx tools/bench/orders-serve.ts real       DATABASE_URL, REDIS_URL, KAFKA_BROKERS
// Prints one JSON line {url, engines, tokens: {small, large}, seedSeconds} once seeded and listening.
import { randomUUID } from 'node:crypto';
import { createLogger } from '@commerce/shared-logging';
import { AllInOneConfigSchema } from '../../apps/all-in-one/src/config';
import { startAllInOne, type AllInOne } from '../../apps/all-in-one/src/all-in-one';
import { runKafkaNamespace } from '../e2e/processes';
import { closeOnSigterm } from './bench-env';
import { placeOrderCommand } from '../../libs/order/adapters/src/testing/place-order.fixture';

const mode = process.argv[2];
const small = Number(process.env['BENCH_SMALL'] ?? 10);
const large = Number(process.env['BENCH_LARGE'] ?? 10_000);
const PASSWORD = 'correct horse battery staple';

async function customerWith(running: AllInOne, orders: number): Promise<string> {
  const email = `bench-${randomUUID()}@example.com`;
  const customer = await running.clients.account.register({ email, password: PASSWORD, firstName: 'Bench' });
  // Eight placings at a time: as many as checkouts in flight on a busy shop, not a bulk insert.
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < orders) {
        next++;
        await running.clients.orders.placeOrder(placeOrderCommand({ customerId: customer.id }));
      }
    }),
  );
  const res = await fetch(`${running.url}/api/checkout/login/${encodeURIComponent(email)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ password: PASSWORD }),
  });
  if (res.status !== 200) throw new Error(`login of the bench customer answered ${res.status}`);
  return ((await res.json()) as { token: string }).token;
}

async function main() {
  const env =
    mode === 'real'
      ? {
          DATABASE_URL: process.env['DATABASE_URL'],
          REDIS_URL: process.env['REDIS_URL'],
          KAFKA_BROKERS: process.env['KAFKA_BROKERS'],
          // Topics and consumer groups of this run's own: no earlier run's backlog, no other run's events.
          KAFKA_NAMESPACE: process.env['KAFKA_NAMESPACE'] ?? runKafkaNamespace('bench'),
        }
      : { DATABASE_URL: 'pglite://memory' };
  const config = AllInOneConfigSchema.parse({ ...env, PORT: '0', LOG_LEVEL: 'silent' });
  const running = await startAllInOne(config, createLogger('bench', 'silent'), null);
  const started = Date.now();
  const tokens = { small: await customerWith(running, small), large: await customerWith(running, large) };
  console.log(JSON.stringify({ url: running.url, engines: running.engines, tokens, seedSeconds: (Date.now() - started) / 1000 }));
  closeOnSigterm(() => running.close());
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
