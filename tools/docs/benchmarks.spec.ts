import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// docs/benchmarks.md is a map (issue 24): one section per benchmark with its latest run, older runs in git history.
// A `bench:*` script added to package.json without its section, or the page growing back into a log, fails here.
const root = join(__dirname, '..', '..');
const page = readFileSync(join(root, 'docs', 'benchmarks.md'), 'utf8');
const scripts = Object.keys((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);

describe('the benchmarks page (docs/benchmarks.md)', () => {
  it('has a section for every benchmark script of package.json', () => {
    const headings = page.split('\n').filter((line) => line.startsWith('## '));
    // bench:smoke runs the others (described in the page's opening); `bench` is the checkout edge's.
    const benches = scripts.filter((s) => s.startsWith('bench:') && s !== 'bench:smoke');
    const missing = benches.filter((s) => !headings.some((h) => h.includes(`(\`${s}\`)`)));
    if (!headings.some((h) => h.includes('(`npm run bench`)'))) missing.push('bench');
    expect(missing).toEqual([]);
  });

  it('stays a map: under 400 lines, the older runs in git history', () => {
    expect(page.trimEnd().split('\n').length).toBeLessThan(400);
    expect(page).toMatch(/`git show [0-9a-f]{7,40}:docs\/benchmarks\.md`/);
  });
});
