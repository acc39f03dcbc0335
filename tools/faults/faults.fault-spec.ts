import { mkdirSync, writeFileSync } from 'node:fs';
import { Client as PgClient } from 'pg';
import { uniqueName } from '@commerce/shared-testing';
import { postSoap, searchUntilFound, skeletonPricelistXml, skeletonProductXml, uniqueWord, type Endpoints } from '../e2e/skeleton.scenario';
import { SHOP_APPS, startShopProcesses, stopAppsAndDropSchemas, type ServiceProcess, type ShopProcesses } from '../e2e/processes';
import { startFaultInfra, type FaultInfra } from './fault-infra';
import { loadFor, loadUntilStopped, maxMs, Recorder, type Sample } from './load';
import { watchCpuShare } from './run-queue';

// Issue 22's fault-injection suite (`npm run test:faults`, a step of .ci/run after the e2e): the shop as separate
// processes on an instance of tools/infra of its own (tools/faults/fault-infra.ts), bounded loads over loopback,
// and for each fault what the services must do: answer within the edge's budget (a fast 503 with Retry-After, never
// a hang), stay ready while only Kafka is away (the outboxes hold the events), come back after kill -9, lose
// nothing they acknowledged, and charge no selection twice (the order service down mid-checkout, 50 identical
// payment-results, 30 buyers on a stock of 10). It prints what it measured as a table (docs/operations.md keeps the latest).

/** The edge's budget, as deployed (REQUEST_BUDGET_MS's default). */
const BUDGET_MS = 2000;
/** What the issue allows a request during a stall: the budget and half a second. */
const LATENCY_LIMIT_MS = BUDGET_MS + 500;
const STALL_MS = 10_000;
const KAFKA_OUTAGE_MS = 20_000;
/** The SOAP side during a stalled database: a Fault within its budget (SOAP_REQUEST_BUDGET_MS, 2 s for a small request) + 0.5 s. */
const SOAP_FAULT_LIMIT_MS = 2000 + 500;
const TEMPORARILY_UNAVAILABLE = { server: 'temporarily unavailable' };
/**
 * The box starves the shop when its processes, together, waited on a run queue for a CPU at least this many times
 * as long as they ran (they had under a quarter of the CPU they were ready for): measured for the 30 buyers at load
 * 15-21 on 2 cores, 7-22 times, with 1-27 answers at the edge's deadline.
 */
const STARVED_WAIT_PER_RUN = 3;
/**
 * How soon after the broker's return the last SOAP change must be searchable (the issue's 10 s). A consumer restarted
 * during the outage rejoins as the member it was (patched kafkajs), so its group does not wait out an old member's
 * 10 s session (it did, for the upserts' group and the indexer's: 20-30 s), and the backlog is applied in a few runs,
 * not one per SOAP call (decision 140).
 */
const SEARCHABLE_AFTER_KAFKA_MS = Number(process.env['FAULTS_SEARCHABLE_AFTER_KAFKA_MS'] || 10_000);

const schemaSuffix = uniqueName('faults');
const schemaOf = (app: string) => `${app.replace(/-/g, '_')}_${schemaSuffix}`;
const APPS_WITH_SCHEMAS = SHOP_APPS.filter((app) => app !== 'checkout-api');
const meiliIndex = uniqueName('faults_products');

