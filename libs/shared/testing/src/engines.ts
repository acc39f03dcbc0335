import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { cleanUpNamed, rememberName, rememberedCount, rememberedSince, type CleanupTargets } from './cleanup';

/**
 * The real engines an integration suite can run against (DESIGN §7). Each is named by an env var;
 * where it is unset and a Docker engine answers, testcontainers starts one; otherwise the suite is
 * reported as skipped, by name, never silently passed, and in CI (`CI=true`) it fails: a skip there
 * would hide that the engine was never tested.
 *
 * `TESTCONTAINERS=off` never starts a container; `TESTCONTAINERS=only` takes no engine from env (a URL set is
 * a reason the suite cannot run, as a missing Docker engine is), so a run proves the container path. Every
 * container started is logged on stderr (image, address, start time), and every engine a suite gets, from env
 * or a container, is appended as a JSON line to the file `ENGINES_RECORD` names, when set (decision 146).
 */
export type EngineName = 'postgres' | 'redis' | 'kafka' | 'meilisearch';

export const engineEnv: Record<EngineName, string> = {
  postgres: 'DATABASE_URL',
  redis: 'REDIS_URL',
  kafka: 'KAFKA_BROKERS',
  meilisearch: 'MEILI_URL',
};

/** The env var holding an engine's secret, for the engines that have one (`tools/infra/up` prints it). */
export const engineKeyEnv: Partial<Record<EngineName, string>> = {
  meilisearch: 'MEILI_MASTER_KEY',
};

/**
 * The images the harness starts, fully qualified so that Docker and Podman's Docker API find the same ones: the
 * public images on a machine with Docker, those tools/image/engines builds from Debian packages here.
 */
export const engineImages: Record<EngineName, string> = {
  postgres: 'docker.io/library/postgres:15',
  redis: 'docker.io/library/redis:7',
  kafka: 'docker.io/apache/kafka:3.9.1',
  meilisearch: 'docker.io/getmeili/meilisearch:v1.50',
};

let dockerAnswers: boolean | undefined;

// Asks the Docker API itself (GET /_ping on DOCKER_HOST, or on /var/run/docker.sock), so no docker CLI is needed:
// Podman's API answers it as Docker's does. A child process, since a suite is declared synchronously.
const ping = `
const http = require('node:http');
const host = process.env.DOCKER_HOST || 'unix:///var/run/docker.sock';
const target = host.startsWith('unix://') ? { socketPath: host.slice(7) } : (() => {
  const u = new URL(host.replace(/^tcp:/, 'http:'));
  return { host: u.hostname, port: Number(u.port || 2375) };
})();
http.get({ ...target, path: '/_ping', timeout: 10000 }, (res) => process.exit(res.statusCode === 200 ? 0 : 1))
  .on('error', () => process.exit(1)).on('timeout', () => process.exit(1));
`;

/**
 * A Docker engine answers: DOCKER_HOST or the socket names one, and its API answers a ping (a socket left by
 * a stopped engine does not count). Asked once per process.
 */
export function dockerAvailable(): boolean {
  if (dockerAnswers === undefined) {
    const host = process.env['DOCKER_HOST'];
    const named = Boolean(host) || existsSync('/var/run/docker.sock');
    dockerAnswers = named && spawnSync(process.execPath, ['-e', ping], { env: process.env, timeout: 20_000, stdio: 'ignore' }).status === 0;
  }
  return dockerAnswers;
}

/** Where engines come from: `off` never from containers, `only` never from env, `auto` (unset) env first. */
function containerMode(): 'off' | 'only' | 'auto' {
  const value = process.env['TESTCONTAINERS'];
  return value === 'off' || value === 'only' ? value : 'auto';
}

/** The env-named URL of an engine, ignoring the embedded placeholders (`memory`, `embedded`, `pglite://`). */
export function envUrl(name: EngineName): string | undefined {
  const value = process.env[engineEnv[name]]?.trim();
  if (!value || value === 'memory' || value === 'embedded' || value.startsWith('pglite://')) return undefined;
  return value;
}

/** The env-named secret of an engine (e.g. `MEILI_MASTER_KEY`), if any. */
export function envKey(name: EngineName): string | undefined {
  const variable = engineKeyEnv[name];
  return (variable && process.env[variable]?.trim()) || undefined;
}

/** In CI an engine that cannot be had fails its suites instead of skipping them. */
export function failsWhenUnavailable(): boolean {
  return process.env['CI'] === 'true' || process.env['CI'] === '1';
}

/** Why a suite on this engine cannot run here, or undefined when it can. */
export function unavailableReason(name: EngineName): string | undefined {
  const mode = containerMode();
  if (mode === 'only') {
    if (envUrl(name)) return `${engineEnv[name]} is set but TESTCONTAINERS=only takes every engine from a container`;
    return dockerAvailable() ? undefined : `TESTCONTAINERS=only and no Docker engine answers (DOCKER_HOST)`;
  }
  if (envUrl(name)) return undefined;
  if (dockerAvailable() && mode !== 'off') return undefined;
  return `${engineEnv[name]} not set and no Docker engine for testcontainers`;
}

