// Applies infra/meilisearch/settings.json and rebuilds the product index from the catalog's tables, with
// a progress bar, without a window in which searches fail or see part of the catalogue: a new index is
// built beside the live one and swapped in (docs/operations.md, "Search").
//   DATABASE_URL=… MEILI_URL=… MEILI_API_KEY=… npx tsx tools/search/reindex.ts
// MEILI_API_KEY falls back to MEILI_MASTER_KEY (as tools/infra/up prints it); the key needs the rights
// to create, swap and delete indexes. SETTINGS_FILE names another settings file.
import { z } from 'zod';
import { env, loadConfig } from '@commerce/shared-config';
import { createDbEngine } from '@commerce/shared-db';
import { runService } from '@commerce/shared-http';
import { createLogger } from '@commerce/shared-logging';
import { loadMeiliSettings, MeiliSearchIndex, MEILI_SETTINGS_PATH, rebuildSearchIndex } from '@commerce/catalog-adapters';

const ConfigSchema = z.object({
  DATABASE_URL: env.databaseUrl,
  DATABASE_SCHEMA: z.string().default('catalog'),
  MEILI_URL: env.meiliUrl.refine((url) => /^https?:\/\//i.test(url), {
    message: 'must be the http(s) URL of Meilisearch (an embedded index is rebuilt by the catalog at every start)',
  }),
  MEILI_API_KEY: z.string().optional(),
  MEILI_MASTER_KEY: z.string().optional(),
  MEILI_INDEX: z.string().default('products'),
  SETTINGS_FILE: z.string().default(MEILI_SETTINGS_PATH),
});

runService('reindex', async () => {
  const config = loadConfig(ConfigSchema);
  const logger = createLogger('reindex', 'warn');
  const settings = loadMeiliSettings(config.SETTINGS_FILE);
  const apiKey = config.MEILI_API_KEY ?? config.MEILI_MASTER_KEY;
  const engine = await createDbEngine(config.DATABASE_URL, { logger });
  // The live index is only read from here on; the settings go to the index that replaces it.
  const live = await MeiliSearchIndex.open(config.MEILI_URL, {
    logger,
    indexName: config.MEILI_INDEX,
    configure: false,
    ...(apiKey ? { apiKey } : {}),
  });
  const started = Date.now();
  const bar = ({ done, total }: { done: number; total: number }) => {
    const width = 30;
    const filled = total > 0 ? Math.min(width, Math.round((done / total) * width)) : width;
    process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} products`);
  };
  const result = await rebuildSearchIndex(
    { db: engine.forSchema(config.DATABASE_SCHEMA), search: live },
    {
      settings,
      onProgress: bar,
      onStep: (step) => {
        if (step.startsWith('staging ')) process.stderr.write(`settings from ${config.SETTINGS_FILE} applied to ${step.slice(8)}\n`);
        else if (step === 'swap') process.stderr.write(`\nswapping it in as ${config.MEILI_INDEX}\n`);
      },
    },
  );
  process.stderr.write(`reindexed ${result.done} products into ${config.MEILI_INDEX} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  await engine.close();
  process.exit(0);
});