interface Row {
  fault: string;
  requests: number;
  maxLatencyMs: number;
  answered503: number;
  recovery: string;
  writesChecked: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('fault injection: the shop as separate processes on engines that stall, stop and die', () => {
  let infra: FaultInfra;
  let shop: ShopProcesses;
  let endpoints: Endpoints;
  let sql: PgClient;
  const rows: Row[] = [];
  /** Every process started, in order (the restarted ones too). */
  const launched: ServiceProcess[] = [];
  const recorder = new Recorder();
  /** The item the load adds: in stock enough for every order the suite places. */
  let item: string;

  const checkout = (op: string, method: string, path: string, options: { token?: string; body?: unknown } = {}): Promise<Sample> =>
    recorder.call(op, `${endpoints.checkout}${path}`, {
      method,
      headers: {
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(options.token ? { 'API-Token': options.token } : {}),
      },
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });

  /** A product and its price, both acknowledged (`OK`), or false. */
  const soapUpsert = async (word: string, qty = 7): Promise<{ ok: boolean; ms: number; text: string }> => {
    const started = performance.now();
    const price = await postSoap(endpoints, 'pricelists_Update', skeletonPricelistXml(`ext-${word}`)).catch((e: Error) => ({
      status: 0,
      text: e.message,
    }));
    if (!/>OK</.test(price.text)) return { ok: false, ms: performance.now() - started, text: price.text };
    const product = await postSoap(endpoints, 'products_Update', skeletonProductXml(`ext-${word}`, `Fault ${word} Jacket`, qty)).catch(
      (e: Error) => ({ status: 0, text: e.message }),
    );
    return { ok: product.status === 200 && />OK</.test(product.text), ms: performance.now() - started, text: product.text };
  };

  /** Selections of their own, one a worker, each with one acknowledged add of `item`. */
  const openSelections = async (count: number) =>
    Promise.all(
      Array.from({ length: count }, async () => {
        const first = await checkout('add', 'POST', `/items/${item}`);
        expect(first.status).toBe(200);
        return { token: first.body!['token'] as string, acked: 1, attempted: 1 };
      }),
    );

  const quantityOf = async (token: string): Promise<number> => {
    const res = await checkout('check', 'GET', '/selection', { token });
    expect(res.status).toBe(200);
    const lines = res.body!['selection'].items as Array<{ item: string; quantity: number }>;
    return lines.filter((l) => l.item === item).reduce((sum, l) => sum + l.quantity, 0);
  };

  /** Every acknowledged add is in its selection (a refused one may have been applied too: never more than tried). */
  const expectAddsKept = async (selections: Array<{ token: string; acked: number; attempted: number }>) => {
    for (const s of selections) {
      const quantity = await quantityOf(s.token);
      expect(quantity).toBeGreaterThanOrEqual(s.acked);
      expect(quantity).toBeLessThanOrEqual(s.attempted);
    }
    return selections.reduce((sum, s) => sum + s.acked, 0);
  };

  /** What a stall must look like at the edge: answered in time, 200 or a 503 with Retry-After and the envelope. */
  const expectFastAnswers = (samples: Sample[]) => {
    expect(samples.length).toBeGreaterThan(0);
    const slow = samples.filter((s) => s.ms > LATENCY_LIMIT_MS).map((s) => `${s.op} ${s.status} ${Math.round(s.ms)} ms`);
    expect(slow).toEqual([]);
    expect([...new Set(samples.map((s) => s.status))].filter((status) => status !== 200 && status !== 503)).toEqual([]);
    for (const s of samples.filter((x) => x.status === 503)) {
      expect(s.retryAfter).toMatch(/^\d+$/);
      expect(s.body).toMatchObject({ errors: TEMPORARILY_UNAVAILABLE, token: expect.any(String) });
    }
  };

  /** A stall of `engine` under a load of adds and reads: the answers, the first request after it, the adds kept. */
  async function stall(engine: 'redis' | 'postgres', label: string, during?: () => Promise<void>): Promise<void> {
    const selections = await openSelections(6);
    const step = async (worker: number) => {
      const s = selections[worker]!;
      if (Math.random() < 0.5) {
        s.attempted++;
        if ((await checkout('add', 'POST', `/items/${item}`, { token: s.token })).status === 200) s.acked++;
      } else await checkout('read', 'GET', '/selection', { token: s.token });
    };
    await loadFor(1000, selections.length, step);
    const paused = Date.now();
    infra.pause(engine);
    let resumed = 0;
    try {
      await Promise.all([loadFor(STALL_MS, selections.length, step), during?.()]);
    } finally {
      infra.resume(engine);
      resumed = Date.now();
    }
    // The first request after the engine is back succeeds: no client or pool left poisoned.
    selections[0]!.attempted++;
    const first = await checkout('add', 'POST', `/items/${item}`, { token: selections[0]!.token });
    expect({ status: first.status, errors: first.body?.['errors'] }).toEqual({ status: 200, errors: undefined });
    selections[0]!.acked++;
    await loadFor(1000, selections.length, step);
    const inStall = recorder.between(paused, resumed).filter((s) => s.op === 'add' || s.op === 'read');
    expectFastAnswers(inStall);
    const writes = await expectAddsKept(selections);
    rows.push({
      fault: label,
      requests: inStall.length,
      maxLatencyMs: Math.round(maxMs(inStall)),
      answered503: inStall.filter((s) => s.status === 503).length,
      recovery: `first request after resume: ${first.status} in ${Math.round(first.ms)} ms`,
      writesChecked: `${writes} adds`,
    });
  }

  beforeAll(async () => {
    infra = await startFaultInfra();
    const { env } = infra;
    const meili = env['MEILI_URL'];
    shop = await startShopProcesses(
      {
        DATABASE_URL: env['DATABASE_URL']!,
        REDIS_URL: env['REDIS_URL']!,
        KAFKA_BROKERS: env['KAFKA_BROKERS']!,
        STORE_CONFIG: 'infra/config/demo-store.json',
      },
      Object.fromEntries(
        SHOP_APPS.map((app) => [
          app,
          {
            ...(app === 'checkout-api' ? {} : { DATABASE_SCHEMA: schemaOf(app) }),
            ...(app === 'catalog'
              ? meili
                ? { MEILI_URL: meili, MEILI_INDEX: meiliIndex, MEILI_API_KEY: env['MEILI_MASTER_KEY'] ?? '' }
                : { MEILI_URL: 'embedded' }
              : {}),
            ...(app === 'account' ? { MAIL_OUTBOX_DIR: `data/faults-outbox-${process.pid}` } : {}),
            // Every registration of the load logs in at the end, all from 127.0.0.1.
            ...(app === 'checkout-api' ? { LOG_LEVEL: 'info', LOGIN_ATTEMPTS_PER_ADDRESS: '100000' } : { LOG_LEVEL: 'info' }),
          },
        ]),
      ),
    );
    launched.push(...shop.all);
    endpoints = {
      checkout: `${shop.edge.url}/api/checkout`,
      soap: `${shop.soap.url}/ams/system/service/module/soap/api`,
      soapUser: { username: 'demo', password: 'demo-secret', namespace: 'urn:commerce-service:backoffice' },
    };
    sql = new PgClient({ connectionString: env['DATABASE_URL'] });
    await sql.connect();
    // The product the load adds and orders, in stock for every order placed here.
    const word = uniqueWord();
    expect((await soapUpsert(word, 1000)).ok).toBe(true);
    const found = await searchUntilFound(endpoints, word, 30_000);
    item = found.body['products'][0].items[0].item as string;
  }, 600_000);

  afterAll(async () => {
    const table = [
      '| fault | requests during it | max latency (ms) | 503s | recovery | writes checked |',
      '|---|---|---|---|---|---|',
      ...rows.map((r) => `| ${r.fault} | ${r.requests} | ${r.maxLatencyMs} | ${r.answered503} | ${r.recovery} | ${r.writesChecked} |`),
    ].join('\n');
    mkdirSync('tmp/faults', { recursive: true });
    writeFileSync('tmp/faults/latest.md', `${table}\n`);
    process.stdout.write(`\nfault suite (${new Date().toISOString()}):\n${table}\n\n`);
    // Each process's log, the killed ones' included, for whoever reads a failure (CI keeps tmp/).
    for (const [i, s] of launched.entries()) writeFileSync(`tmp/faults/${i}-${s.name}.log`, s.output());
    await sql?.end().catch(() => undefined);
    try {
      if (shop)
        await stopAppsAndDropSchemas(
          shop.all.filter((s) => s.child.exitCode === null && s.child.signalCode === null),
          infra.env['DATABASE_URL']!,
          APPS_WITH_SCHEMAS.map(schemaOf),
        );
    } finally {
      await infra?.down();
    }
  }, 300_000);

  it('serves the outbox backlog gauges on /metrics of every service with an outbox', async () => {
    for (const service of [shop.catalog, shop.soap, shop.order, shop.payment, shop.account]) {
      const text = await (await fetch(`${service.url}/metrics`)).text();
      expect({ service: service.name, age: /^outbox_oldest_pending_age_seconds\{schema="[^"]+"\} \d/m.test(text) }).toEqual({
        service: service.name,
        age: true,
      });
      expect({ service: service.name, pending: /^outbox_pending_events\{schema="[^"]+"\} \d/m.test(text) }).toEqual({
        service: service.name,
        pending: true,
      });
    }
  });

  it('answers within the budget while Redis is paused 10 s: 503 with Retry-After, the first request after it succeeds, no add lost', async () => {
    await stall('redis', 'Redis paused 10 s (SIGSTOP)');
  }, 120_000);

  it('answers within the budget while Postgres is paused 10 s, and the SOAP side answers a Fault in time', async () => {
    let soapAnswer: { ok: boolean; ms: number; text: string } | undefined;
    await stall('postgres', 'Postgres paused 10 s (SIGSTOP)', async () => {
      await sleep(500);
      soapAnswer = await soapUpsert(uniqueWord());
    });
    // Accepted (it may have got its connection before the stall) or a Server Fault within its budget: never a hang.
    expect(soapAnswer!.ms).toBeLessThan(SOAP_FAULT_LIMIT_MS);
    if (!soapAnswer!.ok) expect(soapAnswer!.text).toMatch(/<faultcode>SOAP-ENV:Server<\/faultcode>[\s\S]*BACKOFFICE\.UNAVAILABLE/);
    rows[rows.length - 1]!.recovery += `; SOAP during it: ${soapAnswer!.ok ? 'OK' : 'Server Fault'} in ${Math.round(soapAnswer!.ms)} ms`;
  }, 120_000);

  it('accepts every SOAP upsert while Kafka is stopped 20 s, stays ready, and the last change becomes searchable after its return', async () => {
    const ready = new Recorder();
    const upserts: Array<{ word: string; ok: boolean; ms: number }> = [];
    const stopped = Date.now();
    await infra.stopKafka();
    const outage = Date.now();
    await Promise.all([
      loadFor(
        KAFKA_OUTAGE_MS,
        1,
        async () => {
          const word = uniqueWord();
          upserts.push({ word, ...(await soapUpsert(word)) });
        },
        500,
      ),
      loadFor(KAFKA_OUTAGE_MS, 2, (worker) => ready.call('ready', `${(worker === 0 ? shop.catalog : shop.soap).url}/readyz`), 500),
    ]);
    const returning = Date.now();
    await infra.startKafka();
    const back = Date.now();
    // Every upsert was acknowledged; both services answered ready throughout.
    expect(upserts.filter((u) => !u.ok)).toEqual([]);
    expect(upserts.length).toBeGreaterThanOrEqual(10);
    expect(ready.samples.filter((s) => s.status !== 200).map((s) => `${s.status} ${JSON.stringify(s.body)}`)).toEqual([]);
    const last = upserts[upserts.length - 1]!;
    // Measured to the end (up to a minute) so that the table says how long it took, then held to the bound.
    await searchUntilFound(endpoints, last.word, 60_000);
    const searchableAfterMs = Date.now() - back;
    rows.push({
      fault: `Kafka stopped ${Math.round((returning - outage) / 1000)} s (SIGTERM; back in ${Math.round((back - returning) / 1000)} s)`,
      requests: upserts.length * 2 + ready.samples.length,
      maxLatencyMs: Math.round(Math.max(...upserts.map((u) => u.ms))),
      answered503: ready.samples.filter((s) => s.status === 503).length,
      recovery: `last upsert searchable ${(searchableAfterMs / 1000).toFixed(1)} s after the broker's return`,
      writesChecked: `${upserts.length} SOAP upserts acknowledged; catalog and backoffice-soap ready in ${ready.samples.length} probes (stop took ${Math.round((outage - stopped) / 1000)} s)`,
    });
    expect(searchableAfterMs).toBeLessThanOrEqual(SEARCHABLE_AFTER_KAFKA_MS);
  }, 180_000);

  it('the order service killed during payment-result, then POST payment again: fast 503s, and once it is back one order and one kept payment', async () => {
    const email = `order-down-${uniqueWord()}@example.com`;
    const token = await buyerWith(item, 'pay');
    const started = await checkout('pay', 'POST', '/payment', { token, body: paymentBody(email) });
    expect(started.body?.['action']).toBe('redirect');
    const fields = await approve(started.body!['url'] as string);
    expect(fields).toBeDefined();
    const order = shop.order;
    const died = new Promise((resolve) => order.child.once('exit', resolve));
    order.child.kill('SIGKILL');
    await died;
    const result = await checkout('pay', 'POST', '/payment-result', { token, body: { paymentMethodFields: fields } });
    expect({ status: result.status, retryAfter: /^\d+$/.test(result.retryAfter ?? '') }).toEqual({ status: 503, retryAfter: true });
    // The shopper tries again: nothing new is started (a new page would be approved too, as a shopper would).
    const again = await checkout('pay', 'POST', '/payment', { token, body: paymentBody(email) });
    if (again.status === 200 && again.body?.['action'] === 'redirect') await approve(again.body['url'] as string);
    expect(again.status).toBe(503);
    const restarting = Date.now();
    const back = await order.restart(90_000);
    launched.push(back);
    replace(shop, order, back);
    // Back: the paid attempt is completed (its PaymentAuthorized consumed, or the shopper's result again), once.
    let placed: Sample | undefined;
    for (const until = Date.now() + 60_000; Date.now() < until; await sleep(500)) {
      placed = await checkout('pay', 'POST', '/payment-result', { token, body: { paymentMethodFields: fields } });
      if (placed.status === 200 && placed.body?.['order']) break;
    }
    expect({ status: placed?.status, order: Boolean(placed?.body?.['order']) }).toEqual({ status: 200, order: true });
    const after = await ledger(email);
    expect(after).toEqual({
      selections: 1,
      orders: 1,
      kept: 1,
      others: after.others.filter((s) => ['cancelled', 'voided', 'declined'].includes(s)),
    });
    rows.push({
      fault: 'order service killed during payment-result, then POST payment again',
      requests: 2,
      maxLatencyMs: Math.round(Math.max(result.ms, again.ms)),
      answered503: [result, again].filter((s) => s.status === 503).length,
      recovery: `order placed ${((Date.now() - restarting) / 1000).toFixed(1)} s after the restart began`,
      writesChecked: `${after.orders} order, ${after.kept} kept payment, others: ${after.others.join(', ') || 'none started'}`,
    });
  }, 240_000);

  it('50 concurrent identical payment-results place one order, each answered with it, no 5xx', async () => {
    const email = `results-${uniqueWord()}@example.com`;
    const token = await buyerWith(item, 'results');
    const started = await checkout('results', 'POST', '/payment', { token, body: paymentBody(email) });
    expect(started.body?.['action']).toBe('redirect');
    const fields = await approve(started.body!['url'] as string);
    const results = await Promise.all(
      Array.from({ length: 50 }, () => checkout('results', 'POST', '/payment-result', { token, body: { paymentMethodFields: fields } })),
    );
    // Every one answered with the order, none 5xx: the order service runs one completion of an attempt and the
    // others await it (decision 141), and its stock commit locks the item's row briefly (decision 151).
    expect(results.filter((r) => r.status !== 200).map((r) => `${r.status} ${JSON.stringify(r.body)}`)).toEqual([]);
    const numbers = new Set(results.map((r) => String(r.body!['order'])));
    expect(numbers.size).toBe(1);
    const after = await ledger(email);
    expect({ orders: after.orders, kept: after.kept }).toEqual({ orders: 1, kept: 1 });
    rows.push({
      fault: '50 concurrent identical payment-results',
      requests: results.length,
      maxLatencyMs: Math.round(maxMs(results)),
      answered503: results.filter((r) => r.status === 503).length,
      recovery: '',
      writesChecked: `${after.orders} order, ${after.kept} kept payment`,
    });
  }, 120_000);

  it('30 buyers on a stock of 10: 10 orders, 20 told it is gone, none oversold, no 5xx (but the deadline on a CPU-starved box)', async () => {
    const word = uniqueWord();
    expect((await soapUpsert(word, 10)).ok).toBe(true);
    const scarce = (await searchUntilFound(endpoints, word, 30_000)).body['products'][0].items[0].item as string;
    const from = Date.now();
    const cpu = watchCpuShare(shop.all.map((p) => ({ name: p.name, pid: p.child.pid })));
    /** The edge's deadline (decision 132): 503 at the budget, with Retry-After and the envelope. */
    const deadline = (s: Sample) =>
      s.status === 503 &&
      s.ms >= BUDGET_MS &&
      /^\d+$/.test(s.retryAfter ?? '') &&
      JSON.stringify(s.body?.['errors']) === JSON.stringify(TEMPORARILY_UNAVAILABLE);
    /** A call sent again after its Retry-After while it is answered the edge's deadline, as a client does (≤ 10 times). */
    const sent = async (send: () => Promise<Sample>): Promise<Sample> => {
      for (let tries = 1; ; tries++) {
        const answer = await send();
        if (!deadline(answer) || tries === 10) return answer;
        await sleep(Number(answer.retryAfter) * 1000);
      }
    };
    // Each call once: a hold is one guarded update of the item's row (decision 151), so 30 buyers of one item do
    // not queue past the edge's budget, and none is answered 503 (before, up to half of them at load ~22). Only a
    // box that starves the shop of CPU may answer the deadline, and then the buyer sends it again.
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const email = `stock-${word}-${i}@example.com`;
        const added = await sent(() => checkout('stock', 'POST', `/items/${scarce}`));
        if (added.status !== 200) return `add ${added.status}`;
        const token = added.body!['token'] as string;
        const started = await sent(() => checkout('stock', 'POST', '/payment', { token, body: paymentBody(email) }));
        if (started.status === 410) return 'gone';
        if (started.status !== 200) return `payment ${started.status} ${JSON.stringify(started.body?.['errors'])}`;
        if (started.body?.['action'] !== 'redirect') return `payment ${String(started.body?.['action'])}`;
        const fields = await approve(started.body['url'] as string);
        const result = await sent(() => checkout('stock', 'POST', '/payment-result', { token, body: { paymentMethodFields: fields } }));
        return result.status === 200 && result.body?.['order'] ? 'order' : `payment-result ${result.status}`;
      }),
    );
    const samples = recorder.between(from, Date.now()).filter((s) => s.op === 'stock');
    // The box, not the shop (decision 193): the shop's processes were ready to run and waited on a run queue for a
    // CPU at least STARVED_WAIT_PER_RUN times as long as they ran. Then a request can pass the edge's 2 s budget
    // with little work of its own done, and its answer is the documented one. Stock rows queueing (decisions 121,
    // 151) wait on a lock, not for a CPU, and count as no wait here.
    const shares = cpu.stop();
    const ran = shares.reduce((sum, s) => sum + s.runMs, 0);
    const waited = shares.reduce((sum, s) => sum + s.waitMs, 0);
    const starved = shares.length > 0 && waited >= STARVED_WAIT_PER_RUN * ran;
    const failed = samples.filter((s) => s.status >= 500 || s.status === 0);
    const cpuLine = `shop processes ran ${Math.round(ran)} ms, waited ${Math.round(waited)} ms for a CPU`;
    // No 5xx of any kind (nor a call that got no answer): contention is not an outage. On a starved box only the
    // edge's deadline.
    expect(
      failed
        .filter((s) => !(starved && deadline(s)))
        .map((s) => `${s.status} in ${Math.round(s.ms)} ms ${JSON.stringify(s.body)} (${cpuLine})`),
    ).toEqual([]);
    const count = (what: string) => outcomes.filter((o) => o === what).length;
    expect({
      orders: count('order'),
      gone: count('gone'),
      other: outcomes.filter((o) => o !== 'order' && o !== 'gone'),
    }).toEqual({
      orders: 10,
      gone: 20,
      other: [],
    });
    let ordered = 0;
    for (let i = 0; i < 30; i++) ordered += (await ledger(`stock-${word}-${i}@example.com`)).orders;
    expect(ordered).toBe(10);
    rows.push({
      fault: '30 buyers on a stock of 10 (each call once)',
      requests: samples.length,
      maxLatencyMs: Math.round(maxMs(samples)),
      answered503: samples.filter((s) => s.status === 503).length,
      recovery: failed.length ? `${failed.length} at the edge's deadline (sent again), the box starved: ${cpuLine}` : cpuLine,
      writesChecked: `${ordered} orders, ${count('gone')} told the item is gone (410), 0 oversold`,
    });
  }, 240_000);

  it('comes back ready after kill -9 of each service in turn under load, with every acknowledged write and no order without a kept payment', async () => {
    const selections = await openSelections(3);
    const words: string[] = [];
    const emails: string[] = [];
    const orders: Array<{ order: string; attempt?: string }> = [];
    const load = loadUntilStopped(
      selections.length + 2,
      async (worker) => {
        if (worker < selections.length) {
          const s = selections[worker]!;
          s.attempted++;
          if ((await checkout('add', 'POST', `/items/${item}`, { token: s.token })).status === 200) s.acked++;
        } else if (worker === selections.length) {
          const word = uniqueWord();
          if ((await soapUpsert(word)).ok) words.push(word);
        } else {
          const email = `fault-${uniqueWord()}@example.com`;
          const res = await checkout('register', 'POST', '/register', { body: { email, password: 'correct horse battery' } });
          if (res.status === 200) emails.push(email);
        }
      },
      200,
    );
    const recoveries: string[] = [];
    const from = Date.now();
    try {
      for (const app of SHOP_APPS) {
        const victim = shop.all.find((s) => s.name === app)!;
        const died = new Promise((resolve) => victim.child.once('exit', resolve));
        victim.child.kill('SIGKILL');
        await died;
        const restarting = Date.now();
        const again = await victim.restart(90_000);
        launched.push(again);
        replace(shop, victim, again);
        recoveries.push(`${app} ${((Date.now() - restarting) / 1000).toFixed(1)} s`);
        // An order through the restarted shop: tried until the services behind it answer again.
        orders.push(await placeOrder());
      }
    } finally {
      await load.stop();
    }
    const during = recorder.between(from, Date.now());
    const adds = await expectAddsKept(selections);
    for (const email of emails) {
      const res = await checkout('check', 'POST', `/login/${encodeURIComponent(email)}`, { body: { password: 'correct horse battery' } });
      expect({ email, status: res.status }).toEqual({ email, status: 200 });
    }
    for (const word of words) await searchUntilFound(endpoints, word, 60_000);
    const orderSchema = schemaOf('order');
    const placed = (await sql.query(`select number::text as number from "${orderSchema}".orders`)).rows.map((r) => r.number as string);
    for (const { order } of orders) expect(placed).toContain(order);
    const invariants = await eventually(() => paymentInvariants(), 30_000);
    expect(invariants).toEqual({ ordersWithoutKeptPayment: [], keptPaymentsWithoutOrder: [] });
    rows.push({
      fault: 'kill -9 of each service in turn, under load',
      requests: during.length,
      maxLatencyMs: Math.round(maxMs(during)),
      answered503: during.filter((s) => s.status === 503).length,
      recovery: `ready again: ${recoveries.join(', ')}`,
      writesChecked: `${adds} adds, ${emails.length} registrations, ${words.length} SOAP upserts, ${orders.length} orders; 0 orders without a kept payment, 0 kept payments without an order`,
    });
  }, 600_000);

  const paymentBody = (email: string) => ({
    paymentReturnPage: 'https://storefront.test/thanks',
    paymentFailedPage: 'https://storefront.test/failed',
    termsAndConditions: true,
    address: { email, firstName: 'F', lastName: 'Ault', address1: 'Gatan 1', city: 'Stockholm', zipCode: '11451', country: 'SE' },
  });

  /** Approve on the hosted test provider's page (which notifies the payment service): the fields the browser brings back, or undefined. */
  async function approve(url: string): Promise<Record<string, string> | undefined> {
    const back = await fetch(`${url}/decision`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'decision=approve',
    });
    return back.status === 303 ? Object.fromEntries(new URL(back.headers.get('location')!).searchParams) : undefined;
  }

  /** A buyer's (new) selection with one `what`, its token. */
  async function buyerWith(what: string, op: string): Promise<string> {
    const added = await checkout(op, 'POST', `/items/${what}`);
    expect(added.status).toBe(200);
    return added.body!['token'] as string;
  }

  /** The payment attempts a buyer (by e-mail) made, and the orders placed for them. */
  async function ledger(email: string) {
    const attempts = (
      await sql.query(`select id::text as id, status, selection_id from "${schemaOf('payment')}".attempts where address->>'email' = $1`, [
        email,
      ])
    ).rows as Array<{ id: string; status: string; selection_id: string }>;
    const orders = (
      await sql.query(`select number::text as number from "${schemaOf('order')}".orders where payment_attempt_id = any($1::text[])`, [
        attempts.map((a) => a.id),
      ])
    ).rows as Array<{ number: string }>;
    return {
      selections: new Set(attempts.map((a) => a.selection_id)).size,
      orders: orders.length,
      kept: attempts.filter((a) => a.status === 'authorized').length,
      others: attempts.filter((a) => a.status !== 'authorized').map((a) => a.status),
    };
  }

  /** The order of one buyer: add, pay at the hosted test provider, approve, payment-result; tried again while a service is not back. */
  async function placeOrder(): Promise<{ order: string }> {
    const deadline = Date.now() + 90_000;
    let last = '';
    while (Date.now() < deadline) {
      const added = await checkout('order', 'POST', `/items/${item}`);
      if (added.status !== 200) {
        last = `add ${added.status} ${JSON.stringify(added.body?.['errors'])}`;
        await sleep(500);
        continue;
      }
      const token = added.body!['token'] as string;
      for (let tries = 0; tries < 20 && Date.now() < deadline; tries++) {
        const started = await checkout('order', 'POST', '/payment', { token, body: paymentBody('buyer@example.com') });
        // The selection's payment is authorized already (a payment-result that met the order service down): POST
        // payment completes that attempt instead of starting a second (decision 131), or, once the order service's
        // consumer placed it, the selection is closed and the order is the session's receipt.
        if (started.status === 200 && started.body?.['action'] === 'success' && started.body['order'])
          return { order: String(started.body['order']) };
        if (started.status === 406 && started.body?.['errors']?.['selection'] === 'empty') {
          const receipt = await checkout('order', 'GET', '/receipt', { token });
          if (receipt.status === 200 && receipt.body?.['order']) return { order: String(receipt.body['order']) };
        }
        if (started.status !== 200 || started.body?.['action'] !== 'redirect') {
          last = `payment ${started.status} ${JSON.stringify(started.body?.['errors'])}`;
          await sleep(500);
          continue;
        }
        const paymentMethodFields = await approve(started.body['url'] as string);
        if (!paymentMethodFields) {
          last = 'decision refused';
          await sleep(500);
          continue;
        }
        for (let again = 0; again < 20 && Date.now() < deadline; again++) {
          const result = await checkout('order', 'POST', '/payment-result', { token, body: { paymentMethodFields } });
          if (result.status === 200 && result.body?.['order']) return { order: String(result.body['order']) };
          last = `payment-result ${result.status} ${JSON.stringify(result.body?.['errors'])}`;
          await sleep(500);
        }
      }
    }
    throw new Error(`no order placed within 90 s: ${last}`);
  }

  /** Orders whose payment attempt is not kept (authorized), and kept attempts without an order: both must stay empty. */
  async function paymentInvariants() {
    const order = schemaOf('order');
    const payment = schemaOf('payment');
    const ordersWithoutKeptPayment = (
      await sql.query(
        `select o.number::text as number from "${order}".orders o
         where not exists (select 1 from "${payment}".attempts a where a.id::text = o.payment_attempt_id and a.status = 'authorized')`,
      )
    ).rows.map((r) => r.number as string);
    const keptPaymentsWithoutOrder = (
      await sql.query(
        `select a.id::text as id from "${payment}".attempts a
         where a.status = 'authorized' and not exists (select 1 from "${order}".orders o where o.payment_attempt_id = a.id::text)`,
      )
    ).rows.map((r) => r.id as string);
    return { ordersWithoutKeptPayment, keptPaymentsWithoutOrder };
  }
});

/** The restarted process in the shop's lists, in place of the killed one. */
function replace(shop: ShopProcesses, killed: ServiceProcess, again: ServiceProcess): void {
  const at = shop.all.indexOf(killed);
  if (at >= 0) shop.all[at] = again;
  for (const key of ['catalog', 'cart', 'soap', 'payment', 'account', 'order', 'edge'] as const)
    if (shop[key] === killed) shop[key] = again;
}

/** The value `read` gives once `done` holds of it (empty lists), or the last one after `timeoutMs`. */
async function eventually<T extends Record<string, unknown[]>>(read: () => Promise<T>, timeoutMs: number): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (Object.values(value).every((list) => list.length === 0) || Date.now() > until) return value;
    await sleep(500);
  }
}
