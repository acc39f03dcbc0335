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
  LOG_LEVEL: 'error',
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
