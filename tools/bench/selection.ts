// The selection benchmark (issue 7): `POST items/{item}` and `GET selection` through the edge at 1 and 50
// connections, on the embedded all-in-one and on real Postgres + Redis + Kafka with every service in its
// own process, each as a ratio to a bare Koa handler measured in the same run.
//
//   npx tsx tools/bench/selection.ts                      embedded (+ separate processes when DATABASE_URL, REDIS_URL, KAFKA_BROKERS are set)
//   BENCH_SECONDS=20 npx tsx tools/bench/selection.ts
//   BENCH_ONLY=separate BENCH_PROFILE=/tmp/prof npx tsx tools/bench/selection.ts
//                                                         only one setup (embedded|separate); CPU profiles of
//                                                         the separate services (node --cpu-prof) into that folder
//   BENCH_IDLE_SECONDS=10 BENCH_CONNECTIONS= BENCH_ONLY=separate npx tsx tools/bench/selection.ts
//                                                         each separate process's CPU while no request is
//                                                         served (ms a second, from /proc), before the load;
//                                                         with BENCH_CONNECTIONS empty, only that
//   BENCH_AT_TARGET=1 npx tsx tools/bench/selection.ts    also each request at its issue-7 target rate at 50
//                                                         connections (GET 3,000/s, POST 1,500/s offered evenly,
//                                                         tools/bench/paced-load.ts): the p99 at the target load,
//                                                         not at saturation; also the p99 from each request's due
//                                                         moment
//   BENCH_STALLS=/tmp/stalls BENCH_AT_TARGET=1 BENCH_ONLY=separate npx tsx tools/bench/selection.ts
//                                                         where the paced rows' slow answers (≥ 25 ms) come from:
//                                                         every separate process and the load generator record
//                                                         their event-loop stalls and GC pauses
//                                                         (tools/bench/loop-probe.ts) into that folder; each
//                                                         slow answer is put down to the stalls it overlapped;
//                                                         each process's scavenges (count × length) and RSS
//   BENCH_REQUESTS=GET npx tsx tools/bench/selection.ts   only the `GET selection` rows (or POST: only the `POST items/{item}` rows)
//   BENCH_APP_NODE_OPTIONS='checkout-api=--max-semi-space-size=64;cart=…'
//                                                         node options for one separate app (after the run's own)
//   BENCH_EDGE_REPLICAS=2 BENCH_CART_REPLICAS=2 BENCH_ONLY=separate npx tsx tools/bench/selection.ts
//                                                         that many edge and cart processes on one port each
//                                                         (SO_REUSEPORT, decision 86), as infra/k8s deploys them
//   BENCH_REPLICAS=1x1,2x1,2x2 BENCH_ONLY=separate npx tsx tools/bench/selection.ts
//                                                         each edge×cart topology in turn, one separate setup each
//   SERVICE_RUNTIME=tsx npx tsx tools/bench/selection.ts  the separate services from their sources under tsx instead
//                                                         of the image's bundles (the default, built first; decision 95)
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { benchAppNodeOptions, benchSetups, cpuMsOf, cpuMsOfTree, machineLine, realInfraEnv, runBench } from './bench-env';
import { Redis } from 'ioredis';
import autocannon from 'autocannon';
import { pacedLoad, type SlowRequest } from './paced-load';
import { startLoopProbe } from './loop-probe';
import {
  checkoutCall,
  postSoap,
  searchUntilFound,
  skeletonPricelistXml,
  skeletonProductXml,
  uniqueWord,
  type Endpoints,
} from '../e2e/skeleton.scenario';
import { connectionsOf, SHOP_APPS, startShopProcesses, serviceRuntime, stopApp, type ServiceProcess, type ShopApp } from '../e2e/processes';
import { createDbEngine } from '@commerce/shared-db';
import { createLogger } from '@commerce/shared-logging';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Phase, PhaseRecord } from './profile-summary';

