// A server for the benchmark, in its own process so that autocannon does not share its event loop:
//   tsx tools/bench/serve.ts bare       a bare Koa handler answering a selection-sized JSON
//   tsx tools/bench/serve.ts embedded   the all-in-one on PGlite, in-memory bus, sessions and search
//   tsx tools/bench/serve.ts real       the all-in-one on DATABASE_URL, REDIS_URL, KAFKA_BROKERS
//   tsx tools/bench/serve.ts catalog    the all-in-one on BENCH_DATABASE_URL, BENCH_STORE_CONFIG and MEILI_URL
//   tsx tools/bench/serve.ts accounts   embedded, the production argon2id cost, no per-address limit (one client registers thousands)
// Prints one JSON line {"url": …} once it listens.
import { readFileSync } from 'node:fs';
import Koa from 'koa';
import { parseDemoCatalog } from '@commerce/catalog-adapters';
import { createLogger } from '@commerce/shared-logging';
import { AllInOneConfigSchema } from '../../apps/all-in-one/src/config';
import { startAllInOne } from '../../apps/all-in-one/src/all-in-one';
import { runKafkaNamespace } from '../e2e/processes';
import { closeOnSigterm } from './bench-env';

const mode = process.argv[2];

async function main() {
  if (mode === 'bare') {
    const app = new Koa();
    const body = { token: 'x'.repeat(43), selection: { currency: 'SEK', paymentMethod: '', items: [] }, location: { country: 'SE' } };
    app.use((ctx) => {
      ctx.body = body;
    });
    const server = app.listen(0, '127.0.0.1', () => {
      const address = server.address() as { port: number };
      console.log(JSON.stringify({ url: `http://127.0.0.1:${address.port}` }));
    });
    return;
  }
  const env =
    mode === 'real'
      ? {
          DATABASE_URL: process.env['DATABASE_URL'],
          REDIS_URL: process.env['REDIS_URL'],
          KAFKA_BROKERS: process.env['KAFKA_BROKERS'],
          // Topics and consumer groups of this run's own: no earlier run's backlog, no other run's events.
          KAFKA_NAMESPACE: process.env['KAFKA_NAMESPACE'] ?? runKafkaNamespace('bench'),
        }
      : mode === 'catalog'
        ? // A catalog prepared by tools/bench/catalog.ts, on the search engine MEILI_URL names (or embedded).
          {
            DATABASE_URL: process.env['BENCH_DATABASE_URL'],
            STORE_CONFIG: process.env['BENCH_STORE_CONFIG'],
            MEILI_URL: process.env['MEILI_URL'] ?? 'embedded',
            MEILI_API_KEY: process.env['MEILI_MASTER_KEY'],
          }
        : mode === 'accounts'
          ? {
              DATABASE_URL: 'pglite://memory',
              LOGIN_ATTEMPTS_PER_ADDRESS: '1000000000',
              ARGON2_MEMORY_KIB: process.env['ARGON2_MEMORY_KIB'],
              ARGON2_ITERATIONS: process.env['ARGON2_ITERATIONS'],
            }
          : // The flow and checkout benches' visitors are new sessions from one address: their limit (decision 134).
            { DATABASE_URL: 'pglite://memory', SESSION_NEW_PER_ADDRESS: process.env['SESSION_NEW_PER_ADDRESS'] };
  const config = AllInOneConfigSchema.parse({ ...env, PORT: '0', LOG_LEVEL: 'silent' });
  const demo =
    process.env['BENCH_DEMO'] || mode === 'accounts' ? parseDemoCatalog(JSON.parse(readFileSync(config.DEMO_CATALOG, 'utf8'))) : null;
  const running = await startAllInOne(config, createLogger('bench', 'silent'), demo);
  console.log(JSON.stringify({ url: running.url, engines: running.engines }));
  closeOnSigterm(() => running.close());
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
