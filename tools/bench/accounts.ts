// The accounts benchmark (issue 9), on the embedded all-in-one with the production argon2id cost
// (19 MiB, t = 2, p = 1, unless ARGON2_MEMORY_KIB / ARGON2_ITERATIONS raise it):
//   - the cost of one hash and one verification on this machine, in process;
//   - POST register throughput (a new e-mail each request) at BENCH_REGISTER_CONNECTIONS (default 20);
//   - POST login/{email} throughput and p99 at 20 connections (correct passwords, 20 customers);
//   - GET selection p99 at 50 connections alone, then while the logins run: a login must not stall other requests.
//
//   npm run bench:accounts
//   BENCH_SECONDS=20 npm run bench:accounts
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { ARGON2_DEFAULTS, createArgon2Hasher } from '@commerce/account-adapters';
import { machineLine } from './bench-env';

const seconds = Number(process.env['BENCH_SECONDS'] ?? 10);
const registerConnections = Number(process.env['BENCH_REGISTER_CONNECTIONS'] ?? 20);
const PASSWORD = 'correct horse battery staple';
const run = `${process.pid}-${Date.now()}`;

function serve(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn('node_modules/.bin/tsx', ['tools/bench/serve.ts', 'accounts'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: process.env,
  });
  const lines = createInterface({ input: child.stdout! });
  return new Promise((resolve, reject) => {
    lines.once('line', (line) => resolve({ ...(JSON.parse(line) as { url: string }), child }));
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
}
const kill = (child: ChildProcess) => new Promise<void>((r) => (child.once('exit', () => r()), child.kill('SIGTERM')));

const post = async (url: string, body: unknown, token?: string) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { 'API-Token': token } : {}) },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as { token: string };
};

type Row = { rps: number; p50: number; p99: number; requests: number };

/** One autocannon run; `next` gives each request its path, body and token. */
async function load(
  base: string,
  connections: number,
  next: () => { method: 'GET' | 'POST'; path: string; body?: unknown; token?: string },
): Promise<Row> {
  const result = await autocannon({
    url: base,
    connections,
    duration: seconds,
    requests: [
      {
        setupRequest: (req) => {
          const r = next();
          return {
            ...req,
            method: r.method,
            path: `/api/checkout${r.path}`,
            headers: { ...req.headers, 'content-type': 'application/json', ...(r.token ? { 'API-Token': r.token } : {}) },
            ...(r.body === undefined ? {} : { body: JSON.stringify(r.body) }),
          };
        },
      },
    ],
  });
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0)
    throw new Error(`${base}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, requests: result.requests.total };
}

async function hashCost() {
  const hasher = createArgon2Hasher(ARGON2_DEFAULTS);
  const hashes: number[] = [];
  const verifies: number[] = [];
  let hash = await hasher.hash(PASSWORD);
  for (let i = 0; i < 20; i++) {
    let start = process.hrtime.bigint();
    hash = await hasher.hash(PASSWORD);
    hashes.push(Number(process.hrtime.bigint() - start) / 1e6);
    start = process.hrtime.bigint();
    await hasher.verify(hash, PASSWORD);
    verifies.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return { hash: median(hashes), verify: median(verifies) };
}

async function main() {
  const cost = await hashCost();
  const server = await serve();
  const api = `${server.url}/api/checkout`;
  const rows: string[] = [];
  const row = (what: string, connections: number, r: Row) =>
    rows.push(`| ${what} | ${connections} | ${r.rps.toFixed(1)} | ${r.p50} | ${r.p99} | ${r.requests} |`);
  try {
    // Warm-up: the first registration waits for the demo catalog's indexing to settle.
    await post(`${api}/register`, { email: `warm-${run}@example.com`, password: PASSWORD });
    let n = 0;
    row(
      'POST register (new e-mail each)',
      registerConnections,
      await load(server.url, registerConnections, () => ({
        method: 'POST',
        path: '/register',
        body: { email: `bench-${run}-${++n}@example.com`, password: PASSWORD },
      })),
    );

    const emails = Array.from({ length: 20 }, (_, i) => `login-${run}-${i}@example.com`);
    for (const email of emails) await post(`${api}/register`, { email, password: PASSWORD });
    let l = 0;
    const login = () => ({
      method: 'POST' as const,
      path: `/login/${encodeURIComponent(emails[l++ % emails.length]!)}`,
      body: { password: PASSWORD },
    });
    row('POST login/{email} (correct password)', 20, await load(server.url, 20, login));

    const tokens: string[] = [];
    for (let i = 0; i < 200; i++) tokens.push((await post(`${api}/items/1-1`, {})).token);
    let t = 0;
    const selection = () => ({ method: 'GET' as const, path: '/selection', token: tokens[t++ % tokens.length]! });
    row('GET selection, alone', 50, await load(server.url, 50, selection));
    const [during, logins] = await Promise.all([load(server.url, 50, selection), load(server.url, 20, login)]);
    row('GET selection, while 20 connections log in', 50, during);
    row('POST login/{email}, beside the GET selection load', 20, logins);
  } finally {
    await kill(server.child);
  }
  console.log(
    [
      `${machineLine()}; ${seconds} s a row; embedded all-in-one`,
      `argon2id m=${ARGON2_DEFAULTS.memoryKiB} KiB, t=${ARGON2_DEFAULTS.iterations}, p=${ARGON2_DEFAULTS.parallelism}: one hash ${cost.hash.toFixed(1)} ms, one verification ${cost.verify.toFixed(1)} ms (medians of 20, in process)`,
      '',
      '| request | connections | req/s | p50 ms | p99 ms | requests |',
      '|---|---|---|---|---|---|',
      ...rows,
    ].join('\n'),
  );
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
