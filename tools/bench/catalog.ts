// The catalog benchmark (issue 6): a generated catalog of BENCH_PRODUCTS products (10,000 by default: names
// with accents and non-Latin scripts, 3 variants × 5 sizes on average, 20 brands, 50 leaf categories),
// then through the full HTTP stack of the all-in-one, on the embedded search engine and on Meilisearch
// (when MEILI_URL is set):
//   - POST products with search + two filters + facets + paging, at 1 and BENCH_CONNECTIONS connections,
//     each as a ratio to a bare Koa handler measured in the same run;
//   - the same request with a page of 1 and of 100 products (facets must cost by matches, not by page);
//   - reindex time of the whole catalog;
//   - SOAP products_Update → searchable through POST products, one product at a time, and in batches of
//     BENCH_SOAP_BATCH (1,000) new products (issue 8): products acknowledged per second, and the time from
//     the acknowledgement until the batch's last product is searchable;
//   - with DATABASE_URL set (Postgres), the same POST products load on separate processes: the catalog
//     service on Postgres (a schema of its own) and the checkout-api edge in front of it, as deployed.
//
//   npm run bench:catalog                      (eval "$(tools/infra/env)" first for the Meilisearch and
//                                               separate-process rows)
//   BENCH_PRODUCTS=2000 BENCH_SECONDS=5 npm run bench:catalog
//   BENCH_WORK=/tmp/bench-2000 …   keeps the prepared catalog there and reuses it on the next run (applying
//                                  10,000 products takes minutes); delete the folder after a catalog change
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { cpuMsOf, machineLine } from './bench-env';
import { spawnBenchServer, startListingEdge } from './bench-servers';
import type { PhaseRecord } from './profile-summary';
import { soapBatchRound } from './soap-batch-round';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { buildCatalogService, createSearchIndex, parseDemoCatalog, reindexAll } from '@commerce/catalog-adapters';
import { catalogSettings } from '@commerce/catalog-core';
import { createEventBus } from '@commerce/shared-bus';
import { parseStoreConfig } from '@commerce/shared-config';
import { createDbEngine } from '@commerce/shared-db';
import { createLogger } from '@commerce/shared-logging';
import { generateCatalog } from '../demo/catalog-generator';
import { startApp, serviceRuntime, stopApp, type ServiceProcess } from '../e2e/processes';
import {
  checkoutCall,
  postSoap,
  searchUntilFound,
  skeletonPricelistXml,
  skeletonProductXml,
  uniqueWord,
  type Endpoints,
} from '../e2e/skeleton.scenario';

const productCount = Number(process.env['BENCH_PRODUCTS'] ?? 10_000);
const seconds = Number(process.env['BENCH_SECONDS'] ?? 10);
const connections = Number(process.env['BENCH_CONNECTIONS'] ?? 32);
const soapRounds = Number(process.env['BENCH_SOAP_ROUNDS'] ?? 10);
const soapBatch = Number(process.env['BENCH_SOAP_BATCH'] ?? 1000);
const soapBatches = Number(process.env['BENCH_SOAP_BATCHES'] ?? 3);
const postgresUrl = process.env['DATABASE_URL']?.startsWith('postgres') ? process.env['DATABASE_URL'] : undefined;
const root = resolve(__dirname, '../..');
const keep = process.env['BENCH_WORK'];
const work = keep ? resolve(keep) : join(tmpdir(), `commerce-bench-catalog-${process.pid}`);
const logger = createLogger('bench', 'silent');

interface Load {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** CPU ms per request of each server process (separate processes, Linux): what a loaded machine does not distort. */
  cpu?: Record<string, number>;
}

/**
 * BENCH_PROFILE=<dir>: the catalog and the edge of the separate rows write CPU profiles there, and the run
 * writes phases.json beside them (each load's window, requests and CPU, the processes by row), so that
 * `npx tsx tools/bench/profile-summary.ts <dir>` gives each process's CPU a request and its top functions per load.
 */
