import { z } from 'zod';
import {
  databaseEnv,
  env,
  httpServiceEnv,
  kafkaNamingEnv,
  outboxEnv,
  receivedUpsertsRetentionEnv,
  retentionEnv,
} from '@commerce/shared-config';
import { backofficeSoapEnv } from '@commerce/backoffice-adapters';

/** Every variable of backoffice-soap (docs/configuration.md is generated from it: `npm run docs:config`). */
export const ConfigSchema = z.object({
  ...httpServiceEnv(8086),
  ...databaseEnv('backoffice'),
  ...retentionEnv(),
  ...outboxEnv(),
  ...receivedUpsertsRetentionEnv(),
  ...backofficeSoapEnv(),
  KAFKA_BROKERS: env.kafkaBrokers,
  ...kafkaNamingEnv(),
  STORE_CONFIG: z.string().min(1).describe('Path of the store configuration (JSON): the SOAP namespace and users (with hashed passwords).'),
});
