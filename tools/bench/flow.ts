// The flow benchmark (issue 28): what a storefront asks of the shop. C visitors at once, each in a loop: a new
// selection (`GET selection` without a token), then K × (`POST items/{item}` of a random in-stock item, `GET
// selection`); the checkout variant ends each selection with `POST payment`, the test provider's Approve and `POST
// payment-result` (the order placed). Per request kind: requests/s and p50/p99; per row: CPU ms per process (/proc,
// idle taken off) for every service and, on real engines, Postgres, Redis and Kafka; and the deterministic counts of
// the work a row asked (each service's /metrics): internal HTTP calls, SQL statements and Redis commands, and the
// Kafka messages produced (the run's topics' offsets) and the requests the services' Kafka clients sent, by API. On the all-in-one (embedded engines) and, when DATABASE_URL,
// REDIS_URL and KAFKA_BROKERS are set, on the separate processes `npm run services` starts (tools/services); each
// row's requests/s as a ratio to a bare Koa handler driven by as many visitors in the same run.
//
//   source <(tools/infra/env) && npm run bench:flow
//   BENCH_SECONDS (15)  BENCH_VISITORS (10,50: the cart flow)  BENCH_CHECKOUT_VISITORS (1,8)  BENCH_ADDS (K, 5)
//   BENCH_FLOWS=cart|checkout (both)  BENCH_ONLY=embedded|separate  BENCH_FLOW_PRODUCTS (20 items to pick from)
//   BENCH_PROFILE=<dir> (CPU profiles of the separate processes, and phases.json: each row's window, for
//   `npx tsx tools/bench/profile-summary.ts <dir>`)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDbEngine } from '@commerce/shared-db';
import { createLogger } from '@commerce/shared-logging';
import { cleanUpNamed, rememberName } from '@commerce/shared-testing';
import { Redis } from 'ioredis';
import { benchSetups, cpuMsOfTree, machineLine, realInfraEnv, runBench } from './bench-env';
import { spawnBenchServer } from './bench-servers';
import { headerOf, isJsonObject, KeepAliveConnection, requestText, type Answer } from './keep-alive-client';
import type { PhaseRecord } from './profile-summary';
import { postSoap, skeletonProductXml, uniqueWord, type Endpoints } from '../e2e/skeleton.scenario';
import { serviceRuntime, stopApp } from '../e2e/processes';
import { DEMO_SOAP_USER, startShop } from '../services/shop';

const smoke = Boolean(process.env['BENCH_SMOKE']);
const seconds = Number(process.env['BENCH_SECONDS'] ?? 15);
const list = (name: string, fallback: string) => (process.env[name] ?? fallback).split(',').filter(Boolean).map(Number);
const cartVisitors = list('BENCH_VISITORS', '10,50');
const checkoutVisitors = list('BENCH_CHECKOUT_VISITORS', smoke ? '1' : '1,8');
const adds = Number(process.env['BENCH_ADDS'] ?? 5);
const productCount = Number(process.env['BENCH_FLOW_PRODUCTS'] ?? (smoke ? 3 : 20));
const flows = (process.env['BENCH_FLOWS'] ?? 'cart,checkout').split(',');
/**
 * BENCH_PROFILE=<dir>: each separate process's CPU profile (node --cpu-prof, the whole run) into that folder, and
 * phases.json beside them: every row's window (its settling included), selections or checkouts, each process's CPU.
 */
const profileDir = process.env['BENCH_PROFILE'];
const record: PhaseRecord = { pids: {}, phases: [] };
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
// Every visitor is a new session from 127.0.0.1: the limit of decision 134 stays on, out of reach.
process.env['SESSION_NEW_PER_ADDRESS'] ??= '1000000';
// The order service completes a paid attempt after the webhook's grace (decision 60): a checkout row's counts
// and CPU are read once that is done too.
const settleMs = (flow: Flow) => (flow === 'checkout' ? Number(process.env['WEBHOOK_COMPLETION_GRACE_MS'] ?? 3000) + 2000 : 1000);

type Flow = 'cart' | 'checkout';

