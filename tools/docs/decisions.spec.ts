import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { decisionNumbers, entryProblems, PAGE, parseDecisions, readPage, REGENERATE_COMMAND, withIndex } from './decisions-index';

// docs/decisions.md is an index of the decisions in force, grouped by topic (issue 24). The entries carry their own
// status and topic; the index is generated from them; and every "decision N" the code and the docs cite exists.
const root = join(__dirname, '..', '..');
const page = readPage();
const decisions = parseDecisions(page);

/** The files whose comments and prose may cite a decision. */
function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name === 'tmp' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sources(path, out);
    else if (/\.(ts|tsx|js|mjs|md|yaml|yml|sh)$/.test(name) || !name.includes('.')) out.push(path);
  }
  return out;
}

describe('the decisions (docs/decisions.md)', () => {
  it('has a status and a topic under every heading, and statuses name later decisions', () => {
    expect(decisions.length).toBeGreaterThan(100);
    expect(entryProblems(decisions)).toEqual([]);
  });

  it('has the index its entries generate', () => {
    if (withIndex(page) !== page) throw new Error(`The index of ${PAGE} is stale: run \`${REGENERATE_COMMAND}\` and commit ${PAGE}.`);
  });

  it('marks the entries later decisions replaced', () => {
    const superseded = decisions.filter((d) => d.status.startsWith('superseded')).map((d) => d.number);
    // Decision 6 (no GeoIP) and 9 (no pricelists yet) were the stale ones issue 24 found unmarked.
    expect(superseded).toEqual(expect.arrayContaining([6, 9]));
  });

  it('resolves every decision the code and the docs cite', () => {
    const dangling: string[] = [];
    for (const dir of ['apps', 'libs', 'tools', 'docs', 'infra', '.ci'])
      for (const file of sources(join(root, dir))) {
        const text = readFileSync(file, 'utf8');
        for (const n of decisionNumbers(text)) if (n < 1 || n > decisions.length) dangling.push(`${relative(root, file)}: decision ${n}`);
      }
    for (const n of decisionNumbers(readFileSync(join(root, 'README.md'), 'utf8')))
      if (n < 1 || n > decisions.length) dangling.push(`README.md: decision ${n}`);
    expect(dangling).toEqual([]);
  });
});
