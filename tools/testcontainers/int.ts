/**
 * `npm run test:int:containers [-- jest options]`: the integration suites once through testcontainers, with no
 * engine taken from env (decision 146). The engine variables (DATABASE_URL, REDIS_URL, KAFKA_BROKERS, MEILI_URL
 * and the keys) are removed from the suites' environment and TESTCONTAINERS=only makes the harness refuse any;
 * CI=true makes a suite that cannot get its engines fail instead of skipping. Every engine a suite gets is
 * recorded (ENGINES_RECORD), and the run fails unless each of Postgres, Redis, Kafka and Meilisearch came from a
 * container and none from anywhere else.
 *
 * With Docker (DOCKER_HOST set, or /var/run/docker.sock) it uses that engine and the public images. Without, it
 * builds the engine images here (tools/image/engines, nothing when they are up to date) and starts Podman's
 * Docker API (tools/image/docker-api), which it stops at the end if it started it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { engineEnv, engineKeyEnv, type EngineName } from '@commerce/shared-testing';
import { readRecords, recordProblems, recordSummary } from './engine-record';

const root = resolve(__dirname, '../..');
const recordFile = join(root, 'tmp', 'testcontainers', 'engines.jsonl');
const engines = Object.keys(engineEnv) as EngineName[];

const tool = (name: string, ...args: string[]) => {
  const result = spawnSync(join(root, 'tools', 'image', name), args, { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  return { ok: result.status === 0, stdout: result.stdout ?? '' };
};

function podmanApi(): { env: Record<string, string>; stop: () => void } {
  if (!tool('engines').ok) throw new Error('tools/image/engines failed: the engine images could not be built');
  const wasRunning = tool('docker-api', 'status').ok;
  const up = tool('docker-api', 'up');
  if (!up.ok) throw new Error('tools/image/docker-api up failed');
  const env = Object.fromEntries([...up.stdout.matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1] as string, m[2] as string]));
  let stopped = wasRunning;
  const stop = () => {
    if (!stopped) tool('docker-api', 'down');
    stopped = true;
  };
  return { env, stop };
}

function main(): number {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of engines) {
    delete env[engineEnv[name]];
    const key = engineKeyEnv[name];
    if (key) delete env[key];
  }
  delete env['MEILI_API_KEY'];
  const docker = Boolean(process.env['DOCKER_HOST']) || existsSync('/var/run/docker.sock');
  const api = docker ? undefined : podmanApi();
  rmSync(recordFile, { force: true });
  mkdirSync(join(root, 'tmp', 'testcontainers'), { recursive: true });
  Object.assign(env, api?.env ?? {}, { TESTCONTAINERS: 'only', CI: 'true', ENGINES_RECORD: recordFile });
  const stopApi = () => api?.stop();
  process.once('SIGINT', stopApi);
  process.once('SIGTERM', stopApi);
  let jest;
  try {
    process.stderr.write(`[int:containers] jest --selectProjects int through ${env['DOCKER_HOST'] ?? '/var/run/docker.sock'}\n`);
    // --forceExit: every container is gone when the suites end, and a client a suite left open would retry it forever
    // and keep jest alive. --selectProjects last: it takes every value after it.
    const args = [require.resolve('jest/bin/jest'), '--forceExit', ...process.argv.slice(2), '--selectProjects', 'int'];
    jest = spawnSync(process.execPath, args, {
      cwd: root,
      env,
      stdio: 'inherit',
    });
  } finally {
    stopApi();
  }
  const records = readRecords(recordFile);
  const problems = recordProblems(records);
  process.stderr.write(`[int:containers] containers started: ${recordSummary(records)}\n`);
  for (const problem of problems) process.stderr.write(`[int:containers] FAILED: ${problem}\n`);
  return jest.status === 0 && problems.length === 0 ? 0 : 1;
}

process.exitCode = main();