interface Running {
  endpoints: Endpoints;
  engines: string;
  /** Where the payment pages are served (the redirect's path is asked there). */
  pages: string;
  /** Each process whose CPU and /metrics a row reads: name → pid and URL (the all-in-one is one). */
  processes: Array<{ name: string; pid: number; url: string }>;
  /** The engines' server processes on this machine (separate processes only), name → pid; their children count too. */
  engines_?: Record<string, number>;
  /** The run's Kafka namespace: its topics' offsets count the messages produced. */
  kafka?: { brokers: string; namespace: string };
  stop(): Promise<void>;
}

/**
 * A row's latencies of one request kind, ms, in a typed array grown by doubling (no boxed number a request), read
 * once sorted.
 */
class Latencies {
  private values = new Float64Array(4096);
  count = 0;
  add(ms: number): void {
    if (this.count === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.count++] = ms;
  }
  sorted(): Float64Array {
    return this.values.slice(0, this.count).sort();
  }
}

/**
 * A visitor's own keep-alive connections (tools/bench/keep-alive-client.ts, decision 195): to the shop's API and
 * to the payment pages (the payment service's origin on separate processes), each request's text built once where
 * it repeats. Only the answers the flow reads are parsed: the new selection's token, the payment start's redirect
 * and the order of the payment's result; every other API answer is checked for its status and a JSON object's
 * envelope.
 */
class Visitor {
  private readonly api: KeepAliveConnection;
  private readonly pages: KeepAliveConnection;
  private readonly base: string;
  private readonly newSelection: string;

  constructor(running: Running) {
    const api = new URL(running.endpoints.checkout);
    this.api = KeepAliveConnection.to(api.origin);
    this.pages = KeepAliveConnection.to(running.pages);
    this.base = api.pathname;
    this.newSelection = requestText('GET', `${this.base}/selection`, this.api.host);
  }

  /** `GET selection` without a token: a new selection's token. */
  async start(send: Timed): Promise<{ add(item: string): string; read: string; token: string }> {
    const answer = await send('GET selection (new)', '2xx', this.api, this.newSelection);
    const token: unknown = (JSON.parse(answer.body.toString()) as { token?: unknown }).token;
    if (typeof token !== 'string') throw new Error(`GET selection answered no token: ${answer.body.toString().slice(0, 300)}`);
    const headers = { 'api-token': token };
    return {
      add: (item) => requestText('POST', `${this.base}/items/${item}`, this.api.host, headers),
      read: requestText('GET', `${this.base}/selection`, this.api.host, headers),
      token,
    };
  }

  /** A JSON request to the API and its answer parsed (the payment's start and result). */
  async json(send: Timed, kind: string, path: string, token: string, body: unknown): Promise<Record<string, any>> {
    const text = JSON.stringify(body);
    const headers = { 'api-token': token, 'content-type': 'application/json' };
    const answer = await send(kind, '2xx', this.api, requestText('POST', `${this.base}${path}`, this.api.host, headers, text));
    return JSON.parse(answer.body.toString()) as Record<string, any>;
  }

  /** The test provider's page: a form's POST, its 303's location. */
  async approve(send: Timed, pageUrl: string): Promise<string | undefined> {
    const form = new URLSearchParams({ decision: 'approve' }).toString();
    const headers = { 'content-type': 'application/x-www-form-urlencoded' };
    const answer = await send(
      'payment page: Approve',
      303,
      this.pages,
      requestText('POST', `${new URL(pageUrl).pathname}/decision`, this.pages.host, headers, form),
    );
    return headerOf(answer, 'location');
  }

  get connection(): KeepAliveConnection {
    return this.api;
  }

  close(): void {
    this.api.close();
    this.pages.close();
  }
}

/** One timed request of a kind: its answer's status checked (any 2xx with a JSON object, or exactly 303). */
type Timed = (kind: string, expected: '2xx' | 303, connection: KeepAliveConnection, request: string) => Promise<Answer>;

const ADDRESS = {
  email: 'bench@example.com',
  firstName: 'B',
  lastName: 'Ench',
  address1: 'Gatan 1',
  city: 'Stockholm',
  zipCode: '11451',
  country: 'SE',
};

/** A timed request's sender: each answer's latency goes to `latencies` under its kind once its status is checked. */
function timedInto(latencies: Map<string, Latencies>): Timed {
  return async (kind, expected, connection, request) => {
    const t0 = performance.now();
    const answer = await connection.send(request);
    const ms = performance.now() - t0;
    if (expected === 303 ? answer.status !== 303 : answer.status < 200 || answer.status > 299 || !isJsonObject(answer.body))
      throw new Error(`${kind} answered ${answer.status}: ${answer.body.toString('utf8', 0, 300)}`);
    let kept = latencies.get(kind);
    if (!kept) latencies.set(kind, (kept = new Latencies()));
    kept.add(ms);
    return answer;
  };
}

