// The checkout benchmark (issue 10): full checkouts per second — add an item on a new token, POST payment
// (the stock held, the attempt started), the hosted test page's Approve, POST payment-result (the order
// placed, the hold committed, the selection closed) — with N visitors checking out in a loop at once.
// On the embedded all-in-one, and, when DATABASE_URL, REDIS_URL and KAFKA_BROKERS are set, on real
// Postgres + Redis + Kafka with every service in its own process.
//
//   npm run bench:checkout
//   BENCH_SECONDS=30 BENCH_VISITORS=1,8,32 BENCH_ONLY=separate npm run bench:checkout
import { benchSetups, machineLine, realInfraEnv } from './bench-env';
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
import { startShopProcesses, stopApp } from '../e2e/processes';

const seconds = Number(process.env['BENCH_SECONDS'] ?? 15);
const visitorCounts = (process.env['BENCH_VISITORS'] ?? '1,8').split(',').map(Number);
const soapUser = { username: 'demo', password: 'demo-secret', namespace: 'urn:commerce-service:backoffice' };

interface Running {
  endpoints: Endpoints;
  engines: string;
  /** The origin the payment pages are served at (the test provider's URLs name PAYMENT_PUBLIC_URL). */
  pages: string;
  stop(): Promise<void>;
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
  const infra = { ...realInfraEnv(), PAYMENT_PUBLIC_URL: 'http://bench.payment' };
  const { edge, soap, payment, all } = await startShopProcesses(infra, { catalog: { MEILI_URL: 'embedded' } });
  return {
    endpoints: { checkout: `${edge.url}/api/checkout`, soap: `${soap.url}/ams/system/service/module/soap/api`, soapUser },
    engines: 'separate processes: Postgres, Redis sessions, Kafka',
    pages: payment.url,
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
    const started = Date.now();
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
    latencies.sort((a, b) => a - b);
    rows.push({
      visitors,
      perSecond: latencies.length / elapsed,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      count: latencies.length,
    });
  }
  return rows;
}

async function main() {
  const setups = benchSetups(embedded, separateProcesses);
  const lines = [
    `${machineLine()}; ${seconds} s a row`,
    '',
    '| engines | visitors at once | checkouts/s | p50 ms | p99 ms | checkouts |',
    '|---|---|---|---|---|---|',
  ];
  for (const setup of setups) {
    const running = await setup();
    try {
      for (const r of await measure(running))
        lines.push(
          `| ${running.engines} | ${r.visitors} | ${r.perSecond.toFixed(1)} | ${r.p50.toFixed(0)} | ${r.p99.toFixed(0)} | ${r.count} |`,
        );
    } finally {
      await running.stop();
    }
  }
  console.log(lines.join('\n'));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
