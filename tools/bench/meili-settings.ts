// Meilisearch's own time for a SOAP batch's documents under different index settings (decision 87): the
// documents the catalog indexed in a `bench:soap-batch` run (`BENCH_LOG=<dir>` keeps them in
// <dir>/meili-docs.json) are written again, renamed, into fresh indexes, one per variant, alternated
// round by round: a prefill (the catalogue already there), then a batch's documents as the catalog sends
// them (tasks of `MEILI_TASKS` sizes, each waited for, as the indexer does). Prints Meilisearch's
// `duration` of the batch's tasks (median of `MEILI_ROUNDS`), which the machine's load inflates alike for
// every variant of a round.
//
//   source <(tools/infra/env) && npx tsx tools/bench/meili-settings.ts <dir>/meili-docs.json
//   MEILI_ROUNDS (3), MEILI_TASKS (100,400,500: docs are cut in those shares), MEILI_PREFILL (2: batches before),
//   MEILI_PID (a private Meilisearch's pid: its CPU per variant, which the load inflates far less than durations)
import { readFileSync } from 'node:fs';
import { Meilisearch, type Settings } from 'meilisearch';
import { loadMeiliSettings } from '@commerce/catalog-adapters';
import { runKafkaNamespace } from '../e2e/processes';
import { cpuMsOf, runBench } from './bench-env';
import { durationMs } from './meili-tasks';

const url = process.env['MEILI_URL'];
const key = process.env['MEILI_MASTER_KEY'];
const rounds = Number(process.env['MEILI_ROUNDS'] ?? 3);
const shares = (process.env['MEILI_TASKS'] ?? '100,400,500').split(',').map(Number);
const prefill = Number(process.env['MEILI_PREFILL'] ?? 2);
/** A private Meilisearch's pid: its CPU for the batch's tasks is printed beside their durations. */
const meiliPid = Number(process.env['MEILI_PID'] ?? 0) || undefined;

type Doc = Record<string, unknown> & { id: string };

/** The variants: the settings as they were before decision 87, and as they are (infra/meilisearch/settings.json). */
function variants(): Array<{ name: string; settings: Record<string, unknown> }> {
  const now = loadMeiliSettings();
  const before = {
    ...now,
    filterableAttributes: (now['filterableAttributes'] as unknown[]).flatMap((f) =>
      typeof f === 'string' ? [f] : (f as { attributePatterns: string[] }).attributePatterns,
    ),
  };
  delete (before as Record<string, unknown>)['facetSearch'];
  return [
    { name: 'before (every filterable attribute with facet search and comparisons)', settings: before },
    { name: 'infra/meilisearch/settings.json', settings: now },
  ];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const file = process.argv[2];
  if (!url || !/^https?:\/\//.test(url) || !file)
    throw new Error('usage: MEILI_URL=http://… npx tsx tools/bench/meili-settings.ts <meili-docs.json>');
  const docs = JSON.parse(readFileSync(file, 'utf8')) as Doc[];
  const client = new Meilisearch({ host: url, ...(key ? { apiKey: key } : {}), defaultWaitOptions: { timeout: 300_000, interval: 10 } });
  const run = runKafkaNamespace('meili-settings'); // remembered: runBench deletes the indexes named after it
  const renamed = (tag: string) => docs.map((d) => ({ ...d, id: `${tag}${d.id}` }));
  const results = new Map<string, number[]>();
  const cpus = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    for (const [v, variant] of variants().entries()) {
      const uid = `${run}_${round}_${v}`;
      await client.createIndex(uid, { primaryKey: 'id' }).waitTask();
      const index = client.index<Doc>(uid);
      const set = await index.updateSettings(variant.settings as Settings).waitTask();
      if (set.status !== 'succeeded') throw new Error(`${variant.name}: settings ${set.status}: ${set.error?.message}`);
      for (let p = 0; p < prefill; p++) await index.addDocuments(renamed(`p${p}_`), { primaryKey: 'id' }).waitTask();
      const batch = renamed('b_');
      const total = shares.reduce((a, b) => a + b, 0);
      let at = 0;
      let spent = 0;
      const cpuBefore = cpuMsOf(meiliPid);
      for (const share of shares) {
        const part = batch.slice(at, at + Math.round((share / total) * batch.length));
        at += part.length;
        const task = await index.addDocuments(part, { primaryKey: 'id' }).waitTask();
        if (task.status !== 'succeeded') throw new Error(`${variant.name}: ${task.status}: ${task.error?.message}`);
        spent += durationMs(task.duration);
      }
      const cpu = cpuBefore === undefined ? undefined : cpuMsOf(meiliPid)! - cpuBefore;
      results.set(variant.name, [...(results.get(variant.name) ?? []), spent]);
      if (cpu !== undefined) cpus.set(variant.name, [...(cpus.get(variant.name) ?? []), cpu]);
      console.error(`round ${round + 1}: ${variant.name}: ${spent.toFixed(0)} ms${cpu === undefined ? '' : `, CPU ${cpu} ms`}`);
      await client.deleteIndex(uid).waitTask();
    }
  }
  const all = (xs: number[]) => `${median(xs).toFixed(0)} (${xs.map((x) => x.toFixed(0)).join(', ')})`;
  console.log(
    `| settings | ${docs.length} documents in tasks of shares ${shares.join(':')} after ${prefill} such batches: Meilisearch ms, median of ${rounds} (all) | its CPU ms, median (all) |`,
  );
  console.log('|---|---|---|');
  for (const [name, spent] of results) console.log(`| ${name} | ${all(spent)} | ${cpus.has(name) ? all(cpus.get(name)!) : '–'} |`);
}

runBench(main);
