import { daysToMs, loadConfig, loadStoreConfig, retentionSettings } from '@commerce/shared-config';
import { createDbEngineFromConfig } from '@commerce/shared-db';
import { createEventBus, startRetentionPruner, busNaming } from '@commerce/shared-bus';
import { runService, startHttpService, startWithClosers } from '@commerce/shared-http';
import { createLogger } from '@commerce/shared-logging';
import { buildBackofficeService, receivedUpsertsRetention } from '@commerce/backoffice-adapters';
import { argon2Params } from '@commerce/account-contracts';
import { ConfigSchema } from './config';

runService('backoffice-soap', async () => {
  const config = loadConfig(ConfigSchema);
  const logger = createLogger('backoffice-soap', config.LOG_LEVEL);
  const store = loadStoreConfig(config.STORE_CONFIG);
  return startWithClosers(async (closers) => {
    const engine = await createDbEngineFromConfig(config, logger);
    closers.add(() => engine.close());
    const db = engine.forSchema(config.DATABASE_SCHEMA);
    const bus = await createEventBus(config.KAFKA_BROKERS, { clientId: 'backoffice-soap', logger, ...busNaming(config) });
    closers.add(() => bus.close());
    const backoffice = await buildBackofficeService({
      db,
      bus,
      logger,
      namespace: store.soap.namespace,
      users: store.soap.users,
      correlationPrefix: store.soap.correlationPrefix,
      events: {
        echo: config.SOAP_ECHO_EVENTS,
        pageSize: config.EVENTS_PAGE_SIZE,
        retentionMs: daysToMs(config.CHANGE_EVENTS_RETENTION_DAYS),
        pruneIntervalMs: config.RETENTION_INTERVAL_SECONDS * 1000,
      },
      trustProxy: config.SOAP_TRUST_PROXY,
      streamPartSize: config.SOAP_STREAM_PART_SIZE,
      budget: { baseMs: config.SOAP_REQUEST_BUDGET_MS, perMbMs: config.SOAP_REQUEST_BUDGET_MS_PER_MB },
      buyerPasswords: argon2Params(config),
      outboxPollMs: config.OUTBOX_POLL_MS,
    });
    await backoffice.start();
    closers.add(() => backoffice.stop());
    const tables = [receivedUpsertsRetention(daysToMs(config.RECEIVED_UPSERTS_RETENTION_DAYS))];
    const retention = startRetentionPruner(db, { ...retentionSettings(config), tables, logger });
    closers.add(retention.stop);
    return startHttpService({
      service: 'backoffice-soap',
      logger,
      routers: [backoffice.router],
      port: config.PORT,
      host: config.HOST,
      reusePort: config.REUSE_PORT,
      // Not the bus: events go through the outbox, which holds them while Kafka is away (decision 133).
      readiness: [{ name: 'database', check: () => db.ping() }],
      metricsRegistries: [retention.registry],
      onShutdown: closers.all,
    });
  });
});