const seconds = Number(process.env['BENCH_SECONDS'] ?? 10);
const connectionCounts = (process.env['BENCH_CONNECTIONS'] ?? '1,50').split(',').filter(Boolean).map(Number);
/** Seconds each separate process's idle CPU is read for, after the setup and before the load (0: not read). */
const idleSeconds = Number(process.env['BENCH_IDLE_SECONDS'] ?? 0);
/** Idle CPU of each separate process (ms a second), printed after the table. */
const idleLines: string[] = [];
/** Sessions the POST load rotates over, so no line nears the quantity limit. */
const TOKENS = 300;
const profileDir = process.env['BENCH_PROFILE'];
/** Issue 7's targets, offered as fixed rates at 50 connections when BENCH_AT_TARGET is set. */
const TARGET_RATES = { 'GET selection': 3000, 'POST items/{item}': 1500 } as const;
const atTarget = Boolean(process.env['BENCH_AT_TARGET']);
/** Where the processes' stall records go (tools/bench/loop-probe.ts), when set. */
const stallsDir = process.env['BENCH_STALLS'] ? resolve(process.env['BENCH_STALLS']) : undefined;
/** What each paced row's slow answers overlapped, printed after the table. */
const stallLines: string[] = [];
/** What the profile summary reads beside the profiles (`tools/bench/profile-summary.ts`). */
const record: PhaseRecord = { pids: {}, phases: [] };
/** CPU per request per process of each separate-processes row, printed after the table. */
const cpuLines: string[] = [];
/** Edge × cart replicas of each separate setup, in turn (BENCH_REPLICAS, else BENCH_EDGE_REPLICAS × BENCH_CART_REPLICAS). */
const topologies = (
  process.env['BENCH_REPLICAS'] ?? `${process.env['BENCH_EDGE_REPLICAS'] ?? 1}x${process.env['BENCH_CART_REPLICAS'] ?? 1}`
)
  .split(',')
  .filter(Boolean)
  .map((t) => {
    const [edges, carts] = t.split('x').map(Number);
    if (!(edges! >= 1 && carts! >= 1)) throw new Error(`BENCH_REPLICAS: ${t} is not <edges>x<carts>`);
    return { edges: edges!, carts: carts! };
  });
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
const cpuNow = () => {
  const services = Object.entries(record.pids).flatMap(([service, pid]) => {
    const ms = cpuMsOf(pid);
    return ms === undefined ? [] : [[service, ms] as const];
  });
  // With separate processes, the engines and the load generator too: a change's whole CPU cost (the shared
  // engines' figures include whatever else uses them meanwhile).
  if (services.length === 0) return {};
  const { user, system } = process.cpuUsage();
  return Object.fromEntries([
    ...services,
    ...Object.entries(enginePids).map(([engine, pid]) => [engine, cpuMsOfTree(pid)] as const),
    ['bench (autocannon)', (user + system) / 1000],
  ]);
};
/** The Postgres server (its backends are its children) and the Redis server the separate processes use. */
const enginePids: Record<string, number> = {};
async function findEnginePids(infra: Record<string, string>) {
  const engine = await createDbEngine(infra['DATABASE_URL']!, { logger: createLogger('bench', 'silent') });
  const backend = (await engine.knex.raw('select pg_backend_pid() as pid')) as { rows: Array<{ pid: number }> };
  const stat = readFileSync(`/proc/${backend.rows[0]!.pid}/stat`, 'utf8');
  enginePids['postgres'] = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  await engine.close();
  const redis = new Redis(infra['REDIS_URL']!);
  const info = await redis.info('server');
  enginePids['redis'] = Number(/process_id:(\d+)/.exec(info)?.[1]);
  redis.disconnect();
}

interface Running {
  endpoints: Endpoints;
  engines: string;
  stop(): Promise<void>;
  /** Service name → pid, for the profile summary. */
  pids?: Record<string, number>;
  /** The separate cart's URL: its /metrics count the selection reads (renderings) during a row (one cart replica only). */
  cartUrl?: string;
  /** The edge's and the cart's replicas: which one took each connection, mid-row. */
  replicas?: { edges: ServiceProcess[]; carts: ServiceProcess[] };
}

/**
 * How many times the cart has been asked for a selection (`GET /internal/cart/selections/:id`, from its
 * /metrics): during a `GET selection` row, the edge's renderings (decisions 48, 57, 71, 72).
 */
