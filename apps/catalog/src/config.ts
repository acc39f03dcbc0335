import { z } from 'zod';
import { databaseEnv, env, httpServiceEnv, kafkaNamingEnv, outboxEnv, retentionEnv } from '@commerce/shared-config';
import { catalogEnv } from '@commerce/catalog-adapters';

/** Every variable of the catalog service (docs/configuration.md is generated from it: `npm run docs:config`). */
export const ConfigSchema = z.object({
  ...httpServiceEnv(8082),
  ...databaseEnv('catalog'),
  ...retentionEnv(),
  ...outboxEnv(),
  KAFKA_BROKERS: env.kafkaBrokers,
  ...kafkaNamingEnv(),
  MEILI_URL: env.meiliUrl,
  STORE_CONFIG: z
    .string()
    .min(1)
    .describe('Path of the store configuration (JSON): markets, category tree, swatches, media sizes, currency formats.'),
  ...catalogEnv(),
});