const profileDir = process.env['BENCH_PROFILE'];
const record: PhaseRecord = { pids: {}, phases: [] };
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** A load with the CPU each named process spent on it, per request; recorded as the phase `what` of row `row`. */
async function withCpu(
  pids: Record<string, number | undefined>,
  row: string,
  what: string,
  connections: number,
  run: () => Promise<Load>,
): Promise<Load> {
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMsOf(pid)]));
  const startUs = monotonicUs();
  const result = await run();
  const endUs = monotonicUs();
  const cpu: Record<string, number> = {};
  const cpuMs: Record<string, number> = {};
  for (const [name, pid] of Object.entries(pids)) {
    const [a, b] = [before[name], cpuMsOf(pid)];
    if (a !== undefined && b !== undefined && result.requests > 0) {
      cpu[name] = (b - a) / result.requests;
      cpuMs[`${name} (${row})`] = b - a;
    }
  }
  record.phases.push({ what: `${row}: ${what}`, connections, startUs, endUs, requests: result.requests, cpuMs });
  return Object.keys(cpu).length > 0 ? { ...result, cpu } : result;
}

/** One autocannon run: one request again and again (`body`), or each request the next of `bodies` in turn. */
async function load(
  url: string,
  options: { connections: number; method?: 'GET' | 'POST'; body?: string; bodies?: string[]; token?: string },
): Promise<Load> {
  let next = 0;
  const bodies = options.bodies;
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: seconds,
    method: options.method ?? 'GET',
    headers: { 'content-type': 'application/json', ...(options.token ? { 'API-Token': options.token } : {}) },
    ...(options.body ? { body: options.body } : {}),
    ...(bodies ? { requests: [{ setupRequest: (req) => ({ ...req, body: bodies[next++ % bodies.length] }) }] } : {}),
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, requests: result.requests.total };
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;

interface Prepared {
  products: number;
  databaseUrl: string;
  storePath: string;
  applyMs: number;
  generateMs: number;
  variants: number;
  /** The same catalog applied into Postgres, for the separate-process rows (DATABASE_URL set). */
  postgres?: { url: string; schema: string; applyMs: number };
}

/** Applies the generated entities into one database schema through the catalog service's seed (batched). */
async function applyCatalog(databaseUrl: string, schema: string, store: unknown, entities: Record<string, unknown>): Promise<number> {
  const engine = await createDbEngine(databaseUrl, { logger });
  const bus = await createEventBus('memory', { clientId: 'bench', logger });
  const search = await createSearchIndex('embedded', { logger });
  const catalog = await buildCatalogService({
    db: engine.forSchema(schema),
    bus,
    search,
    logger,
    settings: catalogSettings(parseStoreConfig(store)),
  });
  await catalog.start();
  const started = Date.now();
  await catalog.seed(parseDemoCatalog(entities));
  const applyMs = Date.now() - started;
  // Everything published now, so the servers below do not re-index the catalog from its events.
  await catalog.relay.flush();
  await catalog.stop();
  await bus.close();
  await engine.close();
  return applyMs;
}

const generate = () => {
  const { categories, swatches, ...entities } = generateCatalog({ products: productCount, brands: 20, leafCategories: 50 });
  const store = { ...JSON.parse(readFileSync(join(root, 'infra/config/demo-store.json'), 'utf8')), categories, swatches };
  return { store, entities };
};

/**
 * Writes the store (demo store + the generated category tree) and applies the catalog into a PGlite
 * folder, and into a Postgres schema when DATABASE_URL names Postgres; BENCH_WORK keeps both for reuse.
 */
async function prepare(): Promise<Prepared> {
  const kept = join(work, 'prepared.json');
  let prepared: Prepared | undefined;
  if (keep && existsSync(kept)) {
    prepared = JSON.parse(readFileSync(kept, 'utf8')) as Prepared;
    if (prepared.products !== productCount) throw new Error(`${work} holds ${prepared.products} products, not ${productCount}: delete it`);
  }
  let generated: ReturnType<typeof generate> | undefined;
  if (!prepared) {
    const started = Date.now();
    generated = generate();
    mkdirSync(work, { recursive: true });
    const storePath = join(work, 'store.json');
    writeFileSync(storePath, JSON.stringify(generated.store));
    const databaseUrl = `pglite://${join(work, 'pg')}`;
    const generateMs = Date.now() - started;
    const applyMs = await applyCatalog(databaseUrl, 'catalog', generated.store, generated.entities);
    const variants = (generated.entities.products as Array<Record<string, unknown>>).reduce(
      (n, p) => n + (p['variations'] as unknown[]).length,
      0,
    );
    prepared = { products: productCount, databaseUrl, storePath, applyMs, generateMs, variants };
  }
  if (postgresUrl && (prepared.postgres?.url !== postgresUrl || !(await schemaHasProducts(postgresUrl, prepared.postgres.schema)))) {
    generated ??= generate();
    const schema = `bench_catalog_${process.pid}_${Date.now().toString(36)}`;
    prepared.postgres = { url: postgresUrl, schema, applyMs: await applyCatalog(postgresUrl, schema, generated.store, generated.entities) };
  }
  if (keep) writeFileSync(kept, JSON.stringify(prepared));
  return prepared;
}

