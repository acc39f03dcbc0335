import { loadConfig, loadStoreConfig, retentionSettings } from '@commerce/shared-config';
import { createDbEngineFromConfig } from '@commerce/shared-db';
import { createEventBus, startRetentionPruner, busNaming } from '@commerce/shared-bus';
import { runService, startHttpService, startWithClosers } from '@commerce/shared-http';
import { createLogger } from '@commerce/shared-logging';
import { buildOrderService } from '@commerce/order-adapters';
import { createPaymentHttpClient } from '@commerce/payment-contracts';
import { createStockHttpClient } from '@commerce/catalog-contracts';
import { createCartHttpClient } from '@commerce/cart-contracts';
import { ConfigSchema } from './config';

// Orders, their numbers, shipments and invoices in the service's own schema; the edge places and reads
// them over /internal/order; order.order.v1 leaves through the outbox; the back office's order and
// invoice upserts arrive on backoffice.upsert.v1; a paid attempt is completed (its stock committed at the
// catalog, its order placed, its selection closed at the cart) for the edge and on PaymentAuthorized.
runService('order', async () => {
  const config = loadConfig(ConfigSchema);
  const logger = createLogger('order', config.LOG_LEVEL);
  const store = loadStoreConfig(config.STORE_CONFIG);
  return startWithClosers(async (closers) => {
    const engine = await createDbEngineFromConfig(config, logger);
    closers.add(() => engine.close());
    const db = engine.forSchema(config.DATABASE_SCHEMA);
    const bus = await createEventBus(config.KAFKA_BROKERS, { clientId: 'order', logger, ...busNaming(config) });
    closers.add(() => bus.close());
    const order = await buildOrderService({
      db,
      bus,
      logger,
      trackingUrls: store.trackingUrls,
      relayStartDelayMs: config.OUTBOX_RELAY_START_DELAY_MS,
      outboxPollMs: config.OUTBOX_POLL_MS,
      webhookGraceMs: config.WEBHOOK_COMPLETION_GRACE_MS,
      saga: {
        payment: createPaymentHttpClient(config.PAYMENT_URL),
        stock: createStockHttpClient(config.CATALOG_URL),
        cart: createCartHttpClient(config.CART_URL),
      },
    });
    await order.start();
    closers.add(() => order.stop());
    const retention = startRetentionPruner(db, { ...retentionSettings(config), logger });
    closers.add(retention.stop);
    return startHttpService({
      service: 'order',
      logger,
      routers: [order.router],
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
