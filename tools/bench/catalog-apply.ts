// How fast the catalog applies a SOAP `products_Update` batch (issue 6 part 1): generated products (3
// variants × 5 sizes on average, as the catalog benchmark's) published on `backoffice.upsert.v1` as
// backoffice-soap does (one ProductUpsertReceived per product, one request id per batch), then consumed by
// the catalog service on PGlite (or DATABASE_URL) with the in-memory bus and the embedded search engine.
// Reports the time until every product is applied and indexed (the bus drained), per product, for a first
// apply (inserts) and a second apply of the same batches with new names (updates).
//
//   npx tsx tools/bench/catalog-apply.ts                       # APPLY_PRODUCTS (1000), APPLY_BATCH (1000)
//   DATABASE_URL=postgres://… npx tsx tools/bench/catalog-apply.ts
//   APPLY_STATEMENTS=1 …                                      # and the SQL statements: count and ms by kind
//   APPLY_PG_PID=<postmaster pid> DATABASE_URL=…              # and Postgres's CPU (its processes', from /proc): a private server
//   APPLY_PG_PID=… APPLY_STATEMENTS=1 …                       # one connection, and each statement's backend CPU (ms) beside its wall ms
//   APPLY_ALONE=<rounds> …                                    # the apply's transaction alone (no bus, no indexer), rounds of
//                                                              new products and of the same renamed, in turn: wall and CPU each
//
// Relative numbers: run before and after a change in one session on the same machine.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { ProductUpsertReceived, SoapProductSchema, type SoapProduct } from '@commerce/erp-contracts';
import { buildCatalogService, createCatalogRepository, createSearchIndex, parseDemoCatalog } from '@commerce/catalog-adapters';
import { applyProductUpserts, catalogSettings } from '@commerce/catalog-core';
import { createMemoryBus } from '@commerce/shared-bus';
import { parseStoreConfig } from '@commerce/shared-config';
import { createDbEngine } from '@commerce/shared-db';
import { createLogger } from '@commerce/shared-logging';
import { generateCatalog } from '../demo/catalog-generator';

const productCount = Number(process.env['APPLY_PRODUCTS'] ?? 1000);
const batchSize = Number(process.env['APPLY_BATCH'] ?? 1000);
const databaseUrl = process.env['DATABASE_URL'] ?? 'pglite://memory';
const root = resolve(__dirname, '../..');
const logger = createLogger('bench', 'silent');

const pgPid = Number(process.env['APPLY_PG_PID'] ?? 0);

/** CPU ms (user + system) of one process, from /proc (0 once it is gone). */
function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, USER_HZ
  } catch {
    return 0;
  }
}

/** CPU ms (user + system) of the postmaster APPLY_PG_PID and its children now (0 without it): backends, WAL writer, checkpointer. */
function postgresCpuMs(): number {
  if (!pgPid) return 0;
  const ticks = 100; // USER_HZ
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(entry) !== pgPid && Number(fields[1]) !== pgPid) continue; // fields[1]: the parent's pid
      total += Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      // gone meanwhile
    }
  }
  return (total * 1000) / ticks;
}

