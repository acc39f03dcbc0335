import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { summarise } from './profile-summary';

// A bundle profiled as the benches profile the services (decision 95: esbuild's bundle with its map beside it,
// `node --cpu-prof`): the summary names the sources, not the bundle's lines.
describe('profile-summary on a bundle', () => {
  let dir: string;
  let profiles: string;
  let bundle: string;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'profile-summary-'));
    profiles = path.join(dir, 'prof');
    mkdirSync(path.join(dir, 'src'));
    // Two modules with a function of the same name: esbuild renames one (`spin2`) and keeps `spin` in the map.
    writeFileSync(path.join(dir, 'src', 'other.ts'), 'export function spin(n: number): number {\n  return n + 1;\n}\n');
    writeFileSync(
      path.join(dir, 'src', 'busy.ts'),
      [
        "import { spin as other } from './other';",
        '',
        'export function spin(until: number): number {',
        '  let x = 0;',
        '  while (Date.now() < until) x = (x * 31 + 7) % 1000003;',
        '  return x;',
        '}',
        'console.log(spin(Date.now() + 400), other(1));',
        '',
      ].join('\n'),
    );
    bundle = path.join(dir, 'dist', 'main.js');
    buildSync({
      entryPoints: [path.join(dir, 'src', 'busy.ts')],
      outfile: bundle,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      sourcemap: true,
      logLevel: 'silent',
    });
    const run = spawnSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${profiles}`, '--cpu-prof-interval=200', bundle], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    writeFileSync(
      path.join(profiles, 'phases.json'),
      JSON.stringify({
        pids: { busy: run.pid },
        phases: [{ what: 'spin', connections: 1, startUs: 0, endUs: Number.MAX_SAFE_INTEGER, requests: 1 }],
      }),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names the busy function by its source file, line and own name, not the bundle position', () => {
    const summary = summarise(profiles, 5);
    expect(summary).toContain(`spin ${path.join(dir, 'src', 'busy.ts')}:3`);
    // The bundle's own top-level code (esbuild's wrapper, no source) may still be sampled by its bundle position.
    expect(summary).not.toMatch(/spin\S* \S*main\.js/);
    expect(summary).not.toMatch(/spin2/);
  });

  it('keeps the bundle positions, and says so, when the bundle was rebuilt after the profile', () => {
    const later = new Date(Date.now() + 60_000);
    utimesSync(bundle, later, later);
    const summary = summarise(profiles, 5);
    expect(summary).toMatch(/spin2 .*main\.js:\d+/);
    expect(summary).toContain('main.js: rebuilt after the profile was taken: bundle positions');
    expect(readdirSync(profiles).filter((f) => f.endsWith('.cpuprofile'))).toHaveLength(1);
  });

  it("counts a phase in its own unit (the flow bench's checkouts), with the CPU /proc gave each process", () => {
    const pid = Number(/\.(\d+)\.0\./.exec(readdirSync(profiles).find((f) => f.endsWith('.cpuprofile'))!)![1]);
    writeFileSync(
      path.join(profiles, 'phases.json'),
      JSON.stringify({
        pids: { busy: pid },
        phases: [
          { what: 'checkout, 8 visitors', connections: 8, startUs: 0, endUs: 2e6, requests: 4, unit: 'checkout', cpuMs: { busy: 10 } },
        ],
      }),
    );
    const summary = summarise(profiles, 5);
    expect(summary).toContain('## checkout, 8 visitors, 8 connections: 4 checkouts in 2.0 s');
    expect(summary).toMatch(/- busy \(pid \d+\): busy \d+ ms, [\d.]+ ms a checkout; CPU 10 ms, 2\.500 ms a checkout/);
  });
});
