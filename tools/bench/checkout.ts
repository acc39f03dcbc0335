// The checkout benchmark (issue 10): full checkouts per second — add an item on a new token, POST payment
// (the stock held, the attempt started), the hosted test page's Approve, POST payment-result (the order
// placed, the hold committed, the selection closed) — with N visitors checking out in a loop at once.
// On the embedded all-in-one, and, when DATABASE_URL, REDIS_URL and KAFKA_BROKERS are set, on real
// Postgres + Redis + Kafka with every service in its own process.
//
//   npm run bench:checkout
//   BENCH_SECONDS=30 BENCH_VISITORS=1,8,32 BENCH_ONLY=separate npm run bench:checkout
//   WEBHOOK_COMPLETION_GRACE_MS=0 BENCH_ONLY=separate npm run bench:checkout   the order service racing the edge, to compare
//   BENCH_ONLY=separate BENCH_PROFILE=/tmp/prof npm run bench:checkout            CPU profiles of the services (profile-summary.ts)
import { benchSetups, cpuMsOf, machineLine, realInfraEnv, runBench } from './bench-env';
import { spawnBenchServer } from './bench-servers';
import {
  checkoutCall,
  postSoap,
  searchUntilFound,
  skeletonPricelistXml,
  skeletonProductXml,
  uniqueWord,
  type Endpoints,
} from '../e2e/skeleton.scenario';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PhaseRecord } from './profile-summary';
import { startShopProcesses, serviceRuntime, stopApp, type ServiceProcess } from '../e2e/processes';

const seconds = Number(process.env['BENCH_SECONDS'] ?? 15);
// Every visitor of the bench is a new session from 127.0.0.1: more a minute than one address may store by default
// (decision 134). The limit stays on, out of reach; the bench's edges (embedded and separate) inherit it.
process.env['SESSION_NEW_PER_ADDRESS'] ??= '1000000';
const visitorCounts = (process.env['BENCH_VISITORS'] ?? '1,8').split(',').map(Number);
// WEBHOOK_COMPLETION_GRACE_MS reaches the order service (the processes inherit the environment): the
// CPU of a row is read once its webhooks' completions are done too, that long and two seconds after.
const settleMs = Number(process.env['WEBHOOK_COMPLETION_GRACE_MS'] ?? 3000) + 2000;
// BENCH_PROFILE=<dir>: every separate service writes a CPU profile there (node --cpu-prof), and phases.json
// the rows' windows (each with its settling) and the processes' pids, for tools/bench/profile-summary.ts.
const profileDir = process.env['BENCH_PROFILE'];
const record: PhaseRecord = { pids: {}, phases: [] };
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
const soapUser = { username: 'demo', password: 'demo-secret', namespace: 'urn:commerce-service:backoffice' };

interface Running {
  endpoints: Endpoints;
  engines: string;
  /** The origin the payment pages are served at (the test provider's URLs name PAYMENT_PUBLIC_URL). */
  pages: string;
  /** The service processes whose CPU time a row reports (separate processes only). */
  processes?: ServiceProcess[];
  pids?: Record<string, number>;
  stop(): Promise<void>;
}

const cpuOf = (processes: ServiceProcess[]) => new Map(processes.map((p) => [p.name, cpuMsOf(p.child.pid) ?? NaN]));

/** HTTP requests each process has answered so far (its /metrics), health checks left out: the work a checkout asks of each service. */
async function requestsOf(processes: ServiceProcess[]): Promise<Map<string, number>> {
  const counts = await Promise.all(
    processes.map(async (p) => {
      const text = await (await fetch(`${p.url}/metrics`)).text();
      let total = 0;
      for (const [, labels, value] of text.matchAll(/^http_request_duration_seconds_count\{([^}]*)\} (\d+)$/gm))
        if (!/route="\/(readyz|healthz|livez)"/.test(labels!)) total += Number(value);
      return [p.name, total] as const;
    }),
  );
  return new Map(counts);
}

