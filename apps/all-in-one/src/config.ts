import { z } from 'zod';
import { env, httpServiceEnv, kafkaNamingEnv, outboxEnv, receivedUpsertsRetentionEnv, retentionEnv } from '@commerce/shared-config';
import { backofficeSoapEnv } from '@commerce/backoffice-adapters';
import { catalogEnv } from '@commerce/catalog-adapters';
import { accountEnv } from '@commerce/account-adapters';
import { corsEnv, geoipEnv, loginGuardEnv, paymentHoldEnv, sessionEnv } from '@commerce/checkout-adapters';
import { paymentEnv } from '@commerce/payment-adapters';
import { orderEnv } from '@commerce/order-adapters';

/** Every variable of the all-in-one, with the embedded defaults of `npm start`. */
export const AllInOneConfigSchema = z.object({
  ...httpServiceEnv(8080),
  // On one's own machine the demo listens on loopback only; HOST=0.0.0.0 to share it.
  HOST: z.string().default('127.0.0.1'),
  DATABASE_URL: env.databaseUrl.default('pglite://./data/pg'),
  DB_POOL_MAX: env.dbPoolMax,
  DB_ACQUIRE_TIMEOUT_MS: env.dbAcquireTimeoutMs,
  REDIS_URL: env.redisUrl.default('memory'),
  KAFKA_BROKERS: env.kafkaBrokers.default('memory'),
  ...kafkaNamingEnv(),
  MEILI_URL: env.meiliUrl.default('embedded'),
  MEILI_API_KEY: z.string().optional(),
  /** The Meilisearch index (uid) of the products, as the catalog service's `MEILI_INDEX`. */
  MEILI_INDEX: z.string().default('products'),
  STORE_CONFIG: z.string().min(1).default('infra/config/demo-store.json'),
  /**
   * The demo catalog applied at start (unchanged entities are skipped): a JSON array of SOAP products, or
   * `{markets, warehouses, sizes, pricelists, deliverywindows, products}`; empty to start with none.
   */
  DEMO_CATALOG: z.string().default('infra/config/demo-catalog.json'),
  ...sessionEnv(),
  /** A request header with the visitor's country set by a trusted ingress or CDN (e.g. `cf-ipcountry`); unset: the store's default country. */
  COUNTRY_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]+$/, 'must be a header name')
    .transform((h) => h.toLowerCase())
    .optional(),
  /** How long the edge keeps a product it shows in a selection (ms); 0: always ask the catalog. */
  PRODUCT_CACHE_MS: z.coerce.number().int().min(0).max(600_000).default(2000),
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