/** One visitor's selection from start to end, on its own connections. */
async function visit(visitor: Visitor, items: string[], flow: Flow, send: Timed): Promise<void> {
  const selection = await visitor.start(send);
  for (let i = 0; i < adds; i++) {
    const item = items[Math.floor(Math.random() * items.length)]!;
    await send('POST items/{item}', '2xx', visitor.connection, selection.add(item));
    await send('GET selection', '2xx', visitor.connection, selection.read);
  }
  if (flow === 'cart') return;
  const started = await visitor.json(send, 'POST payment', '/payment', selection.token, {
    paymentReturnPage: 'https://storefront.bench/thanks',
    paymentFailedPage: 'https://storefront.bench/failed',
    termsAndConditions: true,
    address: ADDRESS,
  });
  if (started['action'] !== 'redirect') throw new Error(`POST payment answered ${JSON.stringify(started).slice(0, 300)}`);
  const location = await visitor.approve(send, started['url'] as string);
  if (location === undefined) throw new Error('the payment page answered without a location');
  const paymentMethodFields = Object.fromEntries(new URL(location).searchParams);
  const result = await visitor.json(send, 'POST payment-result', '/payment-result', selection.token, { paymentMethodFields });
  if (!result['order']) throw new Error(`payment-result answered ${JSON.stringify(result).slice(0, 300)}`);
}

/** A request of the bench's own (seeding, not timed): its answer's JSON. */
async function call(url: string, body: unknown): Promise<Record<string, any>> {
  const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await answer.text();
  if (!answer.ok) throw new Error(`${url} answered ${answer.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, any>;
}

/** The products the visitors add: in stock for every add of the run, each with its price (an unpriced one is hidden). */
async function seedItems(endpoints: Endpoints): Promise<string[]> {
  const word = uniqueWord();
  const ids = Array.from({ length: productCount }, (_, i) => `flow-${word}-${i}`);
  const prices = ids.map((id) => `<product><id>${id}</id><price>199.00</price></product>`).join('');
  const products = ids.map((id) => skeletonProductXml(id, `Flow ${word} ${id}`, 10_000_000).replace(/<\/?products>/g, '')).join('');
  for (const [operation, xml] of [
    ['pricelists_Update', `<pricelists><pricelist><id>1</id><currency>SEK</currency><items>${prices}</items></pricelist></pricelists>`],
    ['products_Update', `<products>${products}</products>`],
  ] as const) {
    const soap = await postSoap(endpoints, operation, xml);
    if (soap.status !== 200) throw new Error(`SOAP ${operation} answered ${soap.status}: ${soap.text.slice(0, 300)}`);
  }
  const deadline = Date.now() + 120_000;
  for (;;) {
    const found = await call(`${endpoints.checkout}/products`, { search: word, limit: 100 });
    const items = ((found['products'] ?? []) as Array<{ items: Array<{ item: string }> }>).map((p) => p.items[0]!.item);
    if (items.length === productCount) return items;
    if (Date.now() > deadline) throw new Error(`${items.length} of ${productCount} products listed within 120 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** What a row asked of each process, from its /metrics: HTTP requests by route, SQL statements, Redis commands. */
interface Counts {
  requests: Map<string, number>;
  statements: number;
  /** Statements outside any request or event (`context="none"`): relays' polls, pruners. */
  unasked: number;
  redis: number;
  /** The process's Kafka clients' requests (`kafka_requests_total`), by API. */
  kafka: Map<string, number>;
  /** The waits' histograms (issue 28 part 3), by `<metric>{<labels but le>}`: count, sum (s) and cumulative buckets. */
  waits: Map<string, Histogram>;
}

interface Histogram {
  count: number;
  sum: number;
  buckets: Array<[le: number, n: number]>;
}

/** Where a request waits (decision 139): a pooled connection, the event loop, Redis, and each internal route's time. */
const WAITS =
  /^(db_pool_acquire_seconds|nodejs_eventloop_delay_seconds|redis_command_seconds|http_request_duration_seconds|checkout_wait_seconds)_(bucket|sum|count)(?:\{([^}\n]*)\})? (\S+)$/gm;

function waitsOf(text: string): Map<string, Histogram> {
  const waits = new Map<string, Histogram>();
  for (const [, metric, part, labels, value] of text.matchAll(WAITS)) {
    const le = /(?:^|,)le="([^"]*)"/.exec(labels ?? '')?.[1];
    const rest = (labels ?? '')
      .split(',')
      .filter((l) => l && !/^(le|service|status|method)=/.test(l))
      .join(',');
    if (metric === 'http_request_duration_seconds' && !rest.includes('/internal/')) continue;
    const key = `${metric}{${rest}}`;
    let h = waits.get(key);
    if (!h) waits.set(key, (h = { count: 0, sum: 0, buckets: [] }));
    if (part === 'sum') h.sum += Number(value);
    else if (part === 'count') h.count += Number(value);
    else if (le !== '+Inf') {
      const at = h.buckets.find(([b]) => b === Number(le));
      if (at) at[1] += Number(value);
      else h.buckets.push([Number(le), Number(value)]);
    }
  }
  return waits;
}

