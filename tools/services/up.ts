// `npm run services`: the seven services as separate processes on the engines of tools/infra (Postgres, Redis,
// Kafka, and Meilisearch when it runs), the demo catalog sent through SOAP, the addresses printed. Ctrl-C, or
// `tools/services/down` from another shell, stops them.
//
//   tools/infra/up && npm run services
//   SERVICES_PORT_BASE=18800 SERVICES_NAME=mine npm run services   the edge on 18800, the others on 18801-18806;
//                                                                 schemas catalog_mine…, Kafka namespace mine
//   SERVICE_RUNTIME=tsx npm run services                          from the sources (default: the image's bundles)
//
// Engines: DATABASE_URL, REDIS_URL, KAFKA_BROKERS (and MEILI_URL, MEILI_API_KEY or MEILI_MASTER_KEY) from the
// environment, else what `tools/infra/env` prints. Each service's log: tmp/services/<service>.log.
import { createWriteStream, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SHOP_APPS, stopApp } from '../e2e/processes';
import { enginesEnv } from './engines-env';
import { seedDemoCatalog, shopAddresses, startShop, type Shop } from './shop';

const root = resolve(__dirname, '../..');
const dir = resolve(root, 'tmp/services');
const PID_FILE = resolve(dir, 'up.pid');

/** Set once the launcher is asked to stop (Ctrl-C, `tools/services/down`), even while the services still start. */
let stopRequested = false;
let running: Shop | undefined;
let stopping: Promise<void> | undefined;

function stop(code = 0): Promise<void> {
  stopRequested = true;
  if (!running) return Promise.resolve(); // stopped as soon as startShop returns
  const shop = running;
  return (stopping ??= (async () => {
    console.log('\nStopping the services…');
    const codes = await Promise.all(shop.all.map(stopApp));
    rmSync(PID_FILE, { force: true });
    console.log(`Stopped (exit codes ${codes.join(', ')}).`);
    process.exit(code !== 0 || codes.some((c) => c !== 0) ? 1 : 0);
  })());
}

async function main() {
  const env = enginesEnv();
  const missing = ['DATABASE_URL', 'REDIS_URL', 'KAFKA_BROKERS'].filter((name) => !env[name]);
  if (missing.length)
    throw new Error(`${missing.join(', ')} not set and tools/infra/env printed none: start the engines with tools/infra/up`);
  const name = process.env['SERVICES_NAME'] || undefined;
  const portBase = Number(process.env['SERVICES_PORT_BASE'] || 8080);
  const meiliUrl = env['MEILI_URL'];
  const logLevel = process.env['LOG_LEVEL'];
  mkdirSync(dir, { recursive: true });
  writeFileSync(PID_FILE, String(process.pid));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop());
  console.log(`Starting the services (${process.env['SERVICE_RUNTIME'] || 'bundle'})…`);
  running = await startShop({
    engines: { DATABASE_URL: env['DATABASE_URL']!, REDIS_URL: env['REDIS_URL']!, KAFKA_BROKERS: env['KAFKA_BROKERS']! },
    meili: meiliUrl
      ? { url: meiliUrl, apiKey: env['MEILI_API_KEY'] || env['MEILI_MASTER_KEY'], index: name ? `products_${name}` : 'products' }
      : undefined,
    name,
    portBase,
    // The services log at `warn` unless LOG_LEVEL says otherwise (info: a line a request).
    per: logLevel ? Object.fromEntries(SHOP_APPS.map((app) => [app, { LOG_LEVEL: logLevel }])) : {},
  });
  for (const service of running.all) {
    const log = createWriteStream(resolve(dir, `${service.name}.log`), { flags: 'a' });
    log.write(service.output()); // what it wrote while starting
    service.child.stdout!.pipe(log);
    service.child.stderr!.pipe(log);
    service.child.once('exit', (code) => {
      if (!stopping) console.error(`${service.name} exited with ${code}: see tmp/services/${service.name}.log`);
    });
  }
  if (stopRequested) return stop();
  console.log('Sending the demo catalog through SOAP…');
  const products = await seedDemoCatalog(running.endpoints);
  console.log(
    [
      '',
      `  The shop is running as separate processes (${products} demo products listed).`,
      shopAddresses(running),
      '  Logs: tmp/services/<service>.log. Stop: Ctrl-C, or tools/services/down.',
      '',
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  rmSync(PID_FILE, { force: true });
  if (running) void stop(1);
  else process.exit(1);
});
