// The back office's batch benchmark (issue 8): SOAP `products_Update` calls of BENCH_SOAP_BATCH (1,000)
// new generated products (3 variations × 5 sizes on average, every field filled, ~6.6 MB of XML), one
// after the other: products acknowledged per second (the call's `OK`, once the batch is durable), and
// the time from that `OK` until `POST products` finds every variant of the batch (applied by the catalog
// and indexed). On the embedded all-in-one (PGlite, in-memory bus, embedded search), and, when
// DATABASE_URL, REDIS_URL and KAFKA_BROKERS are set, on separate processes: backoffice-soap, catalog,
// cart, account and the checkout-api edge on Postgres (schemas of their own), Kafka and Redis.
//
//   npm run bench:soap-batch                  # BENCH_SOAP_BATCH (1000), BENCH_SOAP_BATCHES (5), BENCH_ONLY=embedded|separate
//   source <(tools/infra/env) && npm run bench:soap-batch
//   BENCH_PROFILE=<dir> …                      # CPU profiles (--cpu-prof) of the server processes there
//   BENCH_LOG=<dir> …                          # separate processes: backoffice-soap's and catalog's debug logs there,
//                                              and with Meilisearch its tasks and documents (meili-tasks.json, meili-docs.json)
//   BENCH_SEARCH=meilisearch|embedded          # separate processes: only on that search engine (default both when
//                                              MEILI_URL names a Meilisearch: the deployment's engine, then the embedded one)
//   BENCH_MEILI_PID=<pid>                      # Meilisearch's CPU per batch (a private one: the shared one serves others too)
//   BENCH_APP_NODE_OPTIONS='backoffice-soap=<options>;catalog=<options>'
//                                              separate processes: Node options of one app, after its deployed ones
//                                              (e.g. a container's heap: `--max-old-space-size=256 --max-semi-space-size=1`)
//   BENCH_GC=1                                 separate processes: backoffice-soap and catalog run with --trace-gc;
//                                              their scavenges, mark-compacts and GC pauses per batch are printed
//
// Separate processes: per batch, its timeline after the `OK` (batch-timeline.ts: the catalog's consumer, its
// transactions' commits, the indexer, each Meilisearch task, the first poll that found the last product).
//
// Measured (`git show 99ce710:docs/benchmarks.md`, "Issue 8 on Meilisearch"): before decision 87 a 1,000-product batch reached
// Meilisearch as 9–12 documents tasks, processed as 6–8 batches one after the other (each with a fixed cost);
// since, 3 tasks and 3 batches, and ~15–20 % less of Meilisearch's CPU (1,290–1,480 ms a batch against
// 1,610–1,820, alternated on a private Meilisearch at load 15–22). The lead's quiet run before it: searchable
// p99 8.0 s on Meilisearch, 3.5–3.8 s on the embedded engine; after it: for the next quiet run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDbEngine } from '@commerce/shared-db';
import { createLogger } from '@commerce/shared-logging';
import { benchAppNodeOptions, benchSetups, cpuMsOf, gcCountsIn, machineLine, memoryMbOf, realInfraEnv, runBench } from './bench-env';
import { spawnBenchServer, startListingEdge } from './bench-servers';
import { batchTimeline, timelineLines } from './batch-timeline';
import { reportMeiliTasks, type MeiliTarget, type MeiliTask } from './meili-tasks';
import { soapBatchRound, soapCatalogSetup, type SoapBatchRound } from './soap-batch-round';
import type { Endpoints } from '../e2e/skeleton.scenario';
import { startApp, serviceRuntime, stopApp, type ServiceProcess } from '../e2e/processes';

