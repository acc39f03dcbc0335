import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { envKey, envUrl, failsWhenUnavailable, unavailableReason } from './engines';

/** The harness as a fresh module: whether Docker answers is asked once per module instance. */
const freshHarness = (): typeof import('./engines') => {
  let harness: typeof import('./engines') | undefined;
  jest.isolateModules(() => {
    harness = jest.requireActual<typeof import('./engines')>('./engines');
  });
  return harness as typeof import('./engines');
};

/** A process answering a Docker API ping on a unix socket, as Docker and Podman's service do, with `status`. */
async function fakeDockerApi(status: number): Promise<{ host: string; stop(): void }> {
  const socket = join(mkdtempSync(join(tmpdir(), 'docker-api-')), 'api.sock');
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '-e',
      `require('node:http').createServer((q, s) => { s.statusCode = q.url === '/_ping' ? ${status} : 404; s.end('OK'); }).listen(${JSON.stringify(socket)})`,
    ],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 100 && !existsSync(socket); i++) await new Promise((r) => setTimeout(r, 50));
  return { host: `unix://${socket}`, stop: () => void child.kill() };
}

describe('test engine harness', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('uses the URL an env var names', () => {
    process.env['DATABASE_URL'] = 'postgres://u:p@127.0.0.1:5432/db';
    expect(envUrl('postgres')).toBe('postgres://u:p@127.0.0.1:5432/db');
    expect(unavailableReason('postgres')).toBeUndefined();
  });

  it.each([
    ['postgres', 'DATABASE_URL', 'pglite://memory'],
    ['redis', 'REDIS_URL', 'memory'],
    ['kafka', 'KAFKA_BROKERS', 'memory'],
    ['meilisearch', 'MEILI_URL', 'embedded'],
  ] as const)('does not take the embedded placeholder of %s for a real engine', (engine, variable, placeholder) => {
    process.env[variable] = placeholder;
    expect(envUrl(engine)).toBeUndefined();
  });

  it('names the variable when neither it nor a Docker engine is there', () => {
    delete process.env['MEILI_URL'];
    process.env['TESTCONTAINERS'] = 'off';
    expect(unavailableReason('meilisearch')).toBe('MEILI_URL not set and no Docker engine for testcontainers');
  });

  it('takes the Meilisearch key from MEILI_MASTER_KEY, as tools/infra/up prints it', () => {
    process.env['MEILI_MASTER_KEY'] = 'k'.repeat(24);
    expect(envKey('meilisearch')).toBe('k'.repeat(24));
    delete process.env['MEILI_MASTER_KEY'];
    expect(envKey('meilisearch')).toBeUndefined();
    expect(envKey('postgres')).toBeUndefined();
  });

  it('with TESTCONTAINERS=only, refuses an engine URL set in env: the run is to prove the container path', () => {
    process.env['TESTCONTAINERS'] = 'only';
    process.env['KAFKA_BROKERS'] = '127.0.0.1:59092';
    expect(unavailableReason('kafka')).toBe('KAFKA_BROKERS is set but TESTCONTAINERS=only takes every engine from a container');
  });

  it('with TESTCONTAINERS=only and no Docker engine answering, says so instead of falling back', () => {
    process.env['TESTCONTAINERS'] = 'only';
    delete process.env['REDIS_URL'];
    process.env['DOCKER_HOST'] = `unix://${join(tmpdir(), 'no-such-docker.sock')}`;
    expect(freshHarness().unavailableReason('redis')).toBe('TESTCONTAINERS=only and no Docker engine answers (DOCKER_HOST)');
  });

  it('takes a Docker API that answers its ping for a Docker engine, with no docker command on PATH', async () => {
    const api = await fakeDockerApi(200);
    try {
      process.env['DOCKER_HOST'] = api.host;
      process.env['PATH'] = '/nonexistent';
      expect(freshHarness().dockerAvailable()).toBe(true);
    } finally {
      api.stop();
    }
  });

  it('does not take a socket whose server refuses the ping for a Docker engine', async () => {
    const api = await fakeDockerApi(500);
    try {
      process.env['DOCKER_HOST'] = api.host;
      expect(freshHarness().dockerAvailable()).toBe(false);
    } finally {
      api.stop();
    }
  });

  it('fails rather than skips a suite whose engine is missing in CI only', () => {
    process.env['CI'] = 'true';
    expect(failsWhenUnavailable()).toBe(true);
    delete process.env['CI'];
    expect(failsWhenUnavailable()).toBe(false);
  });
});