async function embedded(): Promise<Running> {
  const server = await spawnBenchServer('embedded');
  return {
    endpoints: { checkout: `${server.url}/api/checkout`, soap: `${server.url}/ams/system/service/module/soap/api`, soapUser },
    engines: server.engines ?? 'embedded',
    pages: server.url,
    stop: server.stop,
  };
}

async function separateProcesses(): Promise<Running> {
  const infra = {
    ...realInfraEnv(),
    PAYMENT_PUBLIC_URL: 'http://bench.payment',
    ...(profileDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` } : {}),
  };
  const { edge, soap, payment, all } = await startShopProcesses(infra, { catalog: { MEILI_URL: 'embedded' } });
  return {
    endpoints: { checkout: `${edge.url}/api/checkout`, soap: `${soap.url}/ams/system/service/module/soap/api`, soapUser },
    engines: `separate processes (${serviceRuntime()}): Postgres, Redis sessions, Kafka`,
    pages: payment.url,
    processes: all,
    pids: Object.fromEntries(all.map((s) => [s.name, s.child.pid!])),
    stop: async () => void (await Promise.all(all.map(stopApp))),
  };
}

/** One visitor's whole checkout; throws when any step answers other than a working storefront expects. */
async function checkout(running: Running, item: string): Promise<void> {
  const added = await checkoutCall(running.endpoints, 'POST', `/items/${item}`);
  const token = added.body['token'] as string;
  const started = await checkoutCall(running.endpoints, 'POST', '/payment', {
    token,
    body: {
      paymentReturnPage: 'https://storefront.bench/thanks',
      paymentFailedPage: 'https://storefront.bench/failed',
      termsAndConditions: true,
      address: {
        email: 'bench@example.com',
        firstName: 'B',
        lastName: 'Ench',
        address1: 'Gatan 1',
        city: 'Stockholm',
        zipCode: '11451',
        country: 'SE',
      },
    },
  });
  if (started.body['action'] !== 'redirect')
    throw new Error(`POST payment answered ${started.status} ${JSON.stringify(started.body).slice(0, 300)}`);
  // The page at the origin this run serves it from (the URL names PAYMENT_PUBLIC_URL, or localhost:<PORT> by default).
  const redirect = new URL(started.body['url'] as string);
  const page = `${running.pages}${redirect.pathname}`;
  const back = await fetch(`${page}/decision`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'decision=approve',
  });
  const location = back.headers.get('location');
  if (back.status !== 303 || !location) throw new Error(`the payment page answered ${back.status}`);
  const paymentMethodFields = Object.fromEntries(new URL(location).searchParams);
  const result = await checkoutCall(running.endpoints, 'POST', '/payment-result', { token, body: { paymentMethodFields } });
  if (result.status !== 200 || !result.body['order'])
    throw new Error(`payment-result answered ${result.status} ${JSON.stringify(result.body).slice(0, 300)}`);
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

async function measure(running: Running) {
  // A product of its own with stock for every checkout of the run.
  const word = uniqueWord();
  for (const [operation, xml] of [
    ['pricelists_Update', skeletonPricelistXml(`bench-${word}`)],
    ['products_Update', skeletonProductXml(`bench-${word}`, `Bench ${word}`).replace('<qty>7</qty>', '<qty>10000000</qty>')],
  ] as const) {
    const soap = await postSoap(running.endpoints, operation, xml);
    if (soap.status !== 200) throw new Error(`SOAP ${operation} answered ${soap.status}: ${soap.text}`);
  }
  const item = (await searchUntilFound(running.endpoints, word)).body['products'][0].items[0].item as string;
  await checkout(running, item); // warm-up, and a check that the flow works
  const rows = [];
  for (const visitors of visitorCounts) {
    const latencies: number[] = [];
    const deadline = Date.now() + seconds * 1000;
    const cpuBefore = cpuOf(running.processes ?? []);
    const requestsBefore = await requestsOf(running.processes ?? []);
    const started = Date.now();
    const cpuFrom = Date.now();
    const startUs = monotonicUs();
    await Promise.all(
      Array.from({ length: visitors }, async () => {
        while (Date.now() < deadline) {
          const t0 = performance.now();
          await checkout(running, item);
          latencies.push(performance.now() - t0);
        }
      }),
    );
    const elapsed = (Date.now() - started) / 1000;
    // The consumers finish what the last checkouts started (the webhook's completion after its grace period).
    if (running.processes) await new Promise((r) => setTimeout(r, settleMs));
    const cpuAfter = cpuOf(running.processes ?? []);
    record.phases.push({
      what: `checkout, ${visitors} visitors`,
      connections: visitors,
      startUs,
      endUs: monotonicUs(),
      requests: latencies.length,
    });
    const requests = [...(await requestsOf(running.processes ?? []))]
      .map(([name, n]) => ({ name, perCheckout: (n - (requestsBefore.get(name) ?? 0)) / latencies.length }))
      .filter((r) => r.perCheckout > 0);
    const spent = [...cpuAfter].map(([name, ms]) => ({ name, ms: ms - (cpuBefore.get(name) ?? NaN) }));
    const spentOver = Date.now() - cpuFrom;
    latencies.sort((a, b) => a - b);
    rows.push({
      visitors,
      perSecond: latencies.length / elapsed,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      count: latencies.length,
      requests,
      spent,
      spentOver,
    });
  }
  // What the processes burn doing nothing (consumers polling, relays, timers), measured once every row's
  // work is done, is taken off each row's CPU time: what is left is the checkouts'.
  const idleBefore = cpuOf(running.processes ?? []);
  const idleFrom = Date.now();
  if (running.processes) await new Promise((r) => setTimeout(r, 2 * settleMs));
  const idleMs = Date.now() - idleFrom;
  const idlePerMs = new Map([...cpuOf(running.processes ?? [])].map(([name, ms]) => [name, (ms - (idleBefore.get(name) ?? NaN)) / idleMs]));
  return rows.map(({ spent, spentOver, ...row }) => ({
    ...row,
    cpu: spent.map(({ name, ms }) => ({ name, perCheckout: (ms - (idlePerMs.get(name) ?? NaN) * spentOver) / row.count })),
  }));
}

/** `total 40.1: checkout-api 12.0, order 9.3, …`, or — where the processes are not this run's own. */
function cpuCell(cpu: Array<{ name: string; perCheckout: number }>): string {
  if (cpu.length === 0 || cpu.some((c) => Number.isNaN(c.perCheckout))) return '—';
  const total = cpu.reduce((sum, c) => sum + c.perCheckout, 0);
  return `total ${total.toFixed(1)}: ${cpu.map((c) => `${c.name} ${c.perCheckout.toFixed(1)}`).join(', ')}`;
}

function requestsCell(requests: Array<{ name: string; perCheckout: number }>): string {
  return requests.length === 0 ? '—' : requests.map((r) => `${r.name} ${r.perCheckout.toFixed(2)}`).join(', ');
}

async function main() {
  const setups = benchSetups(embedded, separateProcesses);
  const lines = [
    `${machineLine()}; ${seconds} s a row`,
    '',
    '| engines | visitors at once | checkouts/s | p50 ms | p99 ms | checkouts | requests a checkout, by service | service CPU ms a checkout (above idle) |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const setup of setups) {
    const running = await setup();
    Object.assign(record.pids, running.pids ?? {});
    try {
      for (const r of await measure(running))
        lines.push(
          `| ${running.engines} | ${r.visitors} | ${r.perSecond.toFixed(1)} | ${r.p50.toFixed(0)} | ${r.p99.toFixed(0)} | ${r.count} | ${requestsCell(r.requests)} | ${cpuCell(r.cpu)} |`,
        );
    } finally {
      await running.stop();
    }
  }
  console.log(lines.join('\n'));
  if (profileDir) {
    writeFileSync(join(profileDir, 'phases.json'), JSON.stringify(record, null, 2));
    console.log(`\nCPU per checkout per process: npx tsx tools/bench/profile-summary.ts ${profileDir}`);
  }
}

runBench(main);