async function cartSelectionReads(cartUrl: string | undefined): Promise<number> {
  if (!cartUrl) return 0;
  const text = await (await fetch(`${cartUrl}/metrics`)).text();
  return text
    .split('\n')
    .filter(
      (l) => l.startsWith('http_request_duration_seconds_count{') && l.includes('method="GET"') && /route="[^"]*\/selections\/:id"/.test(l),
    )
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

function serve(mode: string): Promise<{ url: string; engines?: string; child: ChildProcess }> {
  const child = spawn('node_modules/.bin/tsx', ['tools/bench/serve.ts', mode], { stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
  const lines = createInterface({ input: child.stdout! });
  return new Promise((resolve, reject) => {
    lines.once('line', (line) => resolve({ ...(JSON.parse(line) as { url: string; engines?: string }), child }));
    child.once('exit', (code) => reject(new Error(`bench server ${mode} exited with ${code}`)));
  });
}
const kill = (child: ChildProcess) => new Promise<void>((r) => (child.once('exit', () => r()), child.kill('SIGTERM')));
const soapUser = { username: 'demo', password: 'demo-secret', namespace: 'urn:commerce-service:backoffice' };

async function embedded(): Promise<Running> {
  const server = await serve('embedded');
  return {
    endpoints: { checkout: `${server.url}/api/checkout`, soap: `${server.url}/ams/system/service/module/soap/api`, soapUser },
    engines: server.engines ?? 'embedded',
    stop: () => kill(server.child),
  };
}

async function separateProcesses(topology: { edges: number; carts: number }): Promise<Running> {
  // Schemas of this run's own, dropped at the end: no other run's selections, products or outbox rows.
  const suffix = `${process.pid}_${Date.now().toString(36)}`;
  const apps: ShopApp[] = ['catalog', 'cart', 'backoffice-soap', 'payment', 'account', 'order'];
  const schemas = new Map(apps.map((app) => [app, `bench_sel_${app.replace('-', '_')}_${suffix}`]));
  const nodeOptions = [
    ...(profileDir ? [`--cpu-prof --cpu-prof-dir=${profileDir}`] : []),
    ...(stallsDir ? [`--import ${resolve('tools/bench/loop-probe.ts')}`] : []),
  ];
  const infra: Record<string, string> = {
    ...realInfraEnv(),
    ...(nodeOptions.length ? { NODE_OPTIONS: nodeOptions.join(' ') } : {}),
    ...(stallsDir ? { LOOP_PROBE_DIR: stallsDir } : {}),
  };
  const dropSchemas = async () => {
    const engine = await createDbEngine(infra['DATABASE_URL']!, { logger: createLogger('bench', 'silent') });
    for (const schema of schemas.values()) await engine.knex.raw('drop schema if exists ?? cascade', [schema]);
    await engine.close();
  };
  const per: Partial<Record<ShopApp, Record<string, string>>> = Object.fromEntries(
    [...schemas].map(([app, schema]) => [app, { DATABASE_SCHEMA: schema }]),
  );
  // BENCH_APP_NODE_OPTIONS: node options for one app's process, after the run's own (a later V8 flag wins),
  // e.g. `checkout-api=--max-semi-space-size=32;cart=--max-semi-space-size=32`.
  for (const app of SHOP_APPS) {
    const own = benchAppNodeOptions(app);
    if (own) per[app] = { ...per[app], NODE_OPTIONS: [...nodeOptions, own].join(' ') };
  }
  // When the engines run on this machine, their CPU per request too (shared ones include others' work).
  await findEnginePids(infra).catch(() => undefined);
  // The edge needs every service's URL to start, though this benchmark never reaches payment and order.
  const shop = await startShopProcesses(
    infra,
    { ...per, catalog: { ...per['catalog'], MEILI_URL: 'embedded' } },
    { 'checkout-api': topology.edges, cart: topology.carts },
  ).catch(async (e: unknown) => {
    await dropSchemas();
    throw e;
  });
  return {
    endpoints: { checkout: `${shop.edge.url}/api/checkout`, soap: `${shop.soap.url}/ams/system/service/module/soap/api`, soapUser },
    engines: `separate processes (${serviceRuntime()}): Postgres, Redis sessions, Kafka, embedded search; ${replicasLabel(topology)}`,
    pids: Object.fromEntries(shop.all.map((s) => [s.name, s.child.pid!])),
    ...(shop.carts.length === 1 ? { cartUrl: shop.cart.url } : {}),
    replicas: { edges: shop.edges, carts: shop.carts },
    stop: async () => {
      await Promise.all(shop.all.map(stopApp));
      await dropSchemas();
    },
  };
}

const replicasLabel = ({ edges, carts }: { edges: number; carts: number }) =>
  `${edges} edge replica${edges === 1 ? '' : 's'}, ${carts} cart replica${carts === 1 ? '' : 's'}`;

/** How many connections each replica holds on its port: the load generator's on the edges, the edges' on the carts. */
function spread(replicas: Running['replicas']): string {
  if (!replicas || replicas.edges.length + replicas.carts.length <= 2) return '';
  const each = (list: ServiceProcess[]) => [...connectionsOf(list)].map(([replica, peers]) => `${replica.name} ${peers.length}`).join(', ');
  return `connections mid-row: ${each(replicas.edges)}; ${each(replicas.carts)}`;
}

/** Each separate process's resident memory (MB, /proc/<pid>/status VmRSS). */
function rssNow(): string {
  return Object.entries(record.pids)
    .flatMap(([service, pid]) => {
      try {
        const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
        return [`${service} ${Math.round(kb / 1024)}`];
      } catch {
        return [];
      }
    })
    .join(', ');
}

async function load(
  url: string,
  connections: number,
  options: {
    method?: 'GET' | 'POST';
    tokens?: string[];
    what?: string;
    rate?: number;
    cartUrl?: string;
    replicas?: Running['replicas'];
  } = {},
) {
  let next = 0;
  const readsBefore = await cartSelectionReads(options.cartUrl);
  const startUs = monotonicUs();
  const cpuBefore = cpuNow();
  let connectionSpread = '';
  const sampler = setTimeout(() => (connectionSpread = spread(options.replicas)), (seconds * 1000) / 2);
  const tokens = options.tokens ?? [];
  const tokenHeaders = (i: number): Record<string, string> => {
    const token = tokens[i % Math.max(1, tokens.length)];
    return token ? { 'API-Token': token } : {};
  };
  const result = options.rate
    ? await offered(url, connections, options.rate, options.method ?? 'GET', tokenHeaders)
    : await autocannon({
        url,
        connections,
        duration: seconds,
        method: options.method ?? 'GET',
        requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, ...tokenHeaders(next++) } }) }],
      });
  clearTimeout(sampler);
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  const cpuAfter = cpuNow();
  const cpuMs = Object.fromEntries(Object.keys(cpuBefore).map((service) => [service, (cpuAfter[service] ?? 0) - cpuBefore[service]!]));
  if (options.what)
    record.phases.push({
      what: options.what,
      connections,
      startUs,
      endUs: monotonicUs(),
      requests: result.requests.total,
      cpuMs,
    } satisfies Phase);
  // CPU per request per process: the figure to read on a loaded machine (decision 57's bench notes).
  const perRequest = Object.entries(cpuMs)
    .filter(([, ms]) => ms > 0)
    .map(([service, ms]) => `${service} ${(ms / Math.max(1, result.requests.total)).toFixed(3)}`);
  const reads = options.cartUrl ? `; the cart read a selection ${(await cartSelectionReads(options.cartUrl)) - readsBefore} times` : '';
  // The services' sum (not the engines', not the load generator's): what the replicas cost together.
  const servicesMs = Object.entries(cpuMs)
    .filter(([service]) => service in record.pids)
    .reduce((sum, [, ms]) => sum + ms, 0);
  const extra = [
    `the services' sum ${(servicesMs / Math.max(1, result.requests.total)).toFixed(3)}`,
    `RSS MB after: ${rssNow()}`,
    connectionSpread,
  ].filter(Boolean);
  if (options.what && perRequest.length)
    cpuLines.push(`${options.what}, ${connections} connections: CPU ms a request: ${perRequest.join(', ')}${reads}; ${extra.join('; ')}`);
  if ('slow' in result && options.what)
    stallLines.push(await stallReport(options.what, result.slow, startUs, result.timerLate, result.requests.total));
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ...('p99FromDue' in result.latency ? { p99FromDue: result.latency.p99FromDue } : {}),
  };
}

