import { loadConfig, loadStoreConfig, retentionSettings } from '@commerce/shared-config';
import { createDbEngineFromConfig } from '@commerce/shared-db';
import { createEventBus, startRetentionPruner, busNaming } from '@commerce/shared-bus';
import { runService, startHttpService, startWithClosers } from '@commerce/shared-http';
import { createLogger } from '@commerce/shared-logging';
import { buildPaymentService, testProviderSettings } from '@commerce/payment-adapters';
import { ConfigSchema } from './config';

// The payment service: attempts in its schema, `payment.payment.v1` through its outbox, the edge's
// questions at /internal/payment, the test providers' pages and the webhooks at /payment.
runService('payment', async () => {
  const config = loadConfig(ConfigSchema);
  const logger = createLogger('payment', config.LOG_LEVEL);
  const store = loadStoreConfig(config.STORE_CONFIG);
  return startWithClosers(async (closers) => {
    const engine = await createDbEngineFromConfig(config, logger);
    closers.add(() => engine.close());
    const db = engine.forSchema(config.DATABASE_SCHEMA);
    const bus = await createEventBus(config.KAFKA_BROKERS, { clientId: 'payment', logger, ...busNaming(config) });
    closers.add(() => bus.close());
    const payment = await buildPaymentService({
      db,
      bus,
      logger,
      store,
      outboxPollMs: config.OUTBOX_POLL_MS,
      testProviders: testProviderSettings(config, `http://localhost:${config.PORT}`),
      attemptExpiryMinutes: config.PAYMENT_ATTEMPT_EXPIRY_MINUTES,
    });
    await payment.start();
    closers.add(() => payment.stop());
    // Its outbox's sent rows and dedupe records pruned, and its backlog on /metrics like every service with an outbox.
    const retention = startRetentionPruner(db, { ...retentionSettings(config), logger });
    closers.add(retention.stop);
    return startHttpService({
      service: 'payment',
      logger,
      routers: [payment.router, payment.pages],
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
