// The search team's command (issue 26, docs/search.md "The loop"): applies infra/meilisearch/settings.json to
// the live product index without a failed search. It shows how the file differs from the live index, builds
// a new index beside it with every product of the catalog's tables (progress bar: products, percent, rate,
// ETA), runs the judged queries (infra/search/judgements.json) on the live and the new index, and then
//   --report-only      (the default) prints the report and deletes the new index: a dry run;
//   --swap             swaps the new index in, whatever the report;
//   --swap-if-better   swaps it in only when no metric is worse than the live index's beyond the tolerance.
// Searches on the live index are answered throughout (Meilisearch's index swap is atomic).
//   DATABASE_URL=… DATABASE_SCHEMA=catalog MEILI_URL=… MEILI_API_KEY=… MEILI_INDEX=products npm run search:apply -- --swap-if-better
// In the image: node dist/apps/search-apply/main.js --swap-if-better (the Job in infra/k8s/jobs/search-apply.yaml, applied
// through an overlay's jobs/ folder).
// MEILI_API_KEY falls back to MEILI_MASTER_KEY (as tools/infra/up prints it); the key needs the rights to
// create, swap and delete indexes. SETTINGS_FILE names another settings file. Exits 2 when --swap-if-better
// did not swap.
import { parseArgs } from 'node:util';
import { z } from 'zod';
import {
  applySearchSettings,
  createCatalogRepository,
  formatReport,
  JUDGEMENTS_PATH,
  loadBaseline,
  loadJudgements,
  loadMeiliSettings,
  MeiliSearchIndex,
  MEILI_SETTINGS_PATH,
  productsOfVariants,
  BASELINE_PATH,
  progressLine,
  type ApplyMode,
} from '@commerce/catalog-adapters';
import { reindexAll } from '@commerce/catalog-core';
import { env, loadConfig } from '@commerce/shared-config';
import { createDbEngine } from '@commerce/shared-db';
import { createLogger } from '@commerce/shared-logging';

const ConfigSchema = z.object({
  DATABASE_URL: env.databaseUrl,
  DATABASE_SCHEMA: z.string().default('catalog'),
  MEILI_URL: env.meiliUrl.refine((url) => /^https?:\/\//i.test(url), {
    message: 'must be the http(s) URL of Meilisearch (an embedded index follows the settings file at every start)',
  }),
  MEILI_API_KEY: z.string().optional(),
  MEILI_MASTER_KEY: z.string().optional(),
  MEILI_INDEX: z.string().default('products'),
  SETTINGS_FILE: z.string().default(MEILI_SETTINGS_PATH),
});

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      swap: { type: 'boolean', default: false },
      'swap-if-better': { type: 'boolean', default: false },
      'report-only': { type: 'boolean', default: false },
      judgements: { type: 'string', default: JUDGEMENTS_PATH },
    },
  });
  const chosen = (['swap', 'swap-if-better', 'report-only'] as const).filter((m) => values[m]);
  if (chosen.length > 1) throw new Error(`choose one of --swap, --swap-if-better, --report-only (given ${chosen.join(', ')})`);
  const mode: ApplyMode = chosen[0] ?? 'report-only';
  const config = loadConfig(ConfigSchema);
  const logger = createLogger('search-apply', 'warn');
  const settings = loadMeiliSettings(config.SETTINGS_FILE);
  const judgements = loadJudgements(values.judgements);
  const apiKey = config.MEILI_API_KEY ?? config.MEILI_MASTER_KEY;
  const engine = await createDbEngine(config.DATABASE_URL, { logger });
  try {
    const db = engine.forSchema(config.DATABASE_SCHEMA);
    const live = await MeiliSearchIndex.open(config.MEILI_URL, {
      logger,
      indexName: config.MEILI_INDEX,
      configure: false,
      ...(apiKey ? { apiKey } : {}),
    });
    let started = Date.now();
    const result = await applySearchSettings({
      live,
      settings,
      mode,
      judgements,
      productOf: await productsOfVariants(db),
      tolerance: loadBaseline(BASELINE_PATH).tolerance,
      fill: (staging, onProgress) => reindexAll({ catalog: createCatalogRepository(db), search: staging }, onProgress),
      onProgress: (p) => process.stderr.write(`\r${progressLine(p, Date.now() - started)}`),
      onStep: (step) => {
        if (step.startsWith('staging ')) {
          process.stderr.write(`building ${step.slice(8)} beside ${config.MEILI_INDEX} with ${config.SETTINGS_FILE}\n`);
          started = Date.now();
        } else if (step === 'evaluate') process.stderr.write(`\nrunning ${judgements.queries.length} judged queries on both indexes\n`);
        else if (step === 'swap') process.stderr.write(`swapping it in as ${config.MEILI_INDEX}\n`);
      },
    });
    const out: string[] = [];
    out.push(result.changes.length === 0 ? 'settings: the file is what the live index has' : 'settings that change (live -> file):');
    for (const c of result.changes) out.push(`  ${c.setting}: ${JSON.stringify(c.live)} -> ${JSON.stringify(c.file)}`);
    out.push('', formatReport({ [`live ${config.MEILI_INDEX}`]: result.live, [`new ${result.stagingIndex}`]: result.next }));
    out.push(formatReport({}, result.comparison).replaceAll('the baseline', 'the live index'), '');
    out.push(
      result.swapped
        ? `swapped: ${config.MEILI_INDEX} now has the new settings and ${result.progress.done} products`
        : mode === 'swap-if-better'
          ? 'not swapped: the new index is worse than the live one (see above); the live index is unchanged'
          : 'report only: nothing swapped, the new index deleted (run with --swap or --swap-if-better to apply)',
    );
    process.stdout.write(`${out.join('\n')}\n`);
    return mode === 'swap-if-better' && !result.swapped ? 2 : 0;
  } finally {
    await engine.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`search:apply failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
