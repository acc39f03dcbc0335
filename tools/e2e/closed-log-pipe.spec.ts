import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './processes';

// `npm start | head -c 100`, or a log collector that restarts: the all-in-one's stdout is a pipe
// whose reader goes away during start-up. The service must go on answering, count what it could not
// log, and stop cleanly on SIGTERM (issue 5).
describe('the all-in-one whose stdout reader went away', () => {
  let child: ChildProcess | undefined;
  let dataDir: string;
  let stderr = '';

  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'closed-log-pipe-'));
  });
  afterAll(() => {
    child?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers /healthz and a checkout request, counts the dropped lines, and exits 0 soon after SIGTERM', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const started = spawn(process.execPath, ['--import', 'tsx', 'apps/all-in-one/src/main.ts'], {
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: process.env['HOME'] ?? '',
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        DATABASE_URL: `pglite://${dataDir}/pg`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = started;
    started.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      started.once('exit', (code, signal) => resolve({ code, signal })),
    );

    // Read a little, as `head -c 100` does, then close our end: the next write gets EPIPE.
    await new Promise<void>((resolve, reject) => {
      started.stdout!.once('data', () => resolve());
      started.once('exit', (code) => reject(new Error(`exited with ${code} before logging: ${stderr}`)));
    });
    started.stdout!.destroy();

    const deadline = Date.now() + 60_000;
    let health: Response | undefined;
    while (!health) {
      if (started.exitCode !== null) throw new Error(`exited with ${started.exitCode}: ${stderr}`);
      if (Date.now() > deadline) throw new Error(`no /healthz within 60 s: ${stderr}`);
      health = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
      if (!health) await new Promise((r) => setTimeout(r, 200));
    }
    expect(health.status).toBe(200);

    const selection = await fetch(`${url}/api/checkout/selection`, { signal: AbortSignal.timeout(5000) });
    expect(selection.status).toBe(200);
    expect(((await selection.json()) as { token?: unknown }).token).toEqual(expect.any(String));

    const metrics = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
    expect(Number(metrics.match(/^log_lines_dropped_total (\d+)$/m)?.[1])).toBeGreaterThan(0);

    const stopAsked = Date.now();
    started.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), 5000)));
    const exit = await Promise.race([exited, hung]).finally(() => clearTimeout(timer));
    expect(exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - stopAsked).toBeLessThan(5000);
    expect(stderr).toBe('');
  }, 90_000);
});