/**
 * A fixed rate offered evenly over the connections (`paced-load.ts`), in autocannon's result shape: not
 * autocannon's `overallRate`, which sends each connection's share of a second in one burst and weights its
 * percentiles towards slow answers.
 */
async function offered(
  url: string,
  connections: number,
  rate: number,
  method: 'GET' | 'POST',
  headers: (i: number) => Record<string, string>,
) {
  const paced = await pacedLoad({ url, connections, rate, seconds, method, headers });
  return {
    non2xx: paced.non2xx,
    errors: 0,
    requests: { total: paced.requests, average: paced.rps },
    latency: { p50: paced.p50, p99: paced.p99, p99FromDue: paced.p99FromDue },
    slow: paced.slow,
    timerLate: `p99 ${paced.timerLateP99} ms, max ${paced.timerLateMax} ms; p99 from sending after the first second ${paced.p99AfterFirstSecond} ms`,
  };
}

interface StallEvent {
  /** A GC pause (every one), an event-loop stall, or the process's RSS (`rssMb`, once a second). */
  kind: 'gc' | 'stall' | 'mem';
  rssMb?: number;
  /** A stall's main-thread CPU time: near its length, the loop was busy; far under, it waited for a core. */
  busyMs?: number;
  newSpaceMb?: number;
  /** A GC's kind: 1 minor (scavenge), 2 major (mark-compact), 4 incremental marking, 8 weak callbacks. */
  gc?: number;
  /** Epoch ms. */
  at: number;
  ms: number;
}