async function schemaHasProducts(url: string, schema: string): Promise<boolean> {
  const engine = await createDbEngine(url, { logger });
  try {
    const rows = await engine
      .knex('information_schema.tables')
      .where({ table_schema: schema, table_name: 'products' })
      .select('table_name');
    if (rows.length === 0) return false;
    return Number((await engine.knex(`${schema}.products`).count({ n: '*' }))[0]?.['n'] ?? 0) === productCount;
  } finally {
    await engine.close();
  }
}

const meiliKey = process.env['MEILI_MASTER_KEY'];

async function timeReindex(databaseUrl: string, schema: string, meiliUrl: string, indexName?: string): Promise<number> {
  const engine = await createDbEngine(databaseUrl, { logger });
  const search = await createSearchIndex(meiliUrl, {
    logger,
    ...(meiliKey ? { apiKey: meiliKey } : {}),
    ...(indexName ? { indexName } : {}),
  });
  const started = Date.now();
  await reindexAll({ db: engine.forSchema(schema), search });
  const ms = Date.now() - started;
  await search.close?.();
  await engine.close();
  return ms;
}

type Mode = 'embedded' | 'meilisearch';
type Target = 'all-in-one' | 'separate';

/** The servers of one row: the all-in-one on the PGlite catalog, or the catalog and the edge as processes on Postgres. */
async function startTarget(
  mode: Mode,
  target: Target,
  prepared: Prepared,
): Promise<{ endpoints: Endpoints; engines: string; close: () => Promise<void>; pids?: Record<string, number | undefined> }> {
  const meili = mode === 'embedded' ? 'embedded' : process.env['MEILI_URL']!;
  if (target === 'all-in-one') {
    const server = await spawnBenchServer('catalog', {
      BENCH_DATABASE_URL: prepared.databaseUrl,
      BENCH_STORE_CONFIG: prepared.storePath,
      MEILI_URL: meili,
    });
    return {
      endpoints: {
        checkout: `${server.url}/api/checkout`,
        soap: `${server.url}/ams/system/service/module/soap/api`,
        soapUser: { username: 'demo', password: 'demo-secret', namespace: 'urn:commerce-service:backoffice' },
      },
      engines: server.engines ?? mode,
      close: server.stop,
    };
  }
  const pg = prepared.postgres!;
  const suffix = `${process.pid}_${Date.now().toString(36)}`;
  const indexName = `bench_products_${suffix}`;
  const infra = { DATABASE_URL: pg.url, STORE_CONFIG: prepared.storePath, LOG_LEVEL: 'silent' };
  const services: ServiceProcess[] = [];
  const dropRunSchemas = async () => {
    for (const kind of ['cart', 'account']) await dropSchema(pg.url, `bench_${kind}_${suffix}`);
  };
  // Meilisearch is not rebuilt at start (its index outlives the process): fill this run's index first.
  if (mode === 'meilisearch') await timeReindex(pg.url, pg.schema, meili, indexName);
  try {
    // The catalog's own events stay in its process (memory bus): no consumer group is shared with other
    // users of the Kafka these engines may serve.
    services.push(
      await startApp(
        'catalog',
        {
          ...infra,
          DATABASE_SCHEMA: pg.schema,
          KAFKA_BROKERS: 'memory',
          MEILI_URL: meili,
          MEILI_INDEX: indexName,
          ...(meiliKey ? { MEILI_API_KEY: meiliKey } : {}),
          ...(profileDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` } : {}),
        },
        300_000,
      ),
    );
    services.push(await startApp('cart', { ...infra, DATABASE_SCHEMA: `bench_cart_${suffix}` }));
    services.push(await startApp('account', { ...infra, DATABASE_SCHEMA: `bench_account_${suffix}`, CATALOG_URL: services[0]!.url }));
    const [catalog, cart, account] = services as [ServiceProcess, ServiceProcess, ServiceProcess];
    const edge = await startListingEdge(
      {
        ...infra,
        REDIS_URL: process.env['REDIS_URL'] ?? 'memory',
        ...(profileDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` } : {}),
      },
      { catalog, cart, account },
    );
    services.push(edge);
  } catch (error) {
    await Promise.all(services.map(stopApp));
    await dropRunSchemas();
    throw error;
  }
  const edge = services[3]!;
  return {
    endpoints: { checkout: `${edge.url}/api/checkout`, soap: '', soapUser: { username: '', password: '', namespace: '' } },
    engines: `separate processes (${serviceRuntime()}): catalog on Postgres, ${mode === 'embedded' ? 'embedded search' : 'Meilisearch'}; checkout-api edge, ${process.env['REDIS_URL'] ? 'Redis' : 'in-memory'} sessions`,
    pids: { catalog: services[0]!.child.pid, edge: edge.child.pid },
    close: async () => {
      await Promise.all(services.map(stopApp));
      await dropRunSchemas();
      if (mode === 'meilisearch')
        await fetch(`${meili.replace(/\/+$/, '')}/indexes/${indexName}`, {
          method: 'DELETE',
          headers: meiliKey ? { authorization: `Bearer ${meiliKey}` } : {},
        }).catch(() => undefined);
    },
  };
}