async function main() {
  const generated = generateCatalog({ products: productCount, brands: 20, leafCategories: 50 });
  const { categories, swatches, ...entities } = generated;
  const store = { ...JSON.parse(readFileSync(join(root, 'infra/config/demo-store.json'), 'utf8')), categories, swatches };
  const demo = parseDemoCatalog({ ...entities, products: [] });
  const products = SoapProductSchema.array().parse(entities.products);

  // Statements with the backend's CPU: one connection, so each statement's CPU is read from its one backend.
  const perStatementCpu = Boolean(process.env['APPLY_STATEMENTS'] && pgPid && !databaseUrl.startsWith('pglite'));
  const aloneRounds = Number(process.env['APPLY_ALONE'] ?? 0);
  const oneConnection = perStatementCpu || (aloneRounds > 0 && !databaseUrl.startsWith('pglite'));
  const engine = await createDbEngine(databaseUrl, { logger, ...(oneConnection ? { poolMax: 1 } : {}) });
  const schema = `bench_apply_${process.pid}`;
  const db = engine.forSchema(databaseUrl.startsWith('pglite') ? 'catalog' : schema);
  // The bus says when a handler fails or an event is dead-lettered: a run that lost events must not pass as a fast one.
  const bus = createMemoryBus({ logger: createLogger('bench-bus', 'warn') });
  const search = await createSearchIndex('embedded', { logger });
  const catalog = await buildCatalogService({ db, bus, search, logger, settings: catalogSettings(parseStoreConfig(store)) });
  await catalog.start();
  await catalog.seed(demo); // markets, warehouses, sizes, pricelists, delivery windows
  await bus.drain();

  // Statements by their first words and table (knex's query events: from sending to the answer).
  const statements = new Map<string, { count: number; ms: number; cpuMs: number }>();
  if (process.env['APPLY_STATEMENTS']) {
    const backend = perStatementCpu ? Number((await db.knex.raw('select pg_backend_pid() as pid')).rows[0].pid) : 0;
    const backendCpuMs = () => (backend ? processCpuMs(backend) : 0);
    const started = new Map<string, { kind: string; at: number; cpu: number }>();
    const kindOf = (sql: string) =>
      sql
        .replace(/\s+/g, ' ')
        .replace(/"?[a-z_0-9]+"?\."([a-z_]+)"/g, '$1')
        .slice(0, 70);
    db.knex.on('query', (q: { __knexQueryUid: string; sql: string }) =>
      started.set(q.__knexQueryUid, { kind: kindOf(q.sql), at: performance.now(), cpu: backendCpuMs() }),
    );
    db.knex.on('query-response', (_r: unknown, q: { __knexQueryUid: string }) => {
      const s = started.get(q.__knexQueryUid);
      if (!s) return;
      started.delete(q.__knexQueryUid);
      const entry = statements.get(s.kind) ?? { count: 0, ms: 0, cpuMs: 0 };
      entry.count += 1;
      entry.ms += performance.now() - s.at;
      entry.cpuMs += backendCpuMs() - s.cpu;
      statements.set(s.kind, entry);
    });
  }
  const printStatements = (label: string) => {
    if (!process.env['APPLY_STATEMENTS']) return;
    console.log(`statements of the ${label} round (count, ms${perStatementCpu ? ', backend CPU ms' : ''}):`);
    const key = perStatementCpu ? 'cpuMs' : 'ms';
    for (const [kind, { count, ms, cpuMs }] of [...statements].sort((a, b) => b[1][key] - a[1][key]).slice(0, 25))
      console.log(
        `${String(count).padStart(6)} ${ms.toFixed(0).padStart(7)}${perStatementCpu ? cpuMs.toFixed(0).padStart(7) : ''}  ${kind}`,
      );
    statements.clear();
  };

  // The process's CPU over each round (the catalog, its PGlite and the bus all run in it): on a loaded
  // machine the wall time mostly waits for a core, the CPU time much less so.
  if (aloneRounds > 0) {
    // The use case's transaction alone, as the upsert consumer runs it (the consumer's dedupe rows aside).
    await catalog.stop(); // the consumers idle: the rounds call the use case
    const repository = createCatalogRepository(db);
    // APPLY_PARTS: the part sizes the rounds take in turn (decision 110; 0: the whole batch written at the end).
    const parts = (process.env['APPLY_PARTS'] ?? '').split(',').filter(Boolean).map(Number);
    // Postgres's CPU for the transaction: its one backend's, from /proc (this process's connection alone).
    const backend = databaseUrl.startsWith('pglite') ? 0 : Number((await db.knex.raw('select pg_backend_pid() as pid')).rows[0].pid);
    const backendCpuMs = () => (backend ? processCpuMs(backend) : 0);
    const rows: string[] = [];
    const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
    const rounds = new Map<string, { wall: number[]; cpu: number[]; pg: number[] }>();
    for (let r = 0; r < aloneRounds; r++) {
      const part = parts.length ? parts[r % parts.length] : undefined;
      const fresh = products.map((p) => ({
        ...p,
        id: `${p.id}-r${r}`,
        variations: p.variations?.map((v) => ({ ...v, id: `${v.id}-r${r}` })),
      }));
      for (const [kind, list] of [
        ['new', fresh],
        ['renamed', fresh.map((p) => ({ ...p, description: `${p.description ?? p.id} II` }))],
      ] as const) {
        const pg = backendCpuMs();
        const cpu = process.cpuUsage();
        const started = performance.now();
        for (let i = 0; i < list.length; i += batchSize)
          await applyProductUpserts(
            { catalog: repository, ...(part === undefined ? {} : { writePartProducts: part }) },
            list.slice(i, i + batchSize),
          );
        const wall = performance.now() - started;
        const used = process.cpuUsage(cpu);
        const label = `${kind}${part === undefined ? '' : `, parts of ${part}`}`;
        const entry = rounds.get(label) ?? { wall: [], cpu: [], pg: [] };
        rounds.set(label, entry);
        entry.wall.push(wall);
        entry.cpu.push((used.user + used.system) / 1000);
        entry.pg.push(backendCpuMs() - pg);
        rows.push(`| ${r + 1} ${label} | ${wall.toFixed(0)} | ${entry.cpu.at(-1)!.toFixed(0)} | ${entry.pg.at(-1)!.toFixed(0)} |`);
      }
    }
    await bus.close();
    if (!databaseUrl.startsWith('pglite')) await db.knex.raw('drop schema if exists ?? cascade', [schema]);
    await engine.close();
    console.log(`Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, ${databaseUrl.split(':')[0]}`);
    console.log(`the apply's transaction alone: ${productCount} products in batches of ${batchSize}, ${aloneRounds} rounds`);
    console.log(`| round | wall ms | CPU ms of the process | CPU ms of its Postgres backend |`);
    console.log(`|---|---|---|---|`);
    for (const row of rows) console.log(row);
    for (const [label, { wall, cpu, pg }] of rounds)
      console.log(`| median ${label} | ${median(wall).toFixed(0)} | ${median(cpu).toFixed(0)} | ${median(pg).toFixed(0)} |`);
    return;
  }

  const cpuMs: number[] = [];
  const pgMs: number[] = [];
  const round = async (list: SoapProduct[]): Promise<number> => {
    const pg = postgresCpuMs();
    const cpu = process.cpuUsage();
    const started = Date.now();
    for (let i = 0; i < list.length; i += batchSize) {
      const requestId = randomUUID();
      await bus.publish(list.slice(i, i + batchSize).map((p) => ProductUpsertReceived.envelopeOf(p, requestId)));
    }
    await bus.drain();
    await catalog.relay.flush();
    await bus.drain();
    const used = process.cpuUsage(cpu);
    cpuMs.push((used.user + used.system) / 1000);
    pgMs.push(postgresCpuMs() - pg);
    return Date.now() - started;
  };
  statements.clear();
  const insertMs = await round(products);
  printStatements('first');
  const updateMs = await round(products.map((p) => ({ ...p, description: `${p.description ?? p.id} II` })));
  printStatements('renamed');
  const count = (await catalog.useCases.searchProducts({ limit: 1 }, {})).productCount;

  await catalog.stop();
  await bus.close();
  if (!databaseUrl.startsWith('pglite')) await db.knex.raw('drop schema if exists ?? cascade', [schema]);
  await engine.close();
  const per = (ms: number) => (ms / productCount).toFixed(2);
  console.log(`Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, ${databaseUrl.split(':')[0]}`);
  console.log(`${productCount} products in batches of ${batchSize} (${count} searchable variants)`);
  const pgColumn = (i: number) => (pgPid ? ` ${(pgMs[i]! / 1000).toFixed(2)} |` : '');
  console.log(`| apply | total s | ms a product | products/s | CPU s of the process |${pgPid ? ' CPU s of Postgres |' : ''}`);
  console.log(`|---|---|---|---|---|${pgPid ? '---|' : ''}`);
  console.log(
    `| first (insert) | ${(insertMs / 1000).toFixed(1)} | ${per(insertMs)} | ${((productCount * 1000) / insertMs).toFixed(0)} | ${(cpuMs[0]! / 1000).toFixed(2)} |${pgColumn(0)}`,
  );
  console.log(
    `| again, renamed (update) | ${(updateMs / 1000).toFixed(1)} | ${per(updateMs)} | ${((productCount * 1000) / updateMs).toFixed(0)} | ${(cpuMs[1]! / 1000).toFixed(2)} |${pgColumn(1)}`,
  );
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