/** A histogram's row (after − before): samples, mean ms and the p99's bucket bound in ms ("> last" past the last). */
function waitLine(before: Histogram | undefined, after: Histogram): string | undefined {
  const count = after.count - (before?.count ?? 0);
  if (count <= 0) return undefined;
  const mean = ((after.sum - (before?.sum ?? 0)) / count) * 1000;
  const within = after.buckets
    .map(([le, n]) => [le, n - (before?.buckets.find(([b]) => b === le)?.[1] ?? 0)] as const)
    .sort(([a], [b]) => a - b);
  const p99 = within.find(([, n]) => n >= count * 0.99)?.[0];
  return `n ${count} mean ${fixed(mean, 2)} ms p99 ${p99 === undefined ? `> ${(within.at(-1)?.[0] ?? 0) * 1000}` : `≤ ${p99 * 1000}`} ms`;
}

async function countsOf(url: string): Promise<Counts> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const requests = new Map<string, number>();
  for (const [, labels, value] of text.matchAll(/^http_request_duration_seconds_count\{([^}]*)\} (\d+)$/gm)) {
    const route = /route="([^"]*)"/.exec(labels!)?.[1] ?? '';
    if (/^\/(readyz|healthz|livez|metrics)$/.test(route)) continue;
    const key = `${/method="([^"]*)"/.exec(labels!)?.[1]} ${route}`;
    requests.set(key, (requests.get(key) ?? 0) + Number(value));
  }
  const sum = (pattern: RegExp) => [...text.matchAll(pattern)].reduce((total, [, v]) => total + Number(v), 0);
  return {
    requests,
    // A request's or an event's (its handling has a request id): the work asked for, not the relays' polls.
    statements: sum(/^db_statements_total\{context="request"\} (\d+)$/gm),
    // The process's own (relays' polls, pruners): counted at rest only, in its idle line.
    unasked: sum(/^db_statements_total\{context="none"\} (\d+)$/gm),
    redis: sum(/^redis_command_seconds_count\{[^}]*\} (\d+)$/gm),
    kafka: new Map([...text.matchAll(/^kafka_requests_total\{api="([^"]*)"\} (\d+)$/gm)].map(([, api, n]) => [api!, Number(n)])),
    waits: waitsOf(text),
  };
}

/** Messages on each of the run's topics so far (the sum of its partitions' end offsets), by the topic's name after the namespace. */
async function kafkaMessages(kafka: Running['kafka']): Promise<Map<string, number>> {
  if (!kafka) return new Map();
  const { Kafka, logLevel } = await import('kafkajs');
  const admin = new Kafka({ clientId: 'bench-flow', brokers: kafka.brokers.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(`${kafka.namespace}.`));
    const counts = new Map<string, number>();
    for (const topic of topics)
      counts.set(
        topic.slice(kafka.namespace.length + 1),
        (await admin.fetchTopicOffsets(topic)).reduce((sum, p) => sum + Number(p.high), 0),
      );
    return counts;
  } finally {
    await admin.disconnect();
  }
}

/**
 * The visitors' own CPU (this process's, all its threads, over the row's visitors' loop alone: not its snapshots'
 * reads of /metrics and Kafka's offsets, and no idle rate taken off, so nothing else of the bench mixes in).
 */
