// Applies infra/meilisearch/settings.json and rebuilds the product index from the catalog's tables,
// with a progress bar:  DATABASE_URL=… MEILI_URL=… npx tsx tools/search/reindex.ts
import { z } from 'zod';
import { env, loadConfig } from '@commerce/shared-config';
import { createDbEngine } from '@commerce/shared-db';
import { runService } from '@commerce/shared-http';
import { createLogger } from '@commerce/shared-logging';
import { createSearchIndex, reindexAll } from '@commerce/catalog-adapters';

const ConfigSchema = z.object({
  DATABASE_URL: env.databaseUrl,
  DATABASE_SCHEMA: z.string().default('catalog'),
  MEILI_URL: env.meiliUrl,
  MEILI_API_KEY: z.string().optional(),
  MEILI_INDEX: z.string().default('products'),
});

runService('reindex', async () => {
  const config = loadConfig(ConfigSchema);
  const logger = createLogger('reindex', 'warn');
  const engine = await createDbEngine(config.DATABASE_URL, { logger });
  const search = await createSearchIndex(config.MEILI_URL, {
    logger,
    indexName: config.MEILI_INDEX,
    ...(config.MEILI_API_KEY ? { apiKey: config.MEILI_API_KEY } : {}),
  });
  const started = Date.now();
  const result = await reindexAll({ db: engine.forSchema(config.DATABASE_SCHEMA), search }, ({ done, total }) => {
    const width = 30;
    const filled = total > 0 ? Math.round((done / total) * width) : width;
    process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} products`);
  });
  process.stderr.write(`\nreindexed ${result.done} products in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  await engine.close();
  process.exit(0);
});