/**
 * What a paced row's slow answers overlapped (BENCH_STALLS): each process's event-loop stalls and GC pauses
 * during the row (from the loop probes' files), and each slow answer put down to the first of: a GC pause in
 * the edge, another stall of the edge, a stall of the load generator, a stall of another process, none seen.
 * Also how many of them came in the row's first second (renderings made again after the rows before changed
 * every selection).
 */
async function stallReport(what: string, slow: SlowRequest[], startUs: number, timerLate: string, requests: number): Promise<string> {
  if (!stallsDir) return '';
  const toMs = Date.now();
  const fromMs = toMs - (monotonicUs() - startUs) / 1000;
  // The probes write once a second.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const names = new Map<number, string>([
    [process.pid, 'load generator'],
    ...Object.entries(record.pids).map(([n, pid]) => [pid, n] as const),
  ]);
  const byProcess = new Map<string, StallEvent[]>();
  for (const file of readdirSync(stallsDir).filter((f) => f.endsWith('.jsonl'))) {
    const pid = Number(file.replace('.jsonl', ''));
    const name = names.get(pid);
    if (!name) continue;
    const events = readFileSync(join(stallsDir, file), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as StallEvent)
      .filter((e) => e.at + e.ms >= fromMs && e.at <= toMs);
    byProcess.set(name, events);
  }
  const overlaps = (request: SlowRequest, e: StallEvent) => e.at < request.sentAt + request.ms && e.at + e.ms > request.sentAt;
  const causes = new Map<string, number>();
  for (const request of slow) {
    // A pause under 1 ms does not make an answer slow: the causes count GC pauses ≥ 1 ms, as before.
    const hit = (name: string, kind?: StallEvent['kind']) =>
      (byProcess.get(name) ?? []).some(
        (e) => e.kind !== 'mem' && (e.kind !== 'gc' || e.ms >= 1) && (!kind || e.kind === kind) && overlaps(request, e),
      );
    const others = [...byProcess.keys()].filter((n) => n !== 'checkout-api' && n !== 'load generator' && hit(n));
    // A stall whose thread ran for under half of its length waited for a core (the OS ran something else).
    const edgeStalls = (byProcess.get('checkout-api') ?? []).filter((e) => e.kind === 'stall' && overlaps(request, e));
    const cause = hit('checkout-api', 'gc')
      ? 'edge GC'
      : edgeStalls.length
        ? edgeStalls.some((e) => e.busyMs === undefined || e.busyMs >= (e.ms + 5) / 2)
          ? 'edge stall (busy)'
          : 'edge stall (waiting for a core)'
        : hit('load generator')
          ? 'load generator stall'
          : others.length
            ? `stall of ${others.join('+')}`
            : 'no stall seen';
    causes.set(cause, (causes.get(cause) ?? 0) + 1);
  }
  const rate = TARGET_RATES[what.split(' offered')[0] as keyof typeof TARGET_RATES] ?? 1;
  const firstSecond = slow.filter((r) => r.index < rate).length;
  const perProcess = [...byProcess]
    .map(([name, events]) => {
      const of = (kind: StallEvent['kind']) => events.filter((e) => e.kind === kind);
      const sum = (list: StallEvent[]) => list.reduce((a, e) => a + e.ms, 0).toFixed(0);
      const max = (list: StallEvent[]) => list.reduce((a, e) => Math.max(a, e.ms), 0).toFixed(1);
      const [stalls, every] = [of('stall'), of('gc')];
      const gcs = every.filter((e) => e.ms >= 1);
      const major = gcs.filter((e) => e.gc === 2);
      const scavenges = every.filter((e) => e.gc === 1);
      const mem = events.filter((e) => e.kind === 'mem');
      const rss = mem.reduce((a, e) => Math.max(a, e.rssMb ?? 0), 0);
      const newSpace = mem.reduce((a, e) => Math.max(a, e.newSpaceMb ?? 0), 0);
      const busy = stalls.filter((e) => e.busyMs !== undefined && e.busyMs >= (e.ms + 5) / 2);
      return `${name} ${stalls.length} stalls (${sum(stalls)} ms, max ${max(stalls)}; ${busy.length} busy, ${sum(busy)} ms), ${gcs.length} GCs ≥ 1 ms (${sum(gcs)} ms, max ${max(gcs)}; ${major.length} of them major, ${sum(major)} ms), all scavenges ${scavenges.length} (${sum(scavenges)} ms), RSS up to ${rss} MB, young generation up to ${newSpace} MB`;
    })
    .join('; ');
  // The edge's scavenges per 10,000 requests of the row: its young generation's work, whatever the box's load.
  const edgeScavenges = (byProcess.get('checkout-api') ?? []).filter((e) => e.kind === 'gc' && e.gc === 1);
  const perTenThousand = (n: number) => ((n * 10_000) / Math.max(1, requests)).toFixed(1);
  const edgeLine = `  the edge's scavenges per 10,000 answers: ${perTenThousand(edgeScavenges.length)}, ${perTenThousand(edgeScavenges.reduce((a, e) => a + e.ms, 0))} ms`;
  return [
    `${what}: ${slow.length} answers ≥ 25 ms from sending, ${firstSecond} of them in the first second; by what they overlapped: ${[...causes].map(([c, n]) => `${c} ${n}`).join(', ') || '—'}`,
    `  the load generator's timers late: ${timerLate}`,
    `  stalls ≥ 5 ms and GC pauses from the row's start: ${perProcess}`,
    edgeLine,
  ].join('\n');
}