const LOAD_GENERATOR = 'load generator';

/**
 * Everything a row reads, now: each process's CPU ms (a process tree: the all-in-one under tsx, Postgres and its
 * backends), and the work counted so far under `<what> <process>[ <route>]`: SQL statements, Redis commands,
 * internal HTTP calls, Kafka messages.
 */
async function snapshot(
  running: Running,
): Promise<{ at: number; cpu: Map<string, number>; work: Map<string, number>; waits: Map<string, Map<string, Histogram>> }> {
  const counts = await Promise.all(running.processes.map((p) => countsOf(p.url)));
  const work = new Map<string, number>([...(await kafkaMessages(running.kafka))].map(([topic, n]) => [`kafka ${topic}`, n]));
  running.processes.forEach((p, i) => {
    const { statements, unasked, redis, requests, kafka } = counts[i]!;
    work.set(`statements ${p.name}`, statements);
    work.set(`unasked ${p.name}`, unasked);
    work.set(`redis ${p.name}`, redis);
    // Every service's clients together, by API (like every count, less the idle rate: what the row's work added).
    for (const [api, n] of kafka) work.set(`kafka-requests ${api}`, (work.get(`kafka-requests ${api}`) ?? 0) + n);
    // The edge's requests are the visitors', and so are the payment pages' (the provider's, served by the payment
    // service); every other request a process answered is an internal call.
    if (p.name === 'checkout-api' || p.name === 'all-in-one') return;
    for (const [route, n] of requests) if (!route.includes(' /payment/')) work.set(`call ${p.name} ${route}`, n);
  });
  const cpu = new Map([
    ...running.processes.map((p) => [p.name, cpuMsOfTree(p.pid)] as const),
    ...Object.entries(running.engines_ ?? {}).map(([name, pid]) => [name, cpuMsOfTree(pid)] as const),
  ]);
  return { at: Date.now(), cpu, work, waits: new Map(running.processes.map((p, i) => [p.name, counts[i]!.waits])) };
}
type Snapshot = Awaited<ReturnType<typeof snapshot>>;

/** What happened between two snapshots, a ms: the rate of each figure. */
const ratesBetween = (before: Snapshot, after: Snapshot) => ({
  cpu: new Map([...after.cpu].map(([k, v]) => [k, (v - (before.cpu.get(k) ?? 0)) / (after.at - before.at)])),
  work: new Map([...after.work].map(([k, v]) => [k, (v - (before.work.get(k) ?? 0)) / (after.at - before.at)])),
});
type Rates = ReturnType<typeof ratesBetween>;

