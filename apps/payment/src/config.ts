import { z } from 'zod';
import { databaseEnv, env, httpServiceEnv, kafkaNamingEnv, outboxEnv, retentionEnv } from '@commerce/shared-config';
import { paymentEnv } from '@commerce/payment-adapters';

/** Every variable of the payment service (docs/configuration.md is generated from it: `npm run docs:config`). */
export const ConfigSchema = z.object({
  ...httpServiceEnv(8084),
  ...databaseEnv('payment'),
  ...outboxEnv(),
  ...retentionEnv(),
  KAFKA_BROKERS: env.kafkaBrokers,
  ...kafkaNamingEnv(),
  // Required, as in the cart.
  STORE_CONFIG: z.string().min(1).describe('Path of the store configuration (JSON): the payment methods and their providers.'),
  ...paymentEnv(),
});