/** Each process's CPU while nothing is asked of it: its timers, polls and heartbeats, in ms a second. */
async function idleCpu(): Promise<string> {
  // Let the setup's events (the product's upserts, the sessions' changes) settle first.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const before = cpuNow();
  const startUs = monotonicUs();
  await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
  const after = cpuNow();
  const elapsedS = (monotonicUs() - startUs) / 1e6;
  const each = Object.keys(before).map((service) => `${service} ${(((after[service] ?? 0) - before[service]!) / elapsedS).toFixed(1)}`);
  return `idle CPU ms a second over ${elapsedS.toFixed(0)} s: ${each.join(', ')}`;
}

/** What a row of the setup reads beside its load: the cart's selection reads, the replicas' connections. */
const rowOf = (running: Running) => ({
  ...(running.cartUrl ? { cartUrl: running.cartUrl } : {}),
  ...(running.replicas ? { replicas: running.replicas } : {}),
});

async function measure(running: Running) {
  const word = uniqueWord();
  for (const [operation, xml] of [
    ['pricelists_Update', skeletonPricelistXml(`bench-${word}`)],
    ['products_Update', skeletonProductXml(`bench-${word}`, `Bench ${word}`)],
  ] as const) {
    const soap = await postSoap(running.endpoints, operation, xml);
    if (soap.status !== 200) throw new Error(`SOAP ${operation} answered ${soap.status}: ${soap.text}`);
  }
  const found = await searchUntilFound(running.endpoints, word);
  const item = found.body['products'][0].items[0].item as string;
  const tokens: string[] = [];
  for (let i = 0; i < TOKENS; i++) tokens.push((await checkoutCall(running.endpoints, 'POST', `/items/${item}`)).body['token'] as string);
  if (idleSeconds > 0 && running.pids) idleLines.push(await idleCpu());
  // BENCH_REQUESTS=GET (or POST): only that request's rows.
  const only = process.env['BENCH_REQUESTS'];
  const requests = (
    [
      ['GET selection', 'GET', '/selection'],
      ['POST items/{item}', 'POST', `/items/${item}`],
    ] as const
  ).filter(([, method]) => !only || only === method);
  const rows = [];
  for (const connections of connectionCounts) {
    for (const [what, method, path] of requests)
      rows.push({
        what,
        connections,
        ...(await load(`${running.endpoints.checkout}${path}`, connections, { method, tokens, what, ...rowOf(running) })),
      });
  }
  if (atTarget && connectionCounts.includes(50))
    for (const [what, method, path] of requests) {
      const rate = TARGET_RATES[what];
      const label = `${what} offered at ${rate}/s`;
      rows.push({
        what: label,
        connections: 50,
        ...(await load(`${running.endpoints.checkout}${path}`, 50, { method, tokens, what: label, rate, ...rowOf(running) })),
      });
    }
  return rows;
}

