import { z } from 'zod';
import { databaseEnv, env, httpServiceEnv, kafkaNamingEnv, outboxEnv, retentionEnv, boundedInt } from '@commerce/shared-config';
import { orderEnv } from '@commerce/order-adapters';

/** Every variable of the order service (docs/configuration.md is generated from it: `npm run docs:config`). */
export const ConfigSchema = z.object({
  ...httpServiceEnv(8085),
  ...databaseEnv('order'),
  ...retentionEnv(),
  ...outboxEnv(),
  KAFKA_BROKERS: env.kafkaBrokers,
  ...kafkaNamingEnv(),
  // Required, as in the cart, so a deployment never uses the demo store's.
  STORE_CONFIG: z.string().min(1).describe("Path of the store configuration (JSON): the carriers' tracking pages."),
  // Completing a paid attempt reaches the payment service (the attempt), the catalog (its stock) and the cart (its selection).
  PAYMENT_URL: env.url.describe("The payment service's internal address (a paid attempt to complete)."),
  CATALOG_URL: env.url.describe(
    "The catalog service's internal address (the stock held for a payment, committed when the order is placed).",
  ),
  CART_URL: env.url.describe("The cart service's internal address (the selection an order closes)."),
  OUTBOX_RELAY_START_DELAY_MS: boundedInt(0, 3_600_000, 0).describe(
    'Holds the outbox relay back this long after start (a warning is logged): committed events stay in the outbox until it passes. For crash tests only (`tools/e2e/order-crash.e2e-spec.ts`); leave 0 in production.',
  ),
  ...orderEnv(),
});
