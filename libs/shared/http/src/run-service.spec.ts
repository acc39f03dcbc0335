import { spawn } from 'node:child_process';
import path from 'node:path';
import { isStartupFailure } from './run-service';

const root = path.resolve(__dirname, '../../../..');
// node with tsx's loader rather than the tsx CLI: the CLI is a parent process that relays
// signals itself, and these tests are about how the service process answers them.
const node = path.join(root, 'node_modules/.bin/node');
const fixture = path.join(__dirname, 'testing/run-service.fixture.ts');

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the fixture; `whenListening` gets the child once it said it is listening. */
function runFixture(
  scenario: string,
  options: { env?: NodeJS.ProcessEnv; whenListening?: (send: (s: NodeJS.Signals) => void) => void } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, ['--import', 'tsx', fixture, scenario], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'info', ...options.env },
    });
    let stdout = '';
    let stderr = '';
    let told = false;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (!told && stdout.includes('listening') && options.whenListening) {
        told = true;
        options.whenListening((s) => child.kill(s));
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

describe('runService', () => {
  it('prints one line and exits 1 when start throws a ConfigError', async () => {
    const run = await runFixture('config-error');
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toEqual(['fixture: config: DATABASE_URL must be a postgres:// URL (got "foo")']);
  }, 30_000);

  it('prints one line and exits 1 when an engine is unavailable at start', async () => {
    const run = await runFixture('unavailable');
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toEqual(['fixture: session store: cannot reach redis://127.0.0.1:1 (ECONNREFUSED)']);
  }, 30_000);

  it('prints one line for an error flagged startupFailure', async () => {
    const run = await runFixture('flagged');
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toEqual(['fixture: catalog: store config file ./nope.json not found']);
  }, 30_000);

  it('prints one line without the stack for an unexpected start error, and the stack too at LOG_LEVEL=debug', async () => {
    const quiet = await runFixture('crash');
    expect(quiet.code).toBe(1);
    expect(lines(quiet.stderr)).toEqual(['fixture: cannot read properties of undefined']);

    const verbose = await runFixture('crash', { env: { LOG_LEVEL: 'debug' } });
    expect(verbose.code).toBe(1);
    expect(lines(verbose.stderr)[0]).toBe('fixture: cannot read properties of undefined');
    expect(verbose.stderr).toMatch(/TypeError: cannot read properties of undefined\n\s+at /);
  }, 30_000);

  it('on SIGTERM closes once and exits 0', async () => {
    const run = await runFixture('serve', { whenListening: (send) => send('SIGTERM') });
    expect(run.code).toBe(0);
    expect(run.stdout.match(/hooks ran/g)).toHaveLength(1);
  }, 30_000);

  it('exits 1 when close fails', async () => {
    const run = await runFixture('close-fails', { whenListening: (send) => send('SIGINT') });
    expect(run.code).toBe(1);
  }, 30_000);

  it('exits 1 with one line once its grace period is over, when close hangs and no second signal comes', async () => {
    let signalled = 0;
    const run = await runFixture('slow-close', {
      env: { SHUTDOWN_GRACE_MS: '500' },
      whenListening: (send) => {
        signalled = Date.now();
        send('SIGTERM');
      },
    });
    expect(run.code).toBe(1);
    expect(Date.now() - signalled).toBeLessThan(5000);
    expect(lines(run.stderr)).toEqual(['fixture: not stopped after 500 ms; exiting']);
  }, 30_000);

  it('exits at once on a second signal while close hangs', async () => {
    const run = await runFixture('slow-close', {
      whenListening: (send) => {
        send('SIGTERM');
        setTimeout(() => send('SIGTERM'), 300);
      },
    });
    expect(run.code).toBe(1);
  }, 30_000);
});

describe('isStartupFailure', () => {
  it('recognises config errors, *UnavailableError and flagged errors with a one-line message', () => {
    expect(isStartupFailure(Object.assign(new Error('config: PORT must be a number'), { name: 'ConfigError' }))).toBe(true);
    expect(isStartupFailure(Object.assign(new Error('db: cannot reach postgres'), { name: 'DbUnavailableError' }))).toBe(true);
    expect(isStartupFailure(Object.assign(new Error('bad file'), { startupFailure: true }))).toBe(true);
  });

  it('refuses other errors and multi-line messages', () => {
    expect(isStartupFailure(new TypeError('x is undefined'))).toBe(false);
    expect(isStartupFailure(Object.assign(new Error('line one\nline two'), { name: 'ConfigError' }))).toBe(false);
    expect(isStartupFailure('ConfigError')).toBe(false);
  });
});
