import { z } from 'zod';
import { dbServiceEnv } from '@commerce/shared-config';

/** Every variable of the cart service (docs/configuration.md is generated from it: `npm run docs:config`). */
export const ConfigSchema = z.object({
  ...dbServiceEnv('cart', 8081),
  // Required, like in every service but the all-in-one, so a deployment never prices in the demo store's currencies by mistake.
  STORE_CONFIG: z.string().min(1).describe("Path of the store configuration (JSON): the currency formats of the selection's prices."),
});
