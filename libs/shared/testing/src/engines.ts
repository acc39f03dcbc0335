import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * The real engines an integration suite can run against (DESIGN §7). Each is named by an env var;
 * where it is unset and a Docker engine answers, testcontainers starts one; otherwise the suite is
 * reported as skipped, by name, never silently passed.
 */
export type EngineName = 'postgres' | 'redis' | 'kafka' | 'meilisearch';

export const engineEnv: Record<EngineName, string> = {
  postgres: 'DATABASE_URL',
  redis: 'REDIS_URL',
  kafka: 'KAFKA_BROKERS',
  meilisearch: 'MEILI_URL',
};

const images: Record<EngineName, string> = {
  postgres: 'postgres:15',
  redis: 'redis:7',
  kafka: 'apache/kafka:3.9.1',
  meilisearch: 'getmeili/meilisearch:v1.15',
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

/** Why a suite on this engine cannot run here, or undefined when it can. */
export function unavailableReason(name: EngineName): string | undefined {
  if (envUrl(name)) return undefined;
  if (dockerAvailable() && process.env['TESTCONTAINERS'] !== 'off') return undefined;
  return `${engineEnv[name]} not set and no Docker engine for testcontainers`;
}

interface Started {
  url: string;
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
      const c = await new GenericContainer(images.meilisearch).withExposedPorts(7700).start();
      return { url: `http://${c.getHost()}:${c.getMappedPort(7700)}`, stop: async () => void (await c.stop()) };
    }
  }
}

/**
 * Declares a suite that needs real engines. Inside, `engines.url('postgres')` gives the URL (from env,
 * or a container started once for the suite). Where an engine cannot be had, the whole suite is
 * declared skipped with the reason in its name, e.g.
 * `event bus contract on kafka [skipped: KAFKA_BROKERS not set and no Docker engine for testcontainers]`.
 */
export function describeWithEngines(title: string, needs: EngineName[], body: (engines: { url(name: EngineName): string }) => void): void {
  const reasons = needs.map(unavailableReason).filter((r): r is string => Boolean(r));
  if (reasons.length > 0) {
    describe.skip(`${title} [skipped: ${reasons.join('; ')}]`, () => {
      it('needs real engines', () => undefined);
    });
    return;
  }
  const urls = new Map<EngineName, string>();
  const started: Started[] = [];
  describe(title, () => {
    beforeAll(async () => {
      for (const name of needs) {
        const fromEnv = envUrl(name);
        if (fromEnv) urls.set(name, fromEnv);
        else {
          const s = await startContainer(name);
          started.push(s);
          urls.set(name, s.url);
        }
      }
    }, 180_000);
    afterAll(async () => {
      await Promise.all(started.map((s) => s.stop()));
    });
    body({
      url: (name) => {
        const url = urls.get(name);
        if (!url) throw new Error(`engine ${name} was not declared in describeWithEngines(${JSON.stringify(title)})`);
        return url;
      },
    });
  });
}

/** A unique, valid SQL schema / topic / key prefix for one test, so suites sharing an engine never collide. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`.replace(/[^a-z0-9_]/gi, '_').toLowerCase();
}