interface Started {
  url: string;
  key?: string;
  stop(): Promise<void>;
}

/** A TCP port free on the host now (testcontainers' own generator is an ES module jest's sandbox cannot load). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * A new broker makes its offsets topic at the first consumer group that asks for a coordinator, which takes
 * seconds a suite's first test would pay for: asked here once (a group coordinator lookup, retried until the
 * topic is there), the broker is as ready as tools/infra's long-running one.
 */
async function warmUpKafka(brokers: string): Promise<void> {
  const { Kafka, logLevel } = await import('kafkajs');
  const admin = new Kafka({ brokers: [brokers], logLevel: logLevel.NOTHING, retry: { retries: 20 } }).admin();
  await admin.connect();
  try {
    await admin.describeGroups(['engines-harness-warm-up']);
  } finally {
    await admin.disconnect();
  }
}

async function startContainer(name: EngineName): Promise<Started> {
  // Loaded only when Docker is there, so unit runs never touch testcontainers.
  const { GenericContainer, Wait, getContainerRuntimeClient } = await import('testcontainers');
  switch (name) {
    case 'postgres': {
      // The test-only settings tools/infra runs with: a throwaway database need not survive a crash.
      const c = await new GenericContainer(engineImages.postgres)
        .withEnvironment({ POSTGRES_USER: 'commerce', POSTGRES_PASSWORD: 'commerce', POSTGRES_DB: 'commerce' })
        .withCommand([
          'postgres',
          '-c',
          'fsync=off',
          '-c',
          'synchronous_commit=off',
          '-c',
          'full_page_writes=off',
          '-c',
          'max_connections=200',
        ])
        .withExposedPorts(5432)
        .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
        .start();
      return {
        url: `postgres://commerce:commerce@${c.getHost()}:${c.getMappedPort(5432)}/commerce`,
        stop: async () => void (await c.stop()),
      };
    }
    case 'redis': {
      const c = await new GenericContainer(engineImages.redis).withExposedPorts(6379).start();
      return { url: `redis://${c.getHost()}:${c.getMappedPort(6379)}`, stop: async () => void (await c.stop()) };
    }
    case 'kafka': {
      // A broker tells its clients the address to reach it at; the image's default (localhost:9092) is not the
      // port the host maps. So the host port is chosen first and advertised on the image's client listener
      // (PLAINTEXT_HOST); its other defaults stay. Partitions as tools/infra makes them, and a small offsets topic:
      // a new broker creates it at the first consumer group, and its default 50 partitions take seconds.
      const host = (await getContainerRuntimeClient()).info.containerRuntime.host;
      const hostPort = await freePort();
      const c = await new GenericContainer(engineImages.kafka)
        .withExposedPorts({ container: 9092, host: hostPort })
        .withEnvironment({
          KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://localhost:29092,PLAINTEXT_HOST://${host}:${hostPort}`,
          KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'true',
          KAFKA_NUM_PARTITIONS: '3',
          KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS: '3',
          KAFKA_TRANSACTION_STATE_LOG_NUM_PARTITIONS: '3',
        })
        .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
        .start();
      const url = `${host}:${hostPort}`;
      await warmUpKafka(url);
      return { url, stop: async () => void (await c.stop()) };
    }
    case 'meilisearch': {
      const key = randomBytes(24).toString('hex');
      const c = await new GenericContainer(engineImages.meilisearch)
        .withEnvironment({ MEILI_MASTER_KEY: key, MEILI_NO_ANALYTICS: 'true', MEILI_MAX_INDEXING_MEMORY: '512MiB' })
        .withExposedPorts(7700)
        .withWaitStrategy(Wait.forHttp('/health', 7700))
        .start();
      return { url: `http://${c.getHost()}:${c.getMappedPort(7700)}`, key, stop: async () => void (await c.stop()) };
    }
  }
}

/** The engines named by env (not containers: those go with what is in them), as clean-up targets. */
export function envCleanupTargets(names: EngineName[] = ['kafka', 'postgres', 'meilisearch']): CleanupTargets {
  const kafkaBrokers = names.includes('kafka') ? envUrl('kafka') : undefined;
  const postgresUrl = names.includes('postgres') ? envUrl('postgres') : undefined;
  const meiliUrl = names.includes('meilisearch') ? envUrl('meilisearch') : undefined;
  return {
    ...(kafkaBrokers ? { kafkaBrokers } : {}),
    ...(postgresUrl ? { postgresUrl } : {}),
    ...(meiliUrl ? { meili: { url: meiliUrl, key: envKey('meilisearch') } } : {}),
  };
}

/** One engine a suite got: from env (its variable) or from a container (its image and address). */
export interface EngineRecord {
  suite: string;
  engine: EngineName;
  source: 'env' | 'container';
  image?: string;
  address: string;
  startMs?: number;
}

