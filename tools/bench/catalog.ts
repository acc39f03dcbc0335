// The catalog benchmark (issue 6): a generated catalog of BENCH_PRODUCTS products (10,000 by default: names
// with accents and non-Latin scripts, 3 variants × 5 sizes on average, 20 brands, 50 leaf categories),
// then through the full HTTP stack of the all-in-one, on the embedded search engine and on Meilisearch
// (when MEILI_URL is set):
//   - POST products with search + two filters + facets + paging, at 1 and BENCH_CONNECTIONS connections,
//     each as a ratio to a bare Koa handler measured in the same run;
//   - the same request with a page of 1 and of 100 products (facets must cost by matches, not by page);
//   - reindex time of the whole catalog;
//   - SOAP products_Update → searchable through POST products.
//
//   npm run bench:catalog                      (eval "$(tools/infra/up)" first for the Meilisearch rows)
//   BENCH_PRODUCTS=2000 BENCH_SECONDS=5 npm run bench:catalog
//   BENCH_WORK=/tmp/bench-2000 …   keeps the prepared catalog there and reuses it on the next run (applying
//                                  10,000 products takes minutes); delete the folder after a catalog change
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { buildCatalogService, createSearchIndex, parseDemoCatalog, reindexAll } from '@commerce/catalog-adapters';
import { catalogSettings } from '@commerce/catalog-core';
import { createEventBus } from '@commerce/shared-bus';
import { parseStoreConfig } from '@commerce/shared-config';
import { createDbEngine } from '@commerce/shared-db';
import { createLogger } from '@commerce/shared-logging';
import { generateCatalog } from '../demo/catalog-generator';
import { checkoutCall, postSoap, searchUntilFound, skeletonPricelistXml, skeletonProductXml, uniqueWord, type Endpoints } from '../e2e/skeleton.scenario';

const productCount = Number(process.env['BENCH_PRODUCTS'] ?? 10_000);
const seconds = Number(process.env['BENCH_SECONDS'] ?? 10);
const connections = Number(process.env['BENCH_CONNECTIONS'] ?? 32);
const soapRounds = Number(process.env['BENCH_SOAP_ROUNDS'] ?? 10);
const root = resolve(__dirname, '../..');
const keep = process.env['BENCH_WORK'];
const work = keep ? resolve(keep) : join(tmpdir(), `commerce-bench-catalog-${process.pid}`);
const logger = createLogger('bench', 'silent');

interface Started {
  url: string;
  engines?: string;
  child: ChildProcess;
}

