import { daysToMs, loadStoreConfig, retentionSettings } from '@commerce/shared-config';
import type { SoapProduct } from '@commerce/erp-contracts';
import { createDbEngineFromConfig, type Db, type DbEngine } from '@commerce/shared-db';
import { createEventBus, startRetentionPruner, busNaming, type EventBus, type MemoryBus } from '@commerce/shared-bus';
import { createSessionStore } from '@commerce/shared-sessions';
import { existsSync } from 'node:fs';
import { createHttpApp, mountRouters, serve, startWithClosers, staticFiles, type RunningServer } from '@commerce/shared-http';
import type { Logger } from '@commerce/shared-logging';
import { buildBackofficeService, receivedUpsertsRetention } from '@commerce/backoffice-adapters';
import { buildCatalogService, createSearchIndex, searchQueriesRetention, type DemoCatalog } from '@commerce/catalog-adapters';
import { catalogSettings } from '@commerce/catalog-core';
import { buildCartService } from '@commerce/cart-adapters';
import { argon2Params, buildAccountService, createMailer, mailerOptions } from '@commerce/account-adapters';
import { buildOrderService } from '@commerce/order-adapters';
import { buildPaymentService, testProviderSettings } from '@commerce/payment-adapters';
import type { OrderClient } from '@commerce/order-contracts';
import type { AccountClient } from '@commerce/account-contracts';
import { StoreView } from '@commerce/checkout-core';
import {
  checkoutErrorBody,
  checkoutSessionMiddleware,
  checkoutSessions,
  CHECKOUT_PREFIX,
  createCheckoutRouter,
  createLoginGuard,
  createSessionLimit,
  loginLimits,
  sessionLimits,
  withGeoip,
  checkoutCors,
} from '@commerce/checkout-adapters';
import type { AllInOneConfig } from './config';

export interface AllInOne extends RunningServer {
  /** Which adapters run, e.g. `PGlite, in-memory bus, in-memory sessions, embedded search`. */
  engines: string;
  /** Whether the demo storefront is served at `/` (its files were found in STOREFRONT_DIR). */
  storefront: boolean;
  /**
   * In-process clients of the domain services, for tests and tools (the order-history benchmark) that
   * place orders as the checkout saga does and find a registered customer's id.
   */
  clients: { orders: OrderClient; account: AccountClient };
  /**
   * Resolves once the work of what was written so far is done: no outbox row pending and, on the in-memory bus,
   * every event handled (those its handlers published in turn too). After start: the demo catalog's events
   * consumed (indexer, back office's change events, back-in-stock…), a few seconds of CPU the first requests of
   * a test would otherwise share. Tests and tools only; rejects after `timeoutMs` naming what is still pending.
   */
  settled(timeoutMs?: number): Promise<void>;
  /** A service's schema of the one SQL engine (tests and tools: what a service stored). */
  db(schema: string): Db;
}

/** The services' schemas with an outbox. */
const OUTBOX_SCHEMAS = ['catalog', 'backoffice', 'order', 'payment', 'account'] as const;