const percentile = (sorted: Float64Array, p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

interface Row {
  flow: Flow;
  visitors: number;
  perSecond: number;
  selections: number;
  /** Selections given up at an error answer (503s of a loaded machine's deadlines, decision 132). */
  failed: number;
  /** Of the load generator's CPU ms a selection or checkout, its system time: its sockets' system calls, TCP on loopback. */
  loadKernel: number;
  kinds: Array<{ kind: string; count: number; perSecond: number; p50: number; p99: number }>;
  /** Per selection (cart flow) or per checkout, idle taken off: CPU ms by process, and the work counted by key. */
  cpu: Map<string, number>;
  work: Map<string, number>;
  /** Each process's waits over the row: `<process> <metric>{labels}` → its line. */
  waits: string[];
}

/**
 * What the processes do unasked (polls, relays, heartbeats, timers), a ms, over a few quiet seconds: taken off every
 * row's figures, so what is left is the visitors'.
 */
async function idleRates(running: Running): Promise<Rates> {
  await new Promise((r) => setTimeout(r, 2000));
  const before = await snapshot(running);
  await new Promise((r) => setTimeout(r, smoke ? 1000 : 5000));
  return ratesBetween(before, await snapshot(running));
}

async function measure(running: Running, items: string[], flow: Flow, visitors: number, idle: Rates): Promise<Row> {
  const latencies = new Map<string, Latencies>();
  const send = timedInto(latencies);
  const startUs = monotonicUs();
  const before = await snapshot(running);
  const deadline = Date.now() + seconds * 1000;
  let selections = 0;
  // A selection that meets an error answer is given up and counted; a row where more than one in ten did fails.
  const failures: string[] = [];
  // The visitors share the two cores with what they measure: their own CPU is a row's figure too.
  const loadFrom = process.cpuUsage();
  await Promise.all(
    Array.from({ length: visitors }, async () => {
      const visitor = new Visitor(running);
      while (Date.now() < deadline) {
        try {
          await visit(visitor, items, flow, send);
          selections++;
        } catch (error) {
          failures.push(error instanceof Error ? error.message : String(error));
        }
      }
      visitor.close();
    }),
  );
  const load = process.cpuUsage(loadFrom);
  if (failures.length > selections / 10)
    throw new Error(`${flow}, ${visitors} visitors: ${failures.length} selections failed, ${selections} done; the first: ${failures[0]}`);
  const elapsed = (Date.now() - before.at) / 1000;
  await new Promise((r) => setTimeout(r, settleMs(flow)));
  const after = await snapshot(running);
  record.phases.push({
    what: `${running.engines}: ${flow}, ${visitors} visitors`,
    connections: visitors,
    startUs,
    endUs: monotonicUs(),
    requests: selections,
    unit: flow === 'checkout' ? 'checkout' : 'selection',
    cpuMs: Object.fromEntries(running.processes.map((p) => [p.name, after.cpu.get(p.name)! - before.cpu.get(p.name)!])),
  });
  const span = after.at - before.at;
  const spent = ratesBetween(before, after);
  const per = (rates: Map<string, number>, idleRates: Map<string, number>) =>
    new Map([...rates].map(([k, rate]) => [k, ((rate - (idleRates.get(k) ?? 0)) * span) / selections]));
  const kinds = [...latencies].map(([kind, latency]) => {
    const ms = latency.sorted();
    return { kind, count: ms.length, perSecond: ms.length / elapsed, p50: percentile(ms, 50), p99: percentile(ms, 99) };
  });
  const requests = kinds.reduce((sum, k) => sum + k.count, 0);
  return {
    flow,
    visitors,
    perSecond: requests / elapsed,
    selections,
    failed: failures.length,
    loadKernel: load.system / 1000 / selections,
    kinds,
    cpu: new Map([...per(spent.cpu, idle.cpu), [LOAD_GENERATOR, (load.user + load.system) / 1000 / selections]]),
    work: per(spent.work, idle.work),
    waits: [...after.waits].flatMap(([name, waits]) =>
      [...waits].flatMap(([key, h]) => {
        const line = waitLine(before.waits.get(name)?.get(key), h);
        return line ? [`${name} ${key}: ${line}`] : [];
      }),
    ),
  };
}

async function embedded(): Promise<Running> {
  const server = await spawnBenchServer('embedded');
  return {
    endpoints: {
      checkout: `${server.url}/api/checkout`,
      soap: `${server.url}/ams/system/service/module/soap/api`,
      soapUser: DEMO_SOAP_USER,
    },
    engines: `all-in-one: ${server.engines ?? 'embedded'}`,
    pages: server.url,
    // tsx's process and the server's node under it.
    processes: [{ name: 'all-in-one', pid: server.pid, url: server.url }],
    stop: server.stop,
  };
}

/** The Postgres server (its backends are its children), Redis and Kafka of tools/infra, when they run on this machine. */
async function enginePids(infra: Record<string, string>): Promise<Record<string, number>> {
  const pids: Record<string, number> = {};
  const db = await createDbEngine(infra['DATABASE_URL']!, { logger: createLogger('bench', 'silent') });
  try {
    const backend = (await db.knex.raw('select pg_backend_pid() as pid')) as { rows: Array<{ pid: number }> };
    const stat = readFileSync(`/proc/${backend.rows[0]!.pid}/stat`, 'utf8');
    pids['postgres'] = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    // not on this machine
  } finally {
    await db.close();
  }
  const redis = new Redis(infra['REDIS_URL']!, { lazyConnect: true });
  try {
    await redis.connect();
    const pid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1]);
    if (readFileSync(`/proc/${pid}/stat`, 'utf8')) pids['redis'] = pid;
  } catch {
    // not on this machine
  } finally {
    redis.disconnect();
  }
  try {
    const pid = Number(readFileSync(`${process.env['INFRA_HOME'] ?? '/var/tmp/commerce-infra'}/kafka/kafka.pid`, 'utf8').trim());
    if (readFileSync(`/proc/${pid}/stat`, 'utf8')) pids['kafka'] = pid;
  } catch {
    // not tools/infra's
  }
  return pids;
}

