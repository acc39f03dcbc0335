import { z } from 'zod';
import { dbServiceEnv, env, kafkaNamingEnv, outboxEnv, retentionEnv } from '@commerce/shared-config';
import { accountEnv } from '@commerce/account-adapters';

/** Every variable of the account service (docs/configuration.md is generated from it: `npm run docs:config`). */
export const ConfigSchema = z.object({
  ...dbServiceEnv('account', 8083),
  ...accountEnv(),
  ...outboxEnv(),
  ...retentionEnv(),
  STORE_CONFIG: z
    .string()
    .min(1)
    .describe('Path of the store configuration (JSON): its `frontendUrl` is the base of password-reset links.'),
  KAFKA_BROKERS: env.kafkaBrokers,
  ...kafkaNamingEnv(),
  CATALOG_URL: env.url.describe("The catalog service's internal address (the stock of an item a customer waits for)."),
});
