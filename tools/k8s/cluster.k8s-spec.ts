import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import * as soap from 'soap';
import {
  checkoutCall,
  postSoap,
  searchUntilFound,
  skeletonPricelistXml,
  skeletonProductXml,
  uniqueWord,
  type Endpoints,
} from '../e2e/skeleton.scenario';
import { loadFor, Recorder, type Sample } from '../faults/load';

// Issue 27's Kubernetes stage (`tools/k8s/e2e`, a step of .ci/run): the `local` overlay deployed on the single-node
// cluster of tools/k8s/up, driven only through the Services of checkout-api, backoffice-soap and payment (NodePorts
// on the node's primary address; the payment pages are where PAYMENT_PUBLIC_URL sends a browser). A shop day, then
// what a cluster does to the shop: catalog scaled to two replicas, a catalog pod and a cart pod deleted under load,
// checkout-api rolled to a new image under load, the reindex Job beside the live index. Prints a table of what it
// measured (docs/deploy.md keeps the latest). tools/k8s/e2e sets the variables below; without them, it fails.

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run this suite through tools/k8s/e2e`);
  return value;
};
const NAMESPACE = process.env['K8S_NAMESPACE'] ?? 'commerce';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** kubectl in the overlay's namespace; asynchronous, so the loads keep running while it waits. */
const kubectl = async (...args: string[]): Promise<string> =>
  (await promisify(execFile)(env('KUBECTL'), ['-n', NAMESPACE, ...args], { encoding: 'utf8', timeout: 300_000 })).stdout;
/** SQL in the overlay's Postgres pod (the services' schemas), one value a line. */
const psql = async (sql: string): Promise<string[]> =>
  (await kubectl('exec', 'statefulset/postgres', '--', 'psql', '-U', 'commerce', '-d', 'commerce', '-tAc', sql))
    .split('\n')
    .filter((l) => l !== '');

interface PodState {
  name: string;
  ip: string;
  ready: boolean;
  deleting: boolean;
}
const podsOf = async (app: string): Promise<PodState[]> =>
  (JSON.parse(await kubectl('get', 'pods', '-l', `app.kubernetes.io/name=${app}`, '-o', 'json')).items as any[]).map((p) => ({
    name: p.metadata.name,
    ip: p.status.podIP,
    ready: (p.status.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True'),
    deleting: Boolean(p.metadata.deletionTimestamp),
  }));
/** Waits until the app has exactly `count` pods, all Ready and none terminating; the seconds it took. */
async function readyPods(app: string, count: number, timeoutMs = 180_000): Promise<PodState[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const pods = await podsOf(app);
    if (pods.length === count && pods.every((p) => p.ready && !p.deleting)) return pods;
    if (Date.now() > until) throw new Error(`${app}: not ${count} Ready pods after ${timeoutMs} ms: ${JSON.stringify(pods)}`);
    await sleep(500);
  }
}

interface Row {
  step: string;
  seconds: number;
  sent: number;
  failed: number;
  note: string;
}
const rows: Row[] = [];
const failedOf = (samples: Sample[]) => samples.filter((s) => s.status === 0 || s.status >= 500);
/** Requests that were being answered at `at` (sent before, answered after): the ones a stopped pod may take with it. */
const inFlightAt = (samples: Sample[], at: number) => samples.filter((s) => s.at <= at && s.at + s.ms >= at).length;

function printTable(): void {
  // The first rollouts, timed by tools/k8s/e2e from `kubectl apply`: one row each.
  const rollouts = process.env['K8S_ROLLOUTS'];
  const applied = rollouts && existsSync(rollouts) ? readFileSync(rollouts, 'utf8').trim().split('\n') : [];
  const lines = [
    '| step | seconds | requests sent | failed | notes |',
    '| --- | ---: | ---: | ---: | --- |',
    ...applied
      .map((l) => l.split('\t'))
      .sort((a, b) => Number(a[1]) - Number(b[1]))
      .map(([name, seconds]) => `| ${name} rolled out (from apply) | ${seconds} | – | – | |`),
    ...rows.map((r) => `| ${r.step} | ${r.seconds.toFixed(1)} | ${r.sent} | ${r.failed} | ${r.note} |`),
  ];
  const table = lines.join('\n');
  console.log(`Kubernetes stage (${new Date().toISOString()}):\n${table}`);
  const out = process.env['K8S_TABLE'];
  if (out) {
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${table}\n`);
  }
}