/**
 * A setup, tried up to three times: on a fresh Kafka namespace a service sometimes exits at start with "This
 * server does not host this topic-partition" (topics its peers are creating at the same moment); a new try
 * starts every process again.
 */
async function startedWithRetries(setup: () => Promise<Running>): Promise<Running> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await setup();
    } catch (error) {
      if (attempt >= 3) throw error;
      console.error(`setup failed (attempt ${attempt} of 3), starting again: ${String((error as Error).message).split('\n')[0]}`);
    }
  }
}

async function main() {
  if (stallsDir) {
    mkdirSync(stallsDir, { recursive: true });
    startLoopProbe(stallsDir);
  }
  const bare = await serve('bare');
  const bareRows = new Map<number, Awaited<ReturnType<typeof load>>>();
  try {
    for (const c of connectionCounts) bareRows.set(c, await load(bare.url, c));
  } finally {
    await kill(bare.child);
  }
  const setups = benchSetups(
    [embedded],
    topologies.map((topology) => () => separateProcesses(topology)),
  ).flat();
  const lines = [
    `${machineLine()}; ${seconds} s a row`,
    '',
    '| request | engines | connections | req/s | p50 ms | p99 ms | req/s ÷ bare Koa |',
    '|---|---|---|---|---|---|---|',
    ...connectionCounts.map(
      (c) =>
        `| bare Koa handler | — | ${c} | ${bareRows.get(c)!.rps.toFixed(0)} | ${bareRows.get(c)!.p50} | ${bareRows.get(c)!.p99} | 1.00 |`,
    ),
  ];
  for (const setup of setups) {
    const running = await startedWithRetries(setup);
    Object.assign(record.pids, running.pids);
    try {
      for (const r of await measure(running))
        lines.push(
          `| ${r.what} | ${running.engines} | ${r.connections} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99}${r.p99FromDue === undefined ? '' : ` (${r.p99FromDue} from due)`} | ${(r.rps / bareRows.get(r.connections)!.rps).toFixed(2)} |`,
        );
    } finally {
      await running.stop();
    }
  }
  console.log(lines.join('\n'));
  if (idleLines.length) console.log(`\n${idleLines.join('\n')}`);
  if (cpuLines.length) console.log(`\n${cpuLines.join('\n')}`);
  if (stallLines.length) console.log(`\n${stallLines.join('\n')}`);
  if (profileDir) {
    writeFileSync(join(profileDir, 'phases.json'), JSON.stringify(record, null, 2));
    console.log(`\nCPU per request per process: npx tsx tools/bench/profile-summary.ts ${profileDir}`);
  }
}

runBench(main);