/** Words the generated catalog's names hold (tools/demo/catalog-generator.ts), several scripts among them. */
const VARIED_WORDS = ['shirt', 'jeans', 'sweater', 'jacket', 'coat', 'boot', 'scarf', 'trousers', 'dress', 'sneaker', 'wool', 'cafe'];

/**
 * Many distinct requests of the benchmark's shape (a search word, two brands, three categories, every facet,
 * a page of 24), the brands and categories taken from each word's own facets so every request matches.
 */
async function variedBodies(endpoints: Endpoints, token: string): Promise<string[]> {
  const bodies: string[] = [];
  for (const word of VARIED_WORDS) {
    const found = await checkoutCall(endpoints, 'POST', '/products', { token, body: { search: word, limit: 1 } });
    const values = (field: string) =>
      (
        (found.body['filter'] as Array<{ field: string; values: Array<{ value: string; count: number }> }>).find((f) => f.field === field)
          ?.values ?? []
      )
        .filter((v) => v.count > 0)
        .map((v) => Number(v.value));
    const brands = values('brands');
    const categories = values('categories');
    for (let b = 0; b + 1 < brands.length; b += 2)
      for (let c = 0; c < Math.max(1, categories.length - 2); c++)
        bodies.push(
          JSON.stringify({ search: word, brands: brands.slice(b, b + 2), categories: categories.slice(c, c + 3), skipFirst: 0, limit: 24 }),
        );
  }
  if (bodies.length === 0) throw new Error('the varied benchmark queries: no search word finds anything');
  // A fixed shuffle, so that consecutive requests differ in word as well.
  let seed = 42;
  return bodies
    .map((body) => ({ body, key: (seed = (seed * 1103515245 + 12345) % 2 ** 31) }))
    .sort((a, b) => a.key - b.key)
    .map((x) => x.body);
}

