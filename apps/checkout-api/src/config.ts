import { z } from 'zod';
import { env, httpServiceEnv, boundedInt } from '@commerce/shared-config';
import { checkoutEdgeEnv, corsEnv, geoipEnv, loginGuardEnv, paymentHoldEnv, sessionEnv } from '@commerce/checkout-adapters';

/** Every variable of the checkout-api edge (docs/configuration.md is generated from it: `npm run docs:config`). */
export const ConfigSchema = z.object({
  ...httpServiceEnv(8080),
  REDIS_URL: env.redisUrl,
  ...sessionEnv(),
  ...checkoutEdgeEnv(),
  STORE_CONFIG: z
    .string()
    .min(1)
    .describe('Path of the store configuration (JSON): markets, countries, currencies, payment methods, the storefront address.'),
  CATALOG_URL: env.url.describe("The catalog service's internal address (products, search, stock holds)."),
  CART_URL: env.url.describe("The cart service's internal address (selections)."),
  CART_CHANGE_BATCH: boundedInt(1, 1000, 64).describe(
    'At most this many selection changes and new selections in one call to the cart: while two calls are in flight the next queue and go together when one is answered, each with its own outcome (no timer: one made while fewer are in flight goes at once); 1 sends each in its own call (decisions 78, 184).',
  ),
  ACCOUNT_URL: env.url.describe("The account service's internal address (customers, logins, password resets)."),
  ORDER_URL: env.url.describe("The order service's internal address (orders placed and read)."),
  PAYMENT_URL: env.url.describe("The payment service's internal address (payment attempts)."),
  ...paymentHoldEnv(),
  ...loginGuardEnv(),
  ...geoipEnv(),
  ...corsEnv(),
});