describe('the local overlay on a real cluster: a shop day, pod loss, a rolling update, two catalogs, a reindex', () => {
  const endpoints: Endpoints = {
    checkout: env('CHECKOUT_URL'),
    soap: env('SOAP_URL'),
    soapUser: { username: 'demo', password: 'demo-secret', namespace: 'urn:commerce-service:backoffice' },
  };
  const recorder = new Recorder();
  /** A product with stock for every load below, and its item. */
  let word: string;
  let item: string;
  let productId: string;

  afterAll(() => printTable());

  const upsert = async (externalId: string, name: string, qty: number) => {
    const price = await postSoap(endpoints, 'pricelists_Update', skeletonPricelistXml(externalId));
    expect(price.text).toMatch(/>OK</);
    const product = await postSoap(endpoints, 'products_Update', skeletonProductXml(externalId, name, qty));
    expect(product.text).toMatch(/>OK</);
  };

  it('runs a shop day: SOAP products and prices in, searchable, a visitor registers, pays, sees the order, the ERP reads it', async () => {
    const started = Date.now();
    word = uniqueWord();
    await upsert(`ext-${word}`, `Cluster ${word} Jacket`, 100_000);
    const found = await searchUntilFound(endpoints, word, 60_000);
    expect(found.body['productCount']).toBe(1);
    productId = found.body['products'][0].product;
    item = found.body['products'][0].items[0].item;

    const email = `k8s-${word}@example.com`;
    const anonymous = (await checkoutCall(endpoints, 'POST', `/items/${item}`)).body['token'] as string;
    const registered = await checkoutCall(endpoints, 'POST', '/register', {
      token: anonymous,
      body: { email, password: 'correct horse battery' },
    });
    expect(registered.status).toBe(200);
    const token = registered.body['token'] as string;
    const payment = await checkoutCall(endpoints, 'POST', '/payment', {
      token,
      body: {
        paymentReturnPage: 'https://storefront.test/thanks',
        paymentFailedPage: 'https://storefront.test/failed',
        termsAndConditions: true,
        address: { email, firstName: 'K', lastName: 'Eight', address1: 'Gatan 1', city: 'Stockholm', zipCode: '11451', country: 'SE' },
      },
    });
    expect(payment.body).toMatchObject({ token, action: 'redirect' });
    // The payment page at PAYMENT_PUBLIC_URL (the payment Service's NodePort here): Approve, then back to the shop.
    expect(String(payment.body['url']).startsWith(env('PAYMENT_PUBLIC_URL'))).toBe(true);
    const back = await fetch(`${payment.body['url']}/decision`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'decision=approve',
    });
    expect(back.status).toBe(303);
    const paymentMethodFields = Object.fromEntries(new URL(back.headers.get('location')!).searchParams);
    const result = await checkoutCall(endpoints, 'POST', '/payment-result', { token, body: { paymentMethodFields } });
    expect(result.status).toBe(200);
    const order = result.body['order'] as string;
    expect(order).toBeTruthy();
    const history = await checkoutCall(endpoints, 'POST', '/orders', { token, body: { from: 0, size: 10 } });
    expect(history.body['orders']).toEqual([expect.objectContaining({ order, items: [expect.objectContaining({ item })] })]);

    // The ERP's side: the OrderPlaced reaches events_Get over Kafka.
    type Client = soap.Client & Record<string, (args: unknown) => Promise<[any, string]>>;
    const client = (await soap.createClientAsync(`${endpoints.soap}?wsdl`)) as Client;
    client.setEndpoint(endpoints.soap);
    const login = { username: 'demo', password: 'demo-secret' };
    let entries: string[] = [];
    for (const until = Date.now() + 60_000; !entries.includes(order) && Date.now() < until;) {
      await sleep(500);
      const events = (await client['events_GetAsync']!({ login, type: 'order' }))[0]?.events?.event;
      entries = (events === undefined ? [] : Array.isArray(events) ? events : [events]).map((e: any) => String(e.entry));
    }
    expect(entries).toContain(order);
    rows.push({
      step: 'shop day (SOAP in, search, register, pay, history, ERP event)',
      seconds: (Date.now() - started) / 1000,
      sent: 0,
      failed: 0,
      note: `order ${order}`,
    });
  }, 240_000);

  it('scales catalog to two replicas: both serve, search stays consistent, events are applied once', async () => {
    // An event applied twice writes its changes twice: the same (type, key) from the same SOAP request (the
    // envelope's requestId, carried from the request through every event it caused) in the catalog's outbox.
    const outboxOf = async (w: string) => {
      const [rows, twice] = await Promise.all([
        psql(`select count(*) from catalog.outbox where envelope::text like '%${w}%'`),
        psql(
          `select count(*) from (select 1 from catalog.outbox where envelope::text like '%${w}%' ` +
            `group by envelope->>'type', envelope->>'key', envelope->>'requestId' having count(*) > 1) as d`,
        ),
      ]);
      return { rows: Number(rows[0]), twice: Number(twice[0]) };
    };

    const started = Date.now();
    await kubectl('patch', 'hpa', 'catalog', '--type=merge', '-p', '{"spec":{"minReplicas":2}}');
    const pods = await readyPods('catalog', 2);
    const scaledIn = (Date.now() - started) / 1000;

    const words = Array.from({ length: 6 }, () => uniqueWord());
    for (const w of words) await upsert(`ext-${w}`, `Scaled ${w} Jacket`, 5);
    for (const w of words) await searchUntilFound(endpoints, w, 60_000);
    // Both replicas serve the product from the shared database, identically.
    const port = 8082;
    const bodies = await Promise.all(
      pods.map(async (p) => {
        const res = await fetch(`http://${p.ip}:${port}/internal/catalog/products/${productId}`);
        expect(res.status).toBe(200);
        return res.text();
      }),
    );
    expect(bodies[0]).toBe(bodies[1]);
    // Search through the Service: every answer the same, whichever replica and index reader answers.
    const searches = await Promise.all(
      Array.from({ length: 20 }, () => recorder.call('search', `${endpoints.checkout}/products`, jsonPost({ search: words[0] }))),
    );
    expect(searches.map((s) => [s.status, s.body?.['productCount']])).toEqual(searches.map(() => [200, 1]));
    // Each event applied once: every product's changes in the outbox, none twice.
    await sleep(3000);
    const written = await Promise.all(words.map(outboxOf));
    expect(written.map((w) => [w.rows > 0, w.twice])).toEqual(words.map(() => [true, 0]));
    const total = written.reduce((n, w) => n + w.rows, 0);
    rows.push({
      step: 'catalog scaled 1 → 2 (HPA minReplicas)',
      seconds: scaledIn,
      sent: searches.length,
      failed: failedOf(searches).length,
      note: `6 SOAP upserts applied once each (${total} outbox rows, none twice)`,
    });
  }, 300_000);

  it('loses a catalog pod and a cart pod under load: nothing lost beyond in-flight requests, every acknowledged write kept', async () => {
    const workers = 4;
    const tokens: Array<string | undefined> = Array.from({ length: workers });
    const acknowledged: number[] = Array.from({ length: workers }, () => 0);
    const deletedAt: number[] = [];
    const from = Date.now();
    const load = loadFor(40_000, workers, async (w) => {
      const add = await recorder.call('add', `${endpoints.checkout}/items/${item}`, jsonPost({}, tokens[w]));
      if (add.status === 200) {
        tokens[w] = add.body?.['token'];
        const line = (add.body?.['selection']?.items as any[]).find((l) => l.item === item);
        acknowledged[w] = Math.max(acknowledged[w]!, line.quantity);
      }
      await recorder.call('search', `${endpoints.checkout}/products`, jsonPost({ search: word }, tokens[w]));
    });
    await sleep(8000);
    for (const app of ['catalog', 'cart']) {
      const victim = (await podsOf(app))[0]!;
      deletedAt.push(Date.now());
      await kubectl('delete', 'pod', victim.name, '--wait=false');
    }
    const backStarted = Date.now();
    await readyPods('catalog', 2);
    await readyPods('cart', 2);
    const backIn = (Date.now() - backStarted) / 1000;
    await load;
    const samples = recorder.between(from, Date.now());
    const failed = failedOf(samples);
    const inFlight = deletedAt.reduce((n, at) => n + inFlightAt(samples, at), 0);
    expect(failed.length).toBeLessThanOrEqual(inFlight);
    // Every acknowledged add is in the selection the cart keeps.
    for (let w = 0; w < workers; w++) {
      const selection = await checkoutCall(endpoints, 'GET', '/selection', { token: tokens[w] });
      const line = (selection.body['selection'].items as any[]).find((l) => l.item === item);
      expect(line?.quantity).toBe(acknowledged[w]);
    }
    rows.push({
      step: 'catalog pod and cart pod deleted under load',
      seconds: backIn,
      sent: samples.length,
      failed: failed.length,
      note: `both back Ready in the time shown; ${inFlight} in flight at the deletions; ${acknowledged.reduce((a, b) => a + b, 0)} acknowledged adds all kept`,
    });
  }, 300_000);

  it('rolls checkout-api to a new image tag under load with no failed request', async () => {
    const workers = 4;
    // The load's client does what an Ingress controller does with a kept-alive upstream connection the pod closed
    // as the request went out (no byte of an answer): it sends the request again, once, on a new connection. Such
    // resends are counted apart; a request that fails again, or is answered 5xx, is a failed request.
    const sent = new Recorder();
    const resent = new Recorder();
    const search = async () => {
      const first = await sent.call('search', `${endpoints.checkout}/products`, jsonPost({ search: word }));
      if (first.status === 0) await resent.call('search again', `${endpoints.checkout}/products`, jsonPost({ search: word }));
    };
    let rolling = true;
    const load = (async () => {
      while (rolling) await loadFor(2000, workers, search);
    })();
    await sleep(3000);
    const started = Date.now();
    await kubectl('set', 'image', 'deployment/checkout-api', `checkout-api=${env('NEW_IMAGE')}`);
    await kubectl('rollout', 'status', 'deployment/checkout-api', '--timeout=300s');
    const rolledIn = (Date.now() - started) / 1000;
    // Old pods drain after the rollout reports done: keep the load until they are gone.
    await readyPods('checkout-api', (await podsOf('checkout-api')).filter((p) => !p.deleting).length);
    await sleep(3000);
    rolling = false;
    await load;
    const failed = [...sent.samples.filter((x) => x.status >= 500), ...failedOf(resent.samples)];
    const images = (
      await kubectl('get', 'pods', '-l', 'app.kubernetes.io/name=checkout-api', '-o', 'jsonpath={.items[*].spec.containers[0].image}')
    ).split(' ');
    expect(new Set(images)).toEqual(new Set([env('NEW_IMAGE')]));
    expect(failed).toEqual([]);
    rows.push({
      step: 'checkout-api rolled to a new tag under load',
      seconds: rolledIn,
      sent: sent.samples.length,
      failed: failed.length,
      note: `rollout status time; ${resent.samples.length} sent again after a kept-alive connection closed under it`,
    });
  }, 420_000);

  it('runs the reindex Job from the image while the live index keeps serving', async () => {
    const from = Date.now();
    let running = true;
    const load = (async () => {
      while (running) await loadFor(2000, 2, () => recorder.call('search', `${endpoints.checkout}/products`, jsonPost({ search: word })));
    })();
    await kubectl('delete', 'job', 'search-apply', '--ignore-not-found');
    await kubectl('apply', '-k', env('JOBS_OVERLAY'));
    const started = Date.now();
    await kubectl('wait', '--for=condition=complete', 'job/search-apply', '--timeout=300s');
    const ranIn = (Date.now() - started) / 1000;
    running = false;
    await load;
    const samples = recorder.between(from, Date.now());
    expect(failedOf(samples)).toEqual([]);
    expect(samples.filter((s) => s.body?.['productCount'] !== 1)).toEqual([]);
    rows.push({
      step: 'reindex Job (search-apply) beside the live index',
      seconds: ranIn,
      sent: samples.length,
      failed: 0,
      note: 'every search found the product',
    });
  }, 420_000);
});

function jsonPost(body: unknown, token?: string): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { 'API-Token': token } : {}) },
    body: JSON.stringify(body),
  };
}