async function benchSearch(mode: Mode, target: Target, prepared: Prepared) {
  const server = await startTarget(mode, target, prepared);
  try {
    const { endpoints } = server;
    // Two brands and a category that the search word meets, read from the facets themselves.
    const all = await checkoutCall(endpoints, 'POST', '/products', { body: { search: 'shirt', limit: 1 } });
    const token = all.body['token'] as string;
    const facet = (field: string) =>
      ((all.body['filter'] as Array<{ field: string; values: Array<{ value: string }> }>).find((f) => f.field === field)?.values ?? []).map(
        (v) => Number(v.value),
      );
    const body = (limit: number) =>
      JSON.stringify({
        search: 'shirt',
        brands: facet('brands').slice(0, 2),
        categories: facet('categories').slice(0, 3),
        skipFirst: 0,
        limit,
      });
    const check = await checkoutCall(endpoints, 'POST', '/products', { token, body: JSON.parse(body(24)) });
    if (check.status !== 200 || !(check.body['productCount'] > 0))
      throw new Error(`the benchmark query finds nothing: ${JSON.stringify(check.body).slice(0, 300)}`);
    const url = `${endpoints.checkout}/products`;
    const row = `${target}, ${mode}`;
    for (const [name, pid] of Object.entries(server.pids ?? {})) if (pid !== undefined) record.pids[`${name} (${row})`] = pid;
    const measure = (what: string, options: Parameters<typeof load>[1]) =>
      withCpu(server.pids ?? {}, row, what, options.connections, () => load(url, options));
    const one = await measure('one query', { connections: 1, method: 'POST', body: body(24), token });
    const many = await measure('one query', { connections, method: 'POST', body: body(24), token });
    const bodies = await variedBodies(endpoints, token);
    const variedOne = await measure('varied', { connections: 1, method: 'POST', bodies, token });
    const variedMany = await measure('varied', { connections, method: 'POST', bodies, token });
    const page1 = await measure('page of 1', { connections: 1, method: 'POST', body: body(1), token });
    const page100 = await measure('page of 100', { connections: 1, method: 'POST', body: body(100), token });

    const lags: number[] = [];
    const batches: Array<Awaited<ReturnType<typeof soapBatchRound>>> = [];
    if (target === 'all-in-one') {
      for (let i = 0; i < soapRounds; i++) {
        const word = uniqueWord();
        const started = Date.now();
        for (const [operation, xml] of [
          ['pricelists_Update', skeletonPricelistXml(`bench-${word}`)],
          ['products_Update', skeletonProductXml(`bench-${word}`, `Bench ${word}`)],
        ] as const) {
          const soap = await postSoap(endpoints, operation, xml);
          if (soap.status !== 200) throw new Error(`SOAP ${operation} answered ${soap.status}: ${soap.text}`);
        }
        await searchUntilFound(endpoints, word);
        lags.push(Date.now() - started);
      }
      for (let i = 0; i < soapBatches; i++) batches.push(await soapBatchRound(endpoints, soapBatch, 7000 + i));
    }
    return {
      engines: server.engines,
      matches: check.body['productCount'] as number,
      one,
      many,
      varied: bodies.length,
      variedOne,
      variedMany,
      page1,
      page100,
      lag: lags.length ? `${percentile(lags, 50)} / ${Math.max(...lags)}` : '—',
      batch: batches.length
        ? `${(
            soapBatch /
            (percentile(
              batches.map((b) => b.ackMs),
              50,
            ) /
              1000)
          ).toFixed(0)} / ${percentile(
            batches.map((b) => b.searchableMs),
            50,
          )} / ${Math.max(...batches.map((b) => b.searchableMs))}`
        : '—',
    };
  } finally {
    await server.close();
  }
}

