import { readFileSync, readdirSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { cleanUpRememberedNames, envCleanupTargets } from '@commerce/shared-testing';
import { runKafkaNamespace } from '../e2e/processes';

/** The machine a benchmark ran on, for the first line of its table. */
export const machineLine = (): string =>
  `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;

/** Real engines named by env: Postgres, Redis and Kafka, as `tools/infra/up` prints them. */
export const realEnginesNamed = (): boolean =>
  Boolean(process.env['DATABASE_URL']?.startsWith('postgres') && process.env['REDIS_URL'] && process.env['KAFKA_BROKERS']);

/** The setups to run: embedded, and separate processes when real engines are named; `BENCH_ONLY` picks one. */
export function benchSetups<T>(embedded: T, separate: T): T[] {
  const only = process.env['BENCH_ONLY'];
  return [...(only === 'separate' ? [] : [embedded]), ...(only !== 'embedded' && realEnginesNamed() ? [separate] : [])];
}

/**
 * The environment of a service process on the real engines named by env, with the demo store, in a Kafka
 * namespace of its own for each call (one run's processes share it; see `runKafkaNamespace`).
 */
export const realInfraEnv = (): Record<string, string> => ({
  DATABASE_URL: process.env['DATABASE_URL']!,
  REDIS_URL: process.env['REDIS_URL']!,
  KAFKA_BROKERS: process.env['KAFKA_BROKERS']!,
  KAFKA_NAMESPACE: runKafkaNamespace('bench'),
  STORE_CONFIG: 'infra/config/demo-store.json',
  LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] || 'error',
});

/** Deletes the Kafka topics and consumer groups, and the Meilisearch indexes, named after the namespaces this bench process made (decision 81). */
const cleanUpBenchNamespaces = () => cleanUpRememberedNames(envCleanupTargets(['kafka', 'meilisearch']));

/**
 * Runs a bench's `main`; on its way out, done or failed, deletes what its runs' namespaces named on Kafka
 * (`runKafkaNamespace`, `realInfraEnv`), then exits 1 on failure (the error on stderr) as before.
 */
export function runBench(main: () => Promise<void>): void {
  void main()
    .then(
      () => 0,
      (error: unknown) => {
        console.error(error);
        return 1;
      },
    )
    .then(async (code) => {
      await cleanUpBenchNamespaces();
      if (code !== 0) process.exit(code);
    });
}

/** A bench server's SIGTERM: closes it, deletes its namespace's topics and groups, and exits 0. */
export function closeOnSigterm(close: () => Promise<void>): void {
  process.on(
    'SIGTERM',
    () =>
      void close()
        .then(cleanUpBenchNamespaces)
        .then(() => process.exit(0)),
  );
}

/**
 * CPU time (user + system, ms) a process has used so far, from /proc (Linux, 100 ticks a second); undefined
 * elsewhere: the cost of a request per process, which stays readable on a loaded machine where rates do not.
 */
/** The parent pid of a process, from `/proc/<pid>/stat`. */
const parentOf = (stat: string): number => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);

/** CPU time (ms, user + system) of a process and its children (a Postgres server and its backends), as now running. */
export function cpuMsOfTree(pid: number): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(entry) !== pid && parentOf(stat) !== pid) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

export function cpuMsOf(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** A process's resident memory now and its peak so far (MB, `/proc/<pid>/status` VmRSS and VmHWM); undefined elsewhere. */
export function memoryMbOf(pid: number | undefined): { rss: number; peak: number } | undefined {
  if (!pid) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) };
  } catch {
    return undefined;
  }
}

/**
 * A separate app's own Node options in a bench, `BENCH_APP_NODE_OPTIONS='<app>=<options>;<app>=<options>'`
 * (e.g. `backoffice-soap=--max-old-space-size=256 --max-semi-space-size=1`): after the launcher's deployed ones
 * (`SERVICE_NODE_OPTIONS`), so a V8 flag here wins. Empty for an app not named.
 */
export function benchAppNodeOptions(app: string): string {
  return (process.env['BENCH_APP_NODE_OPTIONS'] ?? '')
    .split(';')
    .filter((entry) => entry.slice(0, entry.indexOf('=')) === app)
    .map((entry) => entry.slice(entry.indexOf('=') + 1))
    .join(' ');
}

/**
 * Garbage collections in a process's `--trace-gc` output so far: scavenges (young generation), mark-compacts (the
 * whole heap) and the pauses they took in all (ms, the first of each line's "<pause> / <external> ms").
 */
export function gcCountsIn(output: string): { scavenges: number; markCompacts: number; pauseMs: number } {
  let scavenges = 0;
  let markCompacts = 0;
  let pauseMs = 0;
  for (const [, kind, pause] of output.matchAll(/ms: (Scavenge|Mark-Compact)\b.*?, ([\d.]+) \/ [\d.]+ ms/g)) {
    if (kind === 'Scavenge') scavenges++;
    else markCompacts++;
    pauseMs += Number(pause);
  }
  return { scavenges, markCompacts, pauseMs: Math.round(pauseMs) };
}
