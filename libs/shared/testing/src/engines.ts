import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cleanUpNamed, rememberName, rememberedCount, rememberedSince, type CleanupTargets } from './cleanup';

/**
 * The real engines an integration suite can run against (DESIGN §7). Each is named by an env var;
 * where it is unset and a Docker engine answers, testcontainers starts one; otherwise the suite is
 * reported as skipped, by name, never silently passed, and in CI (`CI=true`) it fails: a skip there
 * would hide that the engine was never tested.
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

const images: Record<EngineName, string> = {
  postgres: 'postgres:15',
  redis: 'redis:7',
  kafka: 'apache/kafka:3.9.1',
  meilisearch: 'getmeili/meilisearch:v1.50',
};

let dockerAnswers: boolean | undefined;

/**
 * A Docker engine answers: DOCKER_HOST or the socket names one, and `docker version` reaches its
 * server (a socket left by a stopped engine does not count). Asked once per process.
 */
export function dockerAvailable(): boolean {
  if (dockerAnswers === undefined) {
    const named = Boolean(process.env['DOCKER_HOST']) || existsSync('/var/run/docker.sock');
    dockerAnswers =
      named && spawnSync('docker', ['version', '--format', '{{.Server.Version}}'], { timeout: 5000, stdio: 'ignore' }).status === 0;
  }
  return dockerAnswers;
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
  if (envUrl(name)) return undefined;
  if (dockerAvailable() && process.env['TESTCONTAINERS'] !== 'off') return undefined;
  return `${engineEnv[name]} not set and no Docker engine for testcontainers`;
}

interface Started {
  url: string;
  key?: string;
  stop(): Promise<void>;
}

async function startContainer(name: EngineName): Promise<Started> {
  // Loaded only when Docker is there, so unit runs never touch testcontainers.
  const { GenericContainer, Wait } = await import('testcontainers');
  switch (name) {
    case 'postgres': {
      const c = await new GenericContainer(images.postgres)
        .withEnvironment({ POSTGRES_USER: 'commerce', POSTGRES_PASSWORD: 'commerce', POSTGRES_DB: 'commerce' })
        .withExposedPorts(5432)
        .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
        .start();
      return {
        url: `postgres://commerce:commerce@${c.getHost()}:${c.getMappedPort(5432)}/commerce`,
        stop: async () => void (await c.stop()),
      };
    }
    case 'redis': {
      const c = await new GenericContainer(images.redis).withExposedPorts(6379).start();
      return { url: `redis://${c.getHost()}:${c.getMappedPort(6379)}`, stop: async () => void (await c.stop()) };
    }
    case 'kafka': {
      const port = 9092;
      const c = await new GenericContainer(images.kafka)
        .withExposedPorts(port)
        .withEnvironment({ KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'true' })
        .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
        .start();
      return { url: `${c.getHost()}:${c.getMappedPort(port)}`, stop: async () => void (await c.stop()) };
    }
    case 'meilisearch': {
      const key = randomBytes(24).toString('hex');
      const c = await new GenericContainer(images.meilisearch)
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
        const fromEnv = envUrl(name);
        if (fromEnv) {
          urls.set(name, fromEnv);
          const key = envKey(name);
          if (key) keys.set(name, key);
        } else {
          const s = await startContainer(name);
          started.push(s);
          urls.set(name, s.url);
          if (s.key) keys.set(name, s.key);
        }
      }
    }, 180_000);
    afterAll(async () => {
      await Promise.all(started.map((s) => s.stop()));
    });
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