async function main() {
  const prepared = await prepare();
  const bareServer = await spawnBenchServer('bare');
  const bare = { one: await load(bareServer.url, { connections: 1 }), many: await load(bareServer.url, { connections }) };
  await bareServer.stop();

  const modes: Mode[] = ['embedded'];
  if (process.env['MEILI_URL'] && process.env['MEILI_URL'] !== 'embedded') modes.push('meilisearch');
  const targets: Target[] = prepared.postgres ? ['all-in-one', 'separate'] : ['all-in-one'];
  const only = process.env['BENCH_ONLY']; // e.g. `separate` or `all-in-one:embedded`
  const rows = [];
  for (const target of targets) {
    for (const mode of modes) {
      if (only && !`${target}:${mode}`.includes(only)) continue;
      // The all-in-one writes into the catalog it serves (the SOAP rows): give it a copy, so BENCH_WORK stays as prepared.
      const run = target === 'all-in-one' ? { ...prepared, databaseUrl: copyPglite(prepared.databaseUrl) } : prepared;
      try {
        const reindexMs =
          target === 'all-in-one'
            ? await timeReindex(run.databaseUrl, 'catalog', mode === 'embedded' ? 'embedded' : process.env['MEILI_URL']!)
            : undefined;
        rows.push({ mode, target, reindexMs, ...(await benchSearch(mode, target, run)) });
        console.error(`measured ${target} ${mode}: ${JSON.stringify(rows.at(-1))}`);
      } finally {
        if (run !== prepared) rmSync(run.databaseUrl.replace('pglite://', ''), { recursive: true, force: true });
      }
    }
  }
  if (profileDir) writeFileSync(join(profileDir, 'phases.json'), JSON.stringify(record, null, 2));
  if (!keep) {
    rmSync(work, { recursive: true, force: true });
    if (prepared.postgres) await dropSchema(prepared.postgres.url, prepared.postgres.schema);
  }

  const ratio = (r: Load, b: Load) => (r.rps / b.rps).toFixed(3);
  const out = [
    machineLine(),
    `Command: BENCH_PRODUCTS=${productCount} BENCH_SECONDS=${seconds} BENCH_CONNECTIONS=${connections} BENCH_SOAP_BATCH=${soapBatch} npm run bench:catalog`,
    `Catalog: ${productCount} products, ${prepared.variants} variants (checkout products), applied in ${(prepared.applyMs / 1000).toFixed(1)} s into PGlite` +
      (prepared.postgres ? `, ${(prepared.postgres.applyMs / 1000).toFixed(1)} s into Postgres` : ''),
    '',
    `| server | engines | matches | 1 conn req/s | p50 / p99 ms | ${connections} conn req/s | p50 / p99 ms | req/s ÷ bare (1 / ${connections}) | varied queries: 1 conn req/s, p50 / p99 ms | varied: ${connections} conn req/s, p50 / p99 ms | page 1 vs 100 req/s | reindex s | SOAP → searchable p50 / max ms | SOAP batch of ${soapBatch}: products/s acknowledged / last searchable p50 / max ms |`,
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    `| bare Koa handler | — | — | ${bare.one.rps.toFixed(0)} | ${bare.one.p50} / ${bare.one.p99} | ${bare.many.rps.toFixed(0)} | ${bare.many.p50} / ${bare.many.p99} | 1 / 1 | — | — | — | — | — | — |`,
    ...rows.map(
      (r) =>
        `| POST products (${r.target}, ${r.mode}) | ${r.engines} | ${r.matches} | ${r.one.rps.toFixed(0)} | ${r.one.p50} / ${r.one.p99} | ${r.many.rps.toFixed(0)} | ${r.many.p50} / ${r.many.p99} | ${ratio(r.one, bare.one)} / ${ratio(r.many, bare.many)} | ${r.variedOne.rps.toFixed(0)}, ${r.variedOne.p50} / ${r.variedOne.p99} | ${r.variedMany.rps.toFixed(0)}, ${r.variedMany.p50} / ${r.variedMany.p99} | ${r.page1.rps.toFixed(0)} vs ${r.page100.rps.toFixed(0)} | ${r.reindexMs === undefined ? '—' : (r.reindexMs / 1000).toFixed(1)} | ${r.lag} | ${r.batch} |`,
    ),
    '',
    ...(rows.some((r) => r.one.cpu)
      ? [
          'CPU ms per request of each process (user + system from /proc, load by load):',
          '',
          `| row | one query, 1 conn | one query, ${connections} conn | varied, 1 conn | varied, ${connections} conn | page of 1 | page of 100 |`,
          '|---|---|---|---|---|---|---|',
          ...rows.map((r) => {
            const cell = (l: Load) =>
              l.cpu
                ? Object.entries(l.cpu)
                    .map(([name, ms]) => `${name} ${ms.toFixed(2)}`)
                    .join(', ')
                : '—';
            return `| ${r.target}, ${r.mode} | ${[r.one, r.many, r.variedOne, r.variedMany, r.page1, r.page100].map(cell).join(' | ')} |`;
          }),
          '',
        ]
      : []),
    `Varied queries: ${rows[0]?.varied ?? 0} distinct bodies in turn (search word × two brands × three categories, each from that word's own facets, page of 24), so the kept answers of decision 53 hardly ever answer.`,
  ];
  console.log(out.join('\n'));
}

function copyPglite(databaseUrl: string): string {
  const copy = join(tmpdir(), `commerce-bench-catalog-run-${process.pid}-${Date.now().toString(36)}`);
  cpSync(databaseUrl.replace('pglite://', ''), copy, { recursive: true });
  return `pglite://${copy}`;
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const engine = await createDbEngine(url, { logger });
  await engine.knex.raw('drop schema if exists ?? cascade', [schema]);
  await engine.close();
}

main().catch((e: unknown) => {
  console.error(e);
  if (!keep) rmSync(work, { recursive: true, force: true });
  process.exit(1);
});
