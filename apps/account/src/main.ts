import { z } from 'zod';
import { env, loadConfig, loadStoreConfig, kafkaNamingEnv, outboxEnv } from '@commerce/shared-config';
import { createEventBus, busNaming } from '@commerce/shared-bus';
import { runService, startDbService } from '@commerce/shared-http';
import { createCatalogHttpClient } from '@commerce/catalog-contracts';
import { accountEnv, argon2Params, buildAccountService, createMailer, mailerOptions } from '@commerce/account-adapters';

const ConfigSchema = z.object({
  ...accountEnv(),
  ...outboxEnv(),
  /** The store configuration: its `frontendUrl` is the base of password-reset links. */
  STORE_CONFIG: z.string().min(1),
  /** The catalog's product events (back-in-stock mails). */
  KAFKA_BROKERS: env.kafkaBrokers,
  ...kafkaNamingEnv(),
  /** The stock of an item someone waits for. */
  CATALOG_URL: env.url,
});

// Customers, credentials, reset links and subscriptions in the service's own schema; the edge reaches it over /internal/account.
runService('account', async () => {
  const config = loadConfig(ConfigSchema);
  const store = loadStoreConfig(config.STORE_CONFIG);
  return startDbService('account', 8083, async ({ db, logger }) => {
    const mailer = createMailer({ ...mailerOptions(config), logger });
    const bus = await createEventBus(config.KAFKA_BROKERS, { clientId: 'account', logger, ...busNaming(config) });
    const account = await buildAccountService({
      db,
      argon2: argon2Params(config),
      mailer,
      frontendUrl: store.frontendUrl,
      resetTtlMinutes: config.PASSWORD_RESET_TTL_MINUTES,
      logger,
      bus,
      outboxPollMs: config.OUTBOX_POLL_MS,
      catalog: createCatalogHttpClient(config.CATALOG_URL),
    });
    await account.start();
    return {
      routers: [account.router],
      close: async () => {
        await account.stop();
        await bus.close();
        mailer.close();
      },
    };
  });
});