const batchSize = Number(process.env['BENCH_SOAP_BATCH'] ?? 1000);
const batches = Number(process.env['BENCH_SOAP_BATCHES'] ?? 5);
const profileDir = process.env['BENCH_PROFILE'];
const soapUser = { username: 'demo', password: 'demo-secret', namespace: 'urn:commerce-service:backoffice' };
const profiling: Record<string, string> = profileDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` } : {};
const logDir = process.env['BENCH_LOG'];
const logging: Record<string, string> = logDir ? { LOG_LEVEL: 'debug' } : {};
const traceGc = process.env['BENCH_GC'] === '1';
/** A separate app's env for its Node options: the profile's, --trace-gc (BENCH_GC) and its own (BENCH_APP_NODE_OPTIONS). */
const nodeOptionsOf = (app: string): Record<string, string> => {
  const options = [profiling['NODE_OPTIONS'], traceGc ? `--require ${join(__dirname, 'trace-gc.cjs')}` : '', benchAppNodeOptions(app)].filter(Boolean).join(' ');
  return options ? { NODE_OPTIONS: options } : {};
};

interface Running {
  endpoints: Endpoints;
  engines: string;
  /** The run's Meilisearch index, when the catalog searches on one: its tasks are summed per batch. */
  meili?: MeiliTarget;
  /** The catalog's log so far (separate processes: at debug, for the batches' timelines). */
  catalogLog?: () => string;
  /** Separate processes: backoffice-soap and catalog, whose CPU, memory and collections are printed per batch. */
  watched?: ServiceProcess[];
  stop(): Promise<void>;
}

type Search = 'meilisearch' | 'embedded';
const meiliUrl = process.env['MEILI_URL'];
const meiliKey = process.env['MEILI_MASTER_KEY'];
/** Meilisearch's pid (a private one, `BENCH_MEILI_PID`): its CPU from sending a batch to searchable is printed per batch. */
const meiliPid = Number(process.env['BENCH_MEILI_PID'] ?? 0) || undefined;
/**
 * The separate processes' search engines to measure: the deployment's Meilisearch when MEILI_URL names
 * one, and the embedded engine; `BENCH_SEARCH=meilisearch|embedded` picks one.
 */
const searches = (): Search[] => {
  const only = process.env['BENCH_SEARCH'];
  const named = Boolean(meiliUrl && /^https?:\/\//.test(meiliUrl));
  return [...(named && only !== 'embedded' ? (['meilisearch'] as const) : []), ...(only !== 'meilisearch' ? (['embedded'] as const) : [])];
};

async function embedded(): Promise<Running> {
  const server = await spawnBenchServer('embedded', profiling);
  return {
    endpoints: { checkout: `${server.url}/api/checkout`, soap: `${server.url}/ams/system/service/module/soap/api`, soapUser },
    engines: `all-in-one: ${server.engines ?? 'embedded'}`,
    stop: server.stop,
  };
}

async function separateProcesses(search: Search): Promise<Running> {
  const suffix = `${process.pid}_${Date.now().toString(36)}`;
  const schemas = ['backoffice', 'catalog', 'cart', 'account'].map((kind) => `bench_soap_${kind}_${suffix}`);
  const [backofficeSchema, catalogSchema, cartSchema, accountSchema] = schemas as [string, string, string, string];
  // Topics and consumer groups of this run's own (realInfraEnv's KAFKA_NAMESPACE): a catalog elsewhere on the same Kafka takes none of its batches.
  const infra: Record<string, string> = realInfraEnv();
  // The index carries the run's namespace, so the bench's clean-up (decision 81) deletes it with the topics.
  const meili: MeiliTarget | undefined =
    search === 'meilisearch'
      ? { url: meiliUrl!, index: `products_${infra['KAFKA_NAMESPACE']!}`, ...(meiliKey ? { key: meiliKey } : {}) }
      : undefined;
  const searchEnv: Record<string, string> = meili
    ? { MEILI_URL: meili.url, MEILI_INDEX: meili.index, ...(meili.key ? { MEILI_API_KEY: meili.key } : {}) }
    : { MEILI_URL: 'embedded' };
  const services: ServiceProcess[] = [];
  const dropSchemas = async () => {
    const engine = await createDbEngine(infra['DATABASE_URL']!, { logger: createLogger('bench', 'silent') });
    for (const schema of schemas) await engine.knex.raw('drop schema if exists ?? cascade', [schema]);
    await engine.close();
  };
  try {
    // All settled: when one fails to start, the others that did are stopped below, not left running.
    const starts = await Promise.allSettled([
      // At debug: its consumers' lines date each batch's steps (batch-timeline.ts; a few lines a batch).
      startApp('catalog', { ...infra, DATABASE_SCHEMA: catalogSchema, ...searchEnv, ...nodeOptionsOf('catalog'), LOG_LEVEL: 'debug' }),
      startApp('cart', { ...infra, DATABASE_SCHEMA: cartSchema }),
      startApp('backoffice-soap', { ...infra, DATABASE_SCHEMA: backofficeSchema, ...nodeOptionsOf('backoffice-soap'), ...logging }),
    ]);
    for (const start of starts) if (start.status === 'fulfilled') services.push(start.value);
    const failed = starts.find((start) => start.status === 'rejected');
    if (failed) throw failed.reason;
    const [catalog, cart, soap] = services as [ServiceProcess, ServiceProcess, ServiceProcess];
    const account = await startApp('account', { ...infra, DATABASE_SCHEMA: accountSchema, CATALOG_URL: catalog.url });
    services.push(account);
    const edge = await startListingEdge(infra, { catalog, cart, account });
    services.push(edge);
    return {
      endpoints: { checkout: `${edge.url}/api/checkout`, soap: `${soap.url}/ams/system/service/module/soap/api`, soapUser },
      engines: `separate processes (${serviceRuntime()}): Postgres, Kafka, Redis sessions, ${meili ? 'Meilisearch' : 'embedded search'}`,
      ...(meili ? { meili } : {}),
      catalogLog: catalog.output,
      watched: [soap, catalog],
      stop: async () => {
        await Promise.all(services.map(stopApp));
        if (logDir) {
          mkdirSync(logDir, { recursive: true });
          for (const service of services) writeFileSync(join(logDir, `${service.name}.log`), service.output());
        }
        await dropSchemas();
      },
    };
  } catch (error) {
    await Promise.all(services.map(stopApp));
    await dropSchemas();
    throw error;
  }
}

/** A watched process's CPU (ms) and collections so far. */
const usageOf = (service: ServiceProcess) => ({ cpuMs: cpuMsOf(service.child.pid) ?? 0, ...gcCountsIn(service.output()) });
/**
 * What a batch cost a watched process (its prices call, the products call and what its relay and consumers did
 * until the batch was searchable): CPU ms, collections (with BENCH_GC) and resident memory now and at its peak (MB).
 */
function usageSince(service: ServiceProcess, before: ReturnType<typeof usageOf>) {
  const now = usageOf(service);
  const memory = memoryMbOf(service.child.pid);
  return {
    cpuMs: now.cpuMs - before.cpuMs,
    ...(traceGc
      ? { scavenges: now.scavenges - before.scavenges, markCompacts: now.markCompacts - before.markCompacts, gcPauseMs: now.pauseMs - before.pauseMs }
      : {}),
    ...(memory ? { rssMb: memory.rss, peakRssMb: memory.peak } : {}),
  };
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)]!;

async function main() {
  const rows: Array<{ engines: string; rounds: SoapBatchRound[] }> = [];
  const separate = searches().map((search) => () => separateProcesses(search));
  for (const start of benchSetups([embedded], separate).flat()) {
    const running = await start();
    try {
      await soapCatalogSetup(running.endpoints);
      const rounds: SoapBatchRound[] = [];
      for (let i = 0; i < batches; i++) {
        const meiliCpu = running.meili ? cpuMsOf(meiliPid) : undefined;
        const before = (running.watched ?? []).map(usageOf);
        rounds.push(await soapBatchRound(running.endpoints, batchSize, 7000 + i));
        const spent = meiliCpu === undefined ? {} : { meiliCpuMs: cpuMsOf(meiliPid)! - meiliCpu };
        const used = Object.fromEntries((running.watched ?? []).map((service, k) => [service.name, usageSince(service, before[k]!)]));
        console.error(`${running.engines}: batch ${i + 1}/${batches} ${JSON.stringify({ ...rounds.at(-1), ...spent, ...used })}`);
      }
      const tasks: MeiliTask[] = running.meili ? await reportMeiliTasks(running.meili, rounds, logDir) : [];
      if (running.catalogLog) {
        const lines = timelineLines(running.catalogLog());
        rounds.forEach((round, i) => console.error(`timeline, batch ${i + 1} (ms after the OK): ${batchTimeline(round, lines, tasks)}`));
      }
      rows.push({ engines: running.engines, rounds });
    } finally {
      await running.stop();
    }
  }
  console.log(
    [
      machineLine(),
      `Command: BENCH_SOAP_BATCH=${batchSize} BENCH_SOAP_BATCHES=${batches} npm run bench:soap-batch`,
      '',
      `| engines | batches of ${batchSize} | products/s acknowledged (p50 batch) | ack ms p50 / max | last searchable after the ack: p50 / p99 / max ms |`,
      '|---|---|---|---|---|',
      ...rows.map(({ engines, rounds }) => {
        const acks = rounds.map((r) => r.ackMs);
        const lags = rounds.map((r) => r.searchableMs);
        return `| ${engines} | ${rounds.length} | ${((batchSize * 1000) / percentile(acks, 50)).toFixed(0)} | ${percentile(acks, 50)} / ${Math.max(...acks)} | ${percentile(lags, 50)} / ${percentile(lags, 99)} / ${Math.max(...lags)} |`;
      }),
    ].join('\n'),
  );
}

runBench(main);
