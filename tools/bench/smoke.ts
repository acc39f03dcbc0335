// Every benchmark once, very short, as a smoke test (issue 28): each `bench` and `bench:*` script of
// package.json, run as written (`npm run <script>`) with SMOKE_ENV below, which shrinks every duration and size
// the benches read, against the engines the environment names (in .ci/run: tools/infra's, Meilisearch
// included). No figure is asserted; a bench that exits non-zero, or runs past SMOKE_TIMEOUT_S, fails it.
//
//   npm run bench:smoke                          every bench, one after the other
//   npm run bench:smoke -- bench:orders bench    only the scripts named
//
// A new bench is smoke-tested once it is a `bench:*` script: give it BENCH_SECONDS (and the other knobs below,
// where they mean the same) or read BENCH_SMOKE=1 for whatever else it would spend time on.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** What each bench reads to size its run, at their smallest useful values: a run proves the bench works, nothing more. */
const SMOKE_ENV: Readonly<Record<string, string>> = {
  BENCH_SMOKE: '1',
  BENCH_SECONDS: '1',
  BENCH_WHOLE_SECONDS: '1',
  BENCH_CONNECTIONS: '2',
  BENCH_REGISTER_CONNECTIONS: '2',
  BENCH_VISITORS: '1',
  BENCH_SOAP_ROUNDS: '1',
  BENCH_SOAP_BATCH: '20',
  BENCH_SOAP_BATCHES: '1',
  BENCH_ROUNDS: '1',
  BENCH_PRODUCTS: '200',
  BENCH_SMALL: '3',
  BENCH_LARGE: '30',
  BENCH_SELECTIONS: '20',
  APPLY_PRODUCTS: '50',
  SEARCH_ROUNDS: '1',
  BENCH_LOG_LEVEL: 'error',
};

const timeoutS = Number(process.env['SMOKE_TIMEOUT_S'] ?? 300);
const root = resolve(__dirname, '../..');

/** The package's benchmark scripts, `bench` first, this one left out. */
function benchScripts(packageJson: { scripts?: Record<string, string> }): string[] {
  return Object.keys(packageJson.scripts ?? {})
    .filter((name) => (name === 'bench' || name.startsWith('bench:')) && name !== 'bench:smoke')
    .sort((a, b) => (a === 'bench' ? -1 : b === 'bench' ? 1 : a.localeCompare(b)));
}

function runScript(script: string): Promise<{ code: number | null; seconds: number }> {
  const started = Date.now();
  return new Promise((resolveRun) => {
    // Its own process group, so a timeout stops the bench and the servers it started.
    const child = spawn('npm', ['run', '--silent', script], {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, ...SMOKE_ENV },
      detached: true,
    });
    const timer = setTimeout(() => {
      console.error(`::: ${script}: still running after ${timeoutS} s, stopped`);
      process.kill(-child.pid!, 'SIGTERM');
      setTimeout(() => child.exitCode === null && process.kill(-child.pid!, 'SIGKILL'), 10_000).unref();
    }, timeoutS * 1000);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolveRun({ code: signal ? 1 : code, seconds: Math.round((Date.now() - started) / 1000) });
    });
  });
}

async function main() {
  const all = benchScripts(JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { scripts?: Record<string, string> });
  const asked = process.argv.slice(2);
  const unknown = asked.filter((name) => !all.includes(name));
  if (unknown.length) throw new Error(`no such bench script: ${unknown.join(', ')} (there are: ${all.join(', ')})`);
  const scripts = asked.length ? asked : all;
  const failed: string[] = [];
  for (const script of scripts) {
    console.log(`::: bench smoke: npm run ${script}`);
    const { code, seconds } = await runScript(script);
    console.log(`::: bench smoke: ${script} ${code === 0 ? 'ok' : `FAILED (exit ${code})`} (${seconds} s)`);
    if (code !== 0) failed.push(script);
  }
  if (failed.length) throw new Error(`bench smoke: ${failed.length} of ${scripts.length} failed: ${failed.join(', ')}`);
  console.log(`bench smoke: all ${scripts.length} ran (${scripts.join(', ')})`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