async function separateProcesses(): Promise<Running> {
  const infra = realInfraEnv();
  // The shop's own schemas and Kafka namespace (`<schema>_<name>`, `<name>.`), deleted when the run ends.
  const name = rememberName(`flow${process.pid}${Date.now().toString(36)}`);
  const shop = await startShop({
    engines: { DATABASE_URL: infra['DATABASE_URL']!, REDIS_URL: infra['REDIS_URL']!, KAFKA_BROKERS: infra['KAFKA_BROKERS']! },
    name,
    per: Object.fromEntries(
      ['catalog', 'cart', 'backoffice-soap', 'payment', 'account', 'order', 'checkout-api'].map((app) => [
        app,
        {
          ...(infra['LOG_LEVEL'] ? { LOG_LEVEL: infra['LOG_LEVEL'] } : {}),
          ...(profileDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` } : {}),
        },
      ]),
    ),
  });
  return {
    endpoints: shop.endpoints,
    engines: `separate processes (${serviceRuntime()}, tools/services): Postgres, Redis sessions, Kafka, embedded search`,
    pages: shop.payment.url,
    processes: shop.all.map((p) => ({ name: p.name, pid: p.child.pid!, url: p.url })),
    engines_: await enginePids(infra),
    kafka: { brokers: infra['KAFKA_BROKERS']!, namespace: name },
    stop: async () => {
      await Promise.all(shop.all.map(stopApp));
      await cleanUpNamed({ postgresUrl: infra['DATABASE_URL']! }, [name]);
    },
  };
}

/** Bare Koa's requests/s with as many visitors, each sending one request after another on the visitors' client. */
async function bareKoa(visitorCounts: number[]): Promise<Map<number, number>> {
  const server = await spawnBenchServer('bare');
  const rates = new Map<number, number>();
  try {
    for (const visitors of [...new Set(visitorCounts)]) {
      let answered = 0;
      const from = Date.now();
      const deadline = from + seconds * 1000;
      await Promise.all(
        Array.from({ length: visitors }, async () => {
          const connection = KeepAliveConnection.to(server.url);
          const get = requestText('GET', '/', connection.host);
          while (Date.now() < deadline) {
            const answer = await connection.send(get);
            if (answer.status !== 200) throw new Error(`bare Koa answered ${answer.status}`);
            answered++;
          }
          connection.close();
        }),
      );
      rates.set(visitors, answered / ((Date.now() - from) / 1000));
    }
  } finally {
    await server.stop();
  }
  return rates;
}

const fixed = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '—');
const listed = (entries: Iterable<[string, number]>, digits = 1) =>
  [...entries]
    .filter(([, n]) => !Number.isFinite(n) || Math.abs(n) >= 0.005)
    .map(([name, n]) => `${name} ${fixed(n, digits)}`)
    .join(', ') || '—';

/** The work of a row under a prefix of its keys (`statements `, `call `…), in all and by the rest of the key. */
function workOf(row: Row, prefix: string): string {
  const entries = [...row.work].filter(([k]) => k.startsWith(prefix)).map(([k, n]) => [k.slice(prefix.length), n] as [string, number]);
  return `${fixed(
    entries.reduce((sum, [, n]) => sum + n, 0),
    2,
  )} (${listed(entries, 2)})`;
}

/**
 * What the processes spend unasked (the idle rates taken off every row), a second: still taken from the two cores,
 * so from the checkout rate. The Kafka requests are the consumers' idle polls and heartbeats; the statements, the
 * relays' polls and the pruners'.
 */
function idleLine(engines: string, idle: Rates): string {
  const perSecond = (entries: Iterable<[string, number]>) => [...entries].map(([k, n]) => [k, n * 1000] as [string, number]);
  const cpu = perSecond([...idle.cpu].filter(([name]) => name !== LOAD_GENERATOR));
  const prefixed = (prefix: string) =>
    perSecond([...idle.work].filter(([k]) => k.startsWith(prefix)).map(([k, n]) => [k.slice(prefix.length), n] as [string, number]));
  const total = (entries: Array<[string, number]>) => fixed(entries.reduce((sum, [, n]) => sum + n, 0));
  const [kafka, unasked] = [prefixed('kafka-requests '), prefixed('unasked ')];
  return [
    `${engines}, at rest (taken off every row), a second:`,
    `  idle CPU ms ${total(cpu)} (${listed(cpu)})`,
    `  idle Kafka requests ${total(kafka)} (${listed(kafka)}); unasked SQL statements ${total(unasked)} (${listed(unasked)})`,
  ].join('\n');
}

function report(engines: string, rows: Row[], bare: Map<number, number>): { table: string[]; details: string[] } {
  const table: string[] = [];
  const details: string[] = [];
  for (const row of rows) {
    const unit = row.flow === 'cart' ? 'a selection' : 'a checkout';
    const services = [...row.cpu].filter(([name]) => !['postgres', 'redis', 'kafka', LOAD_GENERATOR].includes(name));
    const servicesMs = services.reduce((sum, [, ms]) => sum + ms, 0);
    table.push(
      `| ${engines} | ${row.flow} | ${row.visitors} | ${fixed(row.perSecond, 0)} | ${fixed(row.perSecond / bare.get(row.visitors)!, 3)} | ${row.flow === 'checkout' ? `${fixed(row.selections / seconds)} checkouts/s` : `${row.selections} selections`}${row.failed ? ` (${row.failed} failed)` : ''} | ` +
        row.kinds.map((k) => `${k.kind} ${fixed(k.perSecond, 0)}/s ${fixed(k.p50, 0)}/${fixed(k.p99, 0)}`).join('; ') +
        ' |',
    );
    details.push(
      `${engines}, ${row.flow}, ${row.visitors} visitors, ${unit}:`,
      `  CPU ms: services ${fixed(servicesMs)} (${listed(services)}); engines ${listed([...row.cpu].filter(([name]) => name !== LOAD_GENERATOR && !services.some(([s]) => s === name)))}; load generator ${fixed(row.cpu.get(LOAD_GENERATOR) ?? 0)} (in the kernel ${fixed(row.loadKernel)})`,
      `  internal HTTP calls ${workOf(row, 'call ')}`,
      `  SQL statements (of requests and events) ${workOf(row, 'statements ')}`,
      `  Redis commands ${workOf(row, 'redis ')}`,
      `  Kafka messages ${workOf(row, 'kafka ')}`,
      `  Kafka requests (the services' clients) ${workOf(row, 'kafka-requests ')}`,
      `  waits (db_pool_acquire, event-loop delay, Redis, internal routes' time):`,
      ...row.waits.map((line) => `    ${line}`),
    );
  }
  return { table, details };
}

async function main() {
  const setups = benchSetups(embedded, separateProcesses);
  const rowsOf = (flow: Flow) =>
    flows.includes(flow) ? (flow === 'cart' ? cartVisitors : checkoutVisitors).map((v) => [flow, v] as const) : [];
  const plan = [...rowsOf('cart'), ...rowsOf('checkout')];
  const bare = await bareKoa(plan.map(([, v]) => v));
  const lines = [
    `${machineLine()}; ${seconds} s a row; K = ${adds} adds a selection, ${productCount} items`,
    '',
    '| engines | flow | visitors | req/s | ÷ bare Koa | selections | per request kind: req/s p50/p99 ms |',
    '|---|---|---|---|---|---|---|',
    ...[...bare].map(([v, rps]) => `| bare Koa handler | — | ${v} | ${fixed(rps, 0)} | 1.000 | — | — |`),
  ];
  const details: string[] = [];
  for (const setup of setups) {
    const running = await setup();
    for (const p of running.processes) record.pids[p.name] = p.pid;
    try {
      const items = await seedItems(running.endpoints);
      const idle = await idleRates(running);
      const rows: Row[] = [];
      for (const [flow, visitors] of plan) rows.push(await measure(running, items, flow, visitors, idle));
      const { table, details: more } = report(running.engines, rows, bare);
      lines.push(...table);
      details.push(idleLine(running.engines, idle), ...more);
    } finally {
      await running.stop();
    }
  }
  console.log([...lines, '', ...details].join('\n'));
  if (profileDir) {
    mkdirSync(profileDir, { recursive: true });
    writeFileSync(join(profileDir, 'phases.json'), JSON.stringify(record, null, 2));
    console.log(`\nCPU per selection or checkout per process: npx tsx tools/bench/profile-summary.ts ${profileDir}`);
  }
}

runBench(main);
