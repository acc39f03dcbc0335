import { z } from 'zod';
import {
  dbPreparedStatementsEnv,
  env,
  httpServiceEnv,
  kafkaNamingEnv,
  outboxEnv,
  receivedUpsertsRetentionEnv,
  retentionEnv,
} from '@commerce/shared-config';
import { backofficeSoapEnv } from '@commerce/backoffice-adapters';
import { catalogEnv } from '@commerce/catalog-adapters';
import { accountEnv } from '@commerce/account-adapters';
import { checkoutEdgeEnv, corsEnv, geoipEnv, loginGuardEnv, paymentHoldEnv, sessionEnv } from '@commerce/checkout-adapters';
import { paymentEnv } from '@commerce/payment-adapters';
import { orderEnv } from '@commerce/order-adapters';

/** Every variable of the all-in-one, with the embedded defaults of `npm start` (docs/configuration.md is generated from it: `npm run docs:config`). */
export const AllInOneConfigSchema = z.object({
  ...httpServiceEnv(8080),
  // On one's own machine the demo listens on loopback only; HOST=0.0.0.0 to share it.
  HOST: z.string().default('127.0.0.1').describe('Address the HTTP server listens on (loopback: `0.0.0.0` to share the demo).'),
  DATABASE_URL: env.databaseUrl.default('pglite://./data/pg'),
  DB_POOL_MAX: env.dbPoolMax,
  DB_ACQUIRE_TIMEOUT_MS: env.dbAcquireTimeoutMs,
  DB_QUERY_TIMEOUT_MS: env.dbQueryTimeoutMs,
  DB_PREPARED_STATEMENTS: dbPreparedStatementsEnv,
  REDIS_URL: env.redisUrl.default('memory'),
  KAFKA_BROKERS: env.kafkaBrokers.default('memory'),
  ...kafkaNamingEnv(),
  MEILI_URL: env.meiliUrl.default('embedded'),
  STORE_CONFIG: z
    .string()
    .min(1)
    .default('infra/config/demo-store.json')
    .describe('Path of the store configuration (JSON): markets, categories, payment methods, SOAP users, currency formats.'),
  DEMO_CATALOG: z
    .string()
    .default('infra/config/demo-catalog.json')
    .describe(
      'SOAP-shaped entities applied at start (unchanged ones are skipped): an array of products, or `{markets, warehouses, sizes, pricelists, deliverywindows, products}`; empty for none.',
    ),
  STOREFRONT_DIR: z
    .string()
    .default('dist/apps/storefront')
    .describe(
      "The demo shop's built files, served at `/` (`npm start` builds them first with `tools/storefront/build.ts`); empty, or a folder that is missing, serves none.",
    ),
  ...sessionEnv(),
  ...checkoutEdgeEnv(),
  ...retentionEnv(),
  ...outboxEnv(),
  ...receivedUpsertsRetentionEnv(),
  ...backofficeSoapEnv(),
  ...catalogEnv(),
  ...accountEnv(),
  ...loginGuardEnv(),
  ...geoipEnv(),
  ...corsEnv(),
  ...paymentEnv(),
  ...paymentHoldEnv(),
  ...orderEnv(),
});
export type AllInOneConfig = z.infer<typeof AllInOneConfigSchema>;
