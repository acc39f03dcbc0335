import { loadConfig, loadStoreConfig, retentionSettings } from '@commerce/shared-config';
import { createEventBus, startRetentionPruner, busNaming } from '@commerce/shared-bus';
import { runService, startDbService } from '@commerce/shared-http';
import { createCatalogHttpClient } from '@commerce/catalog-contracts';
import { argon2Params, buildAccountService, createMailer, mailerOptions } from '@commerce/account-adapters';
import { ConfigSchema } from './config';

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
    // Its outbox's sent rows and dedupe records pruned, and its backlog on /metrics like every service with an outbox.
    const retention = startRetentionPruner(db, { ...retentionSettings(config), logger });
    return {
      routers: [account.router],
      metricsRegistries: [retention.registry],
      close: async () => {
        await retention.stop();
        await account.stop();
        await bus.close();
        mailer.close();
      },
    };
  });
});
