// The cart's selection changes without HTTP (issue 7): `addItem` through the cart service's client on real
// Postgres, so the cart's own CPU per change (this process) and Postgres's (the server's process tree) are
// measured apart from the edge, Redis and the HTTP hops of tools/bench/selection.ts.
//
//   source <(tools/infra/env) && npx tsx tools/bench/cart-changes.ts
//   BENCH_SECONDS=10 BENCH_CONCURRENCY=50 BENCH_SELECTIONS=300 BENCH_POOL=10 npx tsx tools/bench/cart-changes.ts
//
// Each of BENCH_CONCURRENCY workers adds one of a few items to one of BENCH_SELECTIONS selections (its own
// share of them, so changes of one selection do not meet, as in the selection bench's rotated tokens) in a
// loop. Prints changes/s, the mean latency, and CPU ms per change of this process and of Postgres (the
// whole server: on shared engines it includes whatever else uses them meanwhile).
import { readFileSync } from 'node:fs';
import { currencyFormats, parseStoreConfig } from '@commerce/shared-config';
import { createDbEngine } from '@commerce/shared-db';
import { createLogger } from '@commerce/shared-logging';
import { buildCartService } from '@commerce/cart-adapters';
import { cpuMsOfTree, machineLine } from './bench-env';

const seconds = Number(process.env['BENCH_SECONDS'] ?? 10);
const concurrency = Number(process.env['BENCH_CONCURRENCY'] ?? 50);
const selectionCount = Number(process.env['BENCH_SELECTIONS'] ?? 300);
/** The engine's pool size (the services' default: 10). */
const poolMax = Number(process.env['BENCH_POOL'] ?? 10);
const url = process.env['DATABASE_URL'];
if (!url?.startsWith('postgres')) throw new Error('cart-changes: set DATABASE_URL to a Postgres server (source <(tools/infra/env))');

const store = parseStoreConfig(JSON.parse(readFileSync('infra/config/demo-store.json', 'utf8')));
const item = (n: number) => ({
  item: `${n}-1`,
  product: String(n),
  size: '1',
  sku: `SKU-${n}-1`,
  ean: '',
  productName: `Product ${n}`,
  brandName: 'Brand',
  priceEachMinor: (100 + n) * 100,
  quantity: 1,
});

async function main() {
  const engine = await createDbEngine(url!, { logger: createLogger('bench', 'silent'), poolMax });
  const schema = `bench_cart_${process.pid}`;
  const db = engine.forSchema(schema);
  await engine.knex.raw(`create schema if not exists ${schema}`);
  const backend = (await engine.knex.raw('select pg_backend_pid() as pid')) as { rows: Array<{ pid: number }> };
  const stat = readFileSync(`/proc/${backend.rows[0]!.pid}/stat`, 'utf8');
  const postgresPid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  try {
    const cart = await buildCartService({ db, currencyFormat: currencyFormats(store) });
    const ids: string[] = [];
    for (let i = 0; i < selectionCount; i++)
      ids.push((await cart.client.createSelection({ currency: 'SEK', country: 'SE', language: 'sv' })).id);
    const run = async (label: string, runSeconds: number) => {
      let changes = 0;
      let latency = 0;
      const stopAt = Date.now() + runSeconds * 1000;
      const cpu0 = process.cpuUsage();
      const pg0 = cpuMsOfTree(postgresPid);
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async (_, worker) => {
          for (let n = 0; Date.now() < stopAt; n++) {
            const id = ids[(worker + n * concurrency) % ids.length]!;
            const start = performance.now();
            // A few items a selection, each added again and again: the line is inserted once, then updated.
            await cart.client.addItem(id, item(n % 3));
            latency += performance.now() - start;
            changes++;
          }
        }),
      );
      const elapsed = (performance.now() - t0) / 1000;
      const cpu = process.cpuUsage(cpu0);
      const pg = cpuMsOfTree(postgresPid) - pg0;
      console.log(
        `${label}: ${changes} changes in ${elapsed.toFixed(1)} s, ${(changes / elapsed).toFixed(0)}/s, mean ${(latency / changes).toFixed(2)} ms;` +
          ` CPU ms a change: cart ${((cpu.user + cpu.system) / 1000 / changes).toFixed(3)}, Postgres ${(pg / changes).toFixed(3)}`,
      );
    };
    console.log(`${machineLine()}; pool ${poolMax}`);
    await run('warm-up', Math.min(3, seconds));
    await run(`${concurrency} concurrent`, seconds);
  } finally {
    await engine.knex.raw(`drop schema if exists ${schema} cascade`);
    await engine.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