function recordEngine(record: EngineRecord): void {
  if (record.source === 'container') {
    process.stderr.write(
      `[engines] ${record.suite}: ${record.engine} from a container of ${record.image} (${record.address}, ${record.startMs} ms)\n`,
    );
  }
  const file = process.env['ENGINES_RECORD'];
  if (file) appendFileSync(file, `${JSON.stringify(record)}\n`);
}

export interface Engines {
  /** The engine's URL (from env, or a container started once for the suite). */
  url(name: EngineName): string;
  /** The engine's secret (`MEILI_MASTER_KEY`), or undefined when it has none. */
  key(name: EngineName): string | undefined;
}

/** Where the names not yet claimed by a suite start (see describeWithEngines). */
let unclaimed = 0;

/**
 * Declares a suite that needs real engines. Inside, `engines.url('postgres')` gives the URL (from env,
 * or a container started once for the suite) and `engines.key('meilisearch')` its key. Where an engine
 * cannot be had, the whole suite is declared skipped with the reason in its name, e.g.
 * `event bus contract on kafka [skipped: KAFKA_BROKERS not set and no Docker engine for testcontainers]`;
 * in CI (`CI=true`) it is declared with one failing test carrying the same reason instead.
 *
 * When the suite ends (after its own `afterAll`s, also when it failed), what the names of the suite (those
 * `uniqueName` made or `rememberName` was told of while the suite was declared or ran) named on the engines env
 * names is deleted: Kafka topics and consumer groups, Postgres schemas, Meilisearch indexes (decision 81).
 */
export function describeWithEngines(title: string, needs: EngineName[], body: (engines: Engines) => void): void {
  const reasons = needs.map(unavailableReason).filter((r): r is string => Boolean(r));
  if (reasons.length > 0) {
    if (failsWhenUnavailable()) {
      describe(`${title} [unavailable in CI: ${reasons.join('; ')}]`, () => {
        it('needs real engines', () => {
          throw new Error(`${title}: ${reasons.join('; ')} (CI=true: an engine CI should provide is missing; a skip would hide it)`);
        });
      });
    } else {
      describe.skip(`${title} [skipped: ${reasons.join('; ')}]`, () => {
        it('needs real engines', () => undefined);
      });
    }
    return;
  }
  const urls = new Map<EngineName, string>();
  const keys = new Map<EngineName, string>();
  const started: Started[] = [];
  describe(title, () => {
    // The names this suite makes: while it is declared, and from its first beforeAll to its last afterAll.
    let declared: string[] = [];
    let runMark = 0;
    beforeAll(async () => {
      runMark = rememberedCount();
      for (const name of needs) {
        const fromEnv = containerMode() === 'only' ? undefined : envUrl(name);
        if (fromEnv) {
          urls.set(name, fromEnv);
          const key = envKey(name);
          if (key) keys.set(name, key);
          recordEngine({ suite: title, engine: name, source: 'env', address: engineEnv[name] });
        } else {
          const began = Date.now();
          const s = await startContainer(name);
          started.push(s);
          urls.set(name, s.url);
          if (s.key) keys.set(name, s.key);
          recordEngine({
            suite: title,
            engine: name,
            source: 'container',
            image: engineImages[name],
            address: s.url,
            startMs: Date.now() - began,
          });
        }
      }
    }, 180_000);
    // Names made at the file's top, before this suite was declared, and not by an earlier suite, are its own.
    const declaredMark = unclaimed;
    body({
      url: (name) => {
        const url = urls.get(name);
        if (!url) throw new Error(`engine ${name} was not declared in describeWithEngines(${JSON.stringify(title)})`);
        return url;
      },
      key: (name) => keys.get(name),
    });
    declared = rememberedSince(declaredMark);
    unclaimed = rememberedCount();
    // Registered after the body's hooks, so it runs after them (its buses and pools closed).
    afterAll(async () => {
      // Every engine env names, not only those the suite needs: a suite may use one when it is there (the
      // separate-processes e2e and Meilisearch).
      const report = await cleanUpNamed(envCleanupTargets(), [...declared, ...rememberedSince(runMark)]);
      if (report.failures.length > 0) process.stderr.write(`${title}: clean-up: ${report.failures.join('; ')}\n`);
    }, 120_000);
    // Last (jest runs afterAll hooks in the order they are declared): the suite's clients are closed by now, so none
    // is left retrying an engine that is gone.
    afterAll(async () => {
      await Promise.all(started.map((s) => s.stop()));
    }, 60_000);
  });
}

/**
 * A unique, valid SQL schema / topic / key prefix for one test, so suites sharing an engine never collide;
 * remembered, so that what it names is deleted when the suite ends (`describeWithEngines`).
 */
export function uniqueName(prefix: string): string {
  return rememberName(
    `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`.replace(/[^a-z0-9_]/gi, '_').toLowerCase(),
  );
}