/** See `AllInOne.settled`. On Kafka only the outboxes are waited for: other consumers of the broker may be anywhere. */
async function settled(engine: DbEngine, bus: EventBus, timeoutMs: number): Promise<void> {
  const pending = async () => {
    const counts = await Promise.all(
      OUTBOX_SCHEMAS.map(async (schema) => {
        const [row] = await engine.forSchema(schema).table('outbox').whereNull('sent_at').count({ n: '*' });
        return Number(row?.['n'] ?? 0);
      }),
    );
    return counts.reduce((a, b) => a + b, 0);
  };
  const drain = () => (bus.kind === 'memory' ? (bus as MemoryBus).drain() : Promise.resolve());
  const deadline = Date.now() + timeoutMs;
  // A row counted as sent is on the bus; a drain then handles it, and what its handler wrote is counted next round.
  // Quiet: a round whose count before and after the drain are both nought, twice running (a relay's publish may land
  // just after a drain).
  for (let quietRounds = 0; quietRounds < 2;) {
    const before = await pending();
    await drain();
    const after = await pending();
    quietRounds = before + after === 0 ? quietRounds + 1 : 0;
    if (quietRounds < 2 && Date.now() > deadline)
      throw new Error(`all-in-one: not settled after ${timeoutMs} ms (${after} outbox rows pending)`);
    if (after > 0) await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Wires every service into one process: one SQL engine with a schema per service, one bus, one
 * session store, one search index; the domain services are reached through their in-process clients.
 */
export async function startAllInOne(
  config: AllInOneConfig,
  logger: Logger,
  demo: DemoCatalog | SoapProduct[] | null,
  /** For tests: faults put between the services (the order service's client as the edge and its consumer reach it). */
  faults: { orders?: (client: OrderClient) => OrderClient } = {},
): Promise<AllInOne> {
  const store = loadStoreConfig(config.STORE_CONFIG);
  const view = new StoreView(store);
  return startWithClosers(async (closers) => {
    const engine = await createDbEngineFromConfig(config, logger);
    closers.add(() => engine.close());
    const bus = await createEventBus(config.KAFKA_BROKERS, {
      clientId: 'all-in-one',
      logger,
      ...busNaming(config),
    });
    closers.add(() => bus.close());
    const sessions = await createSessionStore(config.REDIS_URL, { ttlSeconds: config.SESSION_TTL_SECONDS, logger });
    closers.add(() => sessions.close());
    const search = await createSearchIndex(config.MEILI_URL, {
      logger,
      indexName: config.MEILI_INDEX,
      ...(config.MEILI_API_KEY ? { apiKey: config.MEILI_API_KEY } : {}),
    });

    const catalog = await buildCatalogService({
      db: engine.forSchema('catalog'),
      bus,
      search,
      logger: logger.child({ component: 'catalog' }),
      settings: catalogSettings(store),
      readCacheMs: config.READ_CACHE_MS,
      applyPartProducts: config.APPLY_PART_PRODUCTS,
      viewCacheMs: config.VIEW_CACHE_MS,
      outboxPollMs: config.OUTBOX_POLL_MS,
    });
    const cart = await buildCartService({ db: engine.forSchema('cart'), currencyFormat: view.currencyFormat });
    const accountLogger = logger.child({ component: 'account' });
    const mailer = createMailer({ ...mailerOptions(config), logger: accountLogger });
    closers.add(async () => mailer.close());
    const account = await buildAccountService({
      db: engine.forSchema('account'),
      argon2: argon2Params(config),
      mailer,
      frontendUrl: store.frontendUrl,
      resetTtlMinutes: config.PASSWORD_RESET_TTL_MINUTES,
      logger: accountLogger,
      bus,
      catalog: catalog.client,
      outboxPollMs: config.OUTBOX_POLL_MS,
    });
    const payment = await buildPaymentService({
      db: engine.forSchema('payment'),
      bus,
      logger: logger.child({ component: 'payment' }),
      store,
      testProviders: testProviderSettings(config, `http://localhost:${config.PORT}`),
      attemptExpiryMinutes: config.PAYMENT_ATTEMPT_EXPIRY_MINUTES,
      outboxPollMs: config.OUTBOX_POLL_MS,
    });
    const order = await buildOrderService({
      db: engine.forSchema('order'),
      bus,
      logger: logger.child({ component: 'order' }),
      trackingUrls: store.trackingUrls,
      // The checkout saga (order core's checkout-saga.ts): the edge's payment and payment-result, and the PaymentAuthorized consumer.
      saga: { payment: payment.client, stock: catalog.stock, cart: cart.client },
      webhookGraceMs: config.WEBHOOK_COMPLETION_GRACE_MS,
      outboxPollMs: config.OUTBOX_POLL_MS,
      ...(faults.orders ? { wrapClient: faults.orders } : {}),
    });
    const backoffice = await buildBackofficeService({
      db: engine.forSchema('backoffice'),
      bus,
      logger: logger.child({ component: 'backoffice-soap' }),
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
      // The account service's cost: a buyer who never logged in costs a login what anyone costs (decision 54).
      buyerPasswords: argon2Params(config),
      outboxPollMs: config.OUTBOX_POLL_MS,
    });

    await catalog.start();
    closers.add(() => catalog.stop());
    await backoffice.start();
    closers.add(() => backoffice.stop());
    await order.start();
    closers.add(() => order.stop());
    await payment.start();
    closers.add(() => payment.stop());
    await account.start();
    closers.add(() => account.stop());
    // One pruner per schema with an outbox, reporting into one registry.
    const catalogRetention = startRetentionPruner(engine.forSchema('catalog'), {
      ...retentionSettings(config),
      tables: [searchQueriesRetention(daysToMs(config.SEARCH_QUERIES_RETENTION_DAYS))],
      logger,
    });
    closers.add(catalogRetention.stop);
    const tables = [receivedUpsertsRetention(daysToMs(config.RECEIVED_UPSERTS_RETENTION_DAYS))];
    const backofficeRetention = startRetentionPruner(engine.forSchema('backoffice'), {
      ...retentionSettings(config),
      tables,
      logger,
      registry: catalogRetention.registry,
    });
    closers.add(backofficeRetention.stop);
    const orderRetention = startRetentionPruner(engine.forSchema('order'), {
      ...retentionSettings(config),
      logger,
      registry: catalogRetention.registry,
    });
    closers.add(orderRetention.stop);
    const paymentRetention = startRetentionPruner(engine.forSchema('payment'), {
      ...retentionSettings(config),
      logger,
      registry: catalogRetention.registry,
    });
    closers.add(paymentRetention.stop);
    const accountRetention = startRetentionPruner(engine.forSchema('account'), {
      ...retentionSettings(config),
      logger,
      registry: catalogRetention.registry,
    });
    closers.add(accountRetention.stop);
    if (demo && (!Array.isArray(demo) || demo.length > 0)) await catalog.seed(demo);

    const loginGuard = createLoginGuard(config.REDIS_URL, loginLimits(config));
    closers.add(() => loginGuard.close());
    const newSessions = createSessionLimit(config.REDIS_URL, sessionLimits(config));
    if (newSessions) closers.add(() => newSessions.close());
    const checkoutDeps = {
      sessions: checkoutSessions(sessions),
      catalog: catalog.client,
      cart: cart.client,
      account: account.client,
      orders: faults.orders ? faults.orders(order.client) : order.client,
      payment: payment.client,
      paymentHoldSeconds: config.PAYMENT_HOLD_SECONDS,
      loginGuard,
      rotateTokenOnLogin: config.SESSION_ROTATE_ON_LOGIN,
      ...(newSessions ? { newSessions } : {}),
      trustProxy: config.LOGIN_TRUST_PROXY,
      view,
      productCacheMs: config.PRODUCT_CACHE_MS,
      ...(config.COUNTRY_HEADER ? { countryHeader: config.COUNTRY_HEADER } : {}),
      ...withGeoip(config),
    };
    const checkout = createCheckoutRouter(checkoutDeps);
    const app = createHttpApp({
      service: 'all-in-one',
      logger,
      errorBody: checkoutErrorBody,
      beforeBody: [checkoutSessionMiddleware(checkoutDeps)],
      // The checkout API's budget, as at checkout-api's edge (decision 142); SOAP has its own (SOAP_REQUEST_BUDGET_MS).
      requestBudgetMs: config.REQUEST_BUDGET_MS,
      requestBudgetPaths: (path) => path.startsWith(CHECKOUT_PREFIX),
      ...checkoutCors(config),
      metricsRegistries: [catalogRetention.registry, catalog.searchQueries.registry],
      // Not the bus: events go through the outboxes, which hold them while Kafka is away (decision 133).
      readiness: [
        { name: 'database', check: () => engine.forSchema('public').ping() },
        { name: 'sessions', check: () => sessions.ping() },
        { name: 'search', check: () => search.ping() },
      ],
    });
    mountRouters(app, [checkout, backoffice.router, payment.pages]);
    // The demo shop at `/`: static files that call the checkout API like any storefront (decision 125).
    const storefront = config.STOREFRONT_DIR && existsSync(config.STOREFRONT_DIR) ? config.STOREFRONT_DIR : null;
    if (storefront) app.use(staticFiles(storefront));
    else if (config.STOREFRONT_DIR)
      logger.warn({ dir: config.STOREFRONT_DIR }, 'storefront not built (tsx tools/storefront/build.ts): / is not served');

    const server = await serve(app, { port: config.PORT, host: config.HOST, logger, onShutdown: closers.all });
    const engines = [
      engine.engine === 'pglite' ? 'PGlite' : 'Postgres',
      bus.kind === 'memory' ? 'in-memory bus' : 'Kafka',
      sessions.kind === 'memory' ? 'in-memory sessions' : 'Redis sessions',
      config.MEILI_URL === 'embedded' ? 'embedded search' : 'Meilisearch',
    ].join(', ');
    return Object.assign(server, {
      engines,
      storefront: storefront !== null,
      clients: { orders: order.client, account: account.client },
      settled: (timeoutMs = 60_000) => settled(engine, bus, timeoutMs),
      db: (schema: string) => engine.forSchema(schema),
    });
  });
}
