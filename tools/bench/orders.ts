// The order-history benchmark (issue 10): `POST orders` for a customer with 10 orders and one with 10,000,
// a page of 10 (first and deepest) and the whole history, through the edge of the all-in-one. A page must
// cost the same at 10 and at 10,000 orders (index on customer, placed desc; a per-customer count).
//
//   npm run bench:orders                  embedded (+ real when DATABASE_URL, REDIS_URL, KAFKA_BROKERS are set)
//   BENCH_SECONDS=20 BENCH_CONNECTIONS=1,10 BENCH_LARGE=10000 npm run bench:orders
//   BENCH_ONLY=embedded|real              one setup only
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { machineLine } from './bench-env';

const seconds = Number(process.env['BENCH_SECONDS'] ?? 10);
const connectionCounts = (process.env['BENCH_CONNECTIONS'] ?? '1,10').split(',').map(Number);
/** The whole history of 10,000 orders is a ~20 MB answer: fewer seconds of it tell as much. */
const small = Number(process.env['BENCH_SMALL'] ?? 10);
const large = Number(process.env['BENCH_LARGE'] ?? 10_000);
const wholeSeconds = Number(process.env['BENCH_WHOLE_SECONDS'] ?? Math.max(3, Math.round(seconds / 2)));

interface Served {
  url: string;
  engines: string;
  tokens: { small: string; large: string };
  seedSeconds: number;
  child: ChildProcess;
}

function serve(mode: string): Promise<Served> {
  const child = spawn('node_modules/.bin/tsx', ['tools/bench/orders-serve.ts', mode], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: process.env,
  });
  const lines = createInterface({ input: child.stdout! });
  return new Promise((resolve, reject) => {
    lines.once('line', (line) => resolve({ ...(JSON.parse(line) as Omit<Served, 'child'>), child }));
    child.once('exit', (code) => reject(new Error(`bench server ${mode} exited with ${code}`)));
  });
}
const kill = (child: ChildProcess) => new Promise<void>((r) => (child.once('exit', () => r()), child.kill('SIGTERM')));

async function history(served: Served, token: string, body: object, connections: number, duration: number) {
  const result = await autocannon({
    url: `${served.url}/api/checkout/orders`,
    method: 'POST',
    connections,
    duration,
    headers: { 'content-type': 'application/json', 'api-token': token },
    body: JSON.stringify(body),
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`POST orders: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result;
}

async function run(mode: string) {
  const served = await serve(mode);
  console.log(`\n${mode} (${served.engines}): seeded in ${served.seedSeconds.toFixed(1)} s`);
  console.log('| customer | request | connections | req/s | p50 ms | p99 ms |');
  console.log('|---|---|---|---|---|---|');
  try {
    const many = `${large.toLocaleString('en')} orders`;
    const few = `${small} orders`;
    const cases: Array<[string, string, string, object, number]> = [
      [few, served.tokens.small, 'page {from:0, size:10}', { from: 0, size: 10 }, seconds],
      [many, served.tokens.large, 'page {from:0, size:10}', { from: 0, size: 10 }, seconds],
      [many, served.tokens.large, `page {from:${large - 10}, size:10}`, { from: large - 10, size: 10 }, seconds],
      [few, served.tokens.small, 'all (no paging)', {}, seconds],
      [many, served.tokens.large, 'all (no paging)', {}, wholeSeconds],
    ];
    for (const [who, token, what, body, duration] of cases) {
      for (const connections of connectionCounts) {
        const r = await history(served, token, body, connections, duration);
        console.log(`| ${who} | ${what} | ${connections} | ${r.requests.average.toFixed(0)} | ${r.latency.p50} | ${r.latency.p99} |`);
      }
    }
  } finally {
    await kill(served.child);
  }
}

async function main() {
  console.log(`order history benchmark: ${machineLine()}; ${seconds} s a case`);
  const only = process.env['BENCH_ONLY'];
  if (!only || only === 'embedded') await run('embedded');
  const real = process.env['DATABASE_URL'] && process.env['REDIS_URL'] && process.env['KAFKA_BROKERS'];
  if ((!only || only === 'real') && real) await run('real');
  else if (only === 'real') throw new Error('BENCH_ONLY=real needs DATABASE_URL, REDIS_URL and KAFKA_BROKERS');
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