async function startServer(mode: string, env: Record<string, string | undefined> = {}): Promise<Started> {
  const child = spawn('node_modules/.bin/tsx', ['tools/bench/serve.ts', mode], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((ok, fail) => {
    lines.once('line', ok);
    child.once('exit', (code) => fail(new Error(`bench server ${mode} exited with ${code}`)));
  });
  return { ...(JSON.parse(first) as { url: string; engines?: string }), child };
}

async function stop(server: Started) {
  server.child.kill('SIGTERM');
  await new Promise((r) => server.child.once('exit', r));
}

interface Load {
  rps: number;
  p50: number;
  p99: number;
}

async function load(url: string, options: { connections: number; method?: 'GET' | 'POST'; body?: string; token?: string }): Promise<Load> {
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: seconds,
    method: options.method ?? 'GET',
    headers: { 'content-type': 'application/json', ...(options.token ? { 'API-Token': options.token } : {}) },
    ...(options.body ? { body: options.body } : {}),
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;

/** Writes the store (demo store + the generated category tree) and applies the catalog into a PGlite folder. */
async function prepare(): Promise<{ databaseUrl: string; storePath: string; applyMs: number; generateMs: number; variants: number }> {
  const kept = join(work, 'prepared.json');
  if (keep && existsSync(kept)) {
    const prepared = JSON.parse(readFileSync(kept, 'utf8')) as Awaited<ReturnType<typeof prepare>> & { products: number };
    if (prepared.products !== productCount) throw new Error(`${work} holds ${prepared.products} products, not ${productCount}: delete it`);
    return prepared;
  }
  const started = Date.now();
  const generated = generateCatalog({ products: productCount, brands: 20, leafCategories: 50 });
  const { categories, swatches, ...entities } = generated;
  const store = { ...JSON.parse(readFileSync(join(root, 'infra/config/demo-store.json'), 'utf8')), categories, swatches };
  mkdirSync(work, { recursive: true });
  const storePath = join(work, 'store.json');
  writeFileSync(storePath, JSON.stringify(store));
  const databaseUrl = `pglite://${join(work, 'pg')}`;

  const engine = await createDbEngine(databaseUrl, { logger });
  const bus = await createEventBus('memory', { clientId: 'bench', logger });
  const search = await createSearchIndex('embedded', { logger });
  const catalog = await buildCatalogService({
    db: engine.forSchema('catalog'),
    bus,
    search,
    logger,
    settings: catalogSettings(parseStoreConfig(store)),
  });
  await catalog.start();
  const applied = Date.now();
  await catalog.seed(parseDemoCatalog(entities));
  const applyMs = Date.now() - applied;
  // Everything published now, so the servers below do not re-index the catalog from its events.
  await catalog.relay.flush();
  await catalog.stop();
  await bus.close();
  await engine.close();
  const prepared = { databaseUrl, storePath, applyMs, generateMs: applied - started, variants: entities.products.reduce((n, p) => n + (p['variations'] as unknown[]).length, 0) };
  if (keep) writeFileSync(kept, JSON.stringify({ ...prepared, products: productCount }));
  return prepared;
}

async function timeReindex(databaseUrl: string, meiliUrl: string): Promise<number> {
  const engine = await createDbEngine(databaseUrl, { logger });
  const search = await createSearchIndex(meiliUrl, { logger, ...(process.env['MEILI_MASTER_KEY'] ? { apiKey: process.env['MEILI_MASTER_KEY'] } : {}) });
  const started = Date.now();
  await reindexAll({ db: engine.forSchema('catalog'), search });
  const ms = Date.now() - started;
  await search.close?.();
  await engine.close();
  return ms;
}

async function benchSearch(mode: 'embedded' | 'meilisearch', prepared: Awaited<ReturnType<typeof prepare>>) {
  const server = await startServer('catalog', {
    BENCH_DATABASE_URL: prepared.databaseUrl,
    BENCH_STORE_CONFIG: prepared.storePath,
    MEILI_URL: mode === 'embedded' ? 'embedded' : process.env['MEILI_URL'],
  });
  try {
    const endpoints: Endpoints = {
      checkout: `${server.url}/api/checkout`,
      soap: `${server.url}/ams/system/service/module/soap/api`,
      soapUser: { username: 'demo', password: 'demo-secret', namespace: 'urn:commerce-service:backoffice' },
    };
    // Two brands and a category that the search word meets, read from the facets themselves.
    const all = await checkoutCall(endpoints, 'POST', '/products', { body: { search: 'shirt', limit: 1 } });
    const token = all.body['token'] as string;
    const facet = (field: string) => ((all.body['filter'] as Array<{ field: string; values: Array<{ value: string }> }>).find((f) => f.field === field)?.values ?? []).map((v) => Number(v.value));
    const body = (limit: number) => JSON.stringify({ search: 'shirt', brands: facet('brands').slice(0, 2), categories: facet('categories').slice(0, 3), skipFirst: 0, limit });
    const check = await checkoutCall(endpoints, 'POST', '/products', { token, body: JSON.parse(body(24)) });
    if (check.status !== 200 || !(check.body['productCount'] > 0)) throw new Error(`the benchmark query finds nothing: ${JSON.stringify(check.body).slice(0, 300)}`);
    const url = `${endpoints.checkout}/products`;
    const one = await load(url, { connections: 1, method: 'POST', body: body(24), token });
    const many = await load(url, { connections, method: 'POST', body: body(24), token });
    const page1 = await load(url, { connections: 1, method: 'POST', body: body(1), token });
    const page100 = await load(url, { connections: 1, method: 'POST', body: body(100), token });

    const lags: number[] = [];
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
    return { engines: server.engines ?? mode, matches: check.body['productCount'] as number, one, many, page1, page100, lagP50: percentile(lags, 50), lagMax: Math.max(...lags) };
  } finally {
    await stop(server);
  }
}

async function main() {
  const prepared = await prepare();
  const bareServer = await startServer('bare');
  const bare = { one: await load(bareServer.url, { connections: 1 }), many: await load(bareServer.url, { connections }) };
  await stop(bareServer);

  const modes: Array<'embedded' | 'meilisearch'> = ['embedded'];
  if (process.env['MEILI_URL'] && process.env['MEILI_URL'] !== 'embedded') modes.push('meilisearch');
  const rows = [];
  for (const mode of modes) {
    const reindexMs = await timeReindex(prepared.databaseUrl, mode === 'embedded' ? 'embedded' : process.env['MEILI_URL']!);
    rows.push({ mode, reindexMs, ...(await benchSearch(mode, prepared)) });
  }
  if (!keep) rmSync(work, { recursive: true, force: true });

  const ratio = (r: Load, b: Load) => (r.rps / b.rps).toFixed(3);
  const out = [
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`,
    `Command: BENCH_PRODUCTS=${productCount} BENCH_SECONDS=${seconds} BENCH_CONNECTIONS=${connections} npm run bench:catalog`,
    `Catalog: ${productCount} products, ${prepared.variants} variants (checkout products), generated in ${prepared.generateMs} ms, applied in ${(prepared.applyMs / 1000).toFixed(1)} s`,
    '',
    `| server | engines | matches | 1 conn req/s | p50 / p99 ms | ${connections} conn req/s | p50 / p99 ms | req/s ÷ bare (1 / ${connections}) | page 1 vs 100 req/s | reindex s | SOAP → searchable p50 / max ms |`,
    '|---|---|---|---|---|---|---|---|---|---|---|',
    `| bare Koa handler | — | — | ${bare.one.rps.toFixed(0)} | ${bare.one.p50} / ${bare.one.p99} | ${bare.many.rps.toFixed(0)} | ${bare.many.p50} / ${bare.many.p99} | 1 / 1 | — | — | — |`,
    ...rows.map(
      (r) =>
        `| POST products (${r.mode}) | ${r.engines} | ${r.matches} | ${r.one.rps.toFixed(0)} | ${r.one.p50} / ${r.one.p99} | ${r.many.rps.toFixed(0)} | ${r.many.p50} / ${r.many.p99} | ${ratio(r.one, bare.one)} / ${ratio(r.many, bare.many)} | ${r.page1.rps.toFixed(0)} vs ${r.page100.rps.toFixed(0)} | ${(r.reindexMs / 1000).toFixed(1)} | ${r.lagP50} / ${r.lagMax} |`,
    ),
  ];
  console.log(out.join('\n'));
}

main().catch((e: unknown) => {
  console.error(e);
  if (!keep) rmSync(work, { recursive: true, force: true });
  process.exit(1);
});
