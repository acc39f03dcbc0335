import { existsSync } from 'node:fs';
import { Registry } from 'prom-client';
import { loadStoreConfig, retentionSettings } from '@commerce/shared-config';
import type { SoapProduct } from '@commerce/erp-contracts';
import { createDbEngineFromConfig, type Db, type DbEngine } from '@commerce/shared-db';
import { createEventBus, startRetentionPruner, busNaming, type EventBus, type MemoryBus } from '@commerce/shared-bus';
import {
  createHttpApp,
  mountRouters,
  serve,
  startWithClosers,
  staticFiles,
  type RunningServer,
  type ServiceModule,
} from '@commerce/shared-http';
import type { Logger } from '@commerce/shared-logging';
import { backofficeModule } from '@commerce/backoffice-adapters';
import { catalogModule, type DemoCatalog } from '@commerce/catalog-adapters';
import { cartModule } from '@commerce/cart-adapters';
import { accountModule } from '@commerce/account-adapters';
import { orderModule } from '@commerce/order-adapters';
import { paymentModule } from '@commerce/payment-adapters';
import type { OrderClient } from '@commerce/order-contracts';
import type { AccountClient } from '@commerce/account-contracts';
import { CHECKOUT_PREFIX, checkoutModule } from '@commerce/checkout-adapters';
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
  return startWithClosers(async (closers) => {
    const engine = await createDbEngineFromConfig(config, logger);
    closers.add(() => engine.close());
    const bus = await createEventBus(config.KAFKA_BROKERS, { clientId: 'all-in-one', logger, ...busNaming(config) });
    closers.add(() => bus.close());
    // Each service's module, as its own process builds it, on its schema of the one engine and the one bus.
    const context = (service: string, schema = service) => ({
      db: engine.forSchema(schema),
      bus,
      logger: logger.child({ component: service }),
      outboxPollMs: config.OUTBOX_POLL_MS,
      store,
      closers,
    });
    const catalog = await catalogModule(config, context('catalog'));
    const cart = await cartModule(context('cart'));
    const account = await accountModule(config, { ...context('account'), catalog: catalog.client });
    const payment = await paymentModule(config, context('payment'));
    const order = await orderModule(config, {
      ...context('order'),
      // The checkout saga (order core's checkout-saga.ts): the edge's payment and payment-result, and the PaymentAuthorized consumer.
      saga: { payment: payment.client, stock: catalog.stock, cart: cart.client },
      ...(faults.orders ? { wrapClient: faults.orders } : {}),
    });
    const backoffice = await backofficeModule(config, context('backoffice-soap', 'backoffice'));

    // Started as their processes start them, their outboxes pruned by one pruner per schema into one registry.
    const retention = new Registry();
    const modules: Array<[string, ServiceModule]> = [
      ['catalog', catalog],
      ['backoffice', backoffice],
      ['order', order],
      ['payment', payment],
      ['account', account],
    ];
    for (const [, module] of modules) {
      await module.start?.();
      if (module.stop) closers.add(module.stop);
    }
    for (const [schema, module] of modules) {
      const pruner = startRetentionPruner(engine.forSchema(schema), {
        ...retentionSettings(config),
        tables: module.retention ?? [],
        logger,
        registry: retention,
      });
      closers.add(pruner.stop);
    }
    if (demo && (!Array.isArray(demo) || demo.length > 0)) await catalog.seed(demo);

    const checkout = await checkoutModule(config, {
      logger,
      store,
      closers,
      peers: {
        catalog: catalog.client,
        cart: cart.client,
        account: account.client,
        orders: faults.orders ? faults.orders(order.client) : order.client,
        payment: payment.client,
      },
    });
    const app = createHttpApp({
      service: 'all-in-one',
      logger,
      ...checkout.app,
      // The checkout API's budget, as at checkout-api's edge (decision 142); SOAP has its own (SOAP_REQUEST_BUDGET_MS).
      requestBudgetPaths: (path) => path.startsWith(CHECKOUT_PREFIX),
      metricsRegistries: [
        retention,
        ...(checkout.metricsRegistries ?? []),
        ...modules.flatMap(([, module]) => module.metricsRegistries ?? []),
      ],
      // Not the bus: events go through the outboxes, which hold them while Kafka is away (decision 133).
      readiness: [
        { name: 'database', check: () => engine.forSchema('public').ping() },
        ...(checkout.readiness ?? []),
        ...modules.flatMap(([, module]) => module.readiness ?? []),
      ],
    });
    // The public interfaces only: the services' internal APIs are called in process.
    mountRouters(
      app,
      [checkout, backoffice, payment].flatMap((module: ServiceModule) => module.publicRouters ?? []),
    );
    // The demo shop at `/`: static files that call the checkout API like any storefront (decision 125).
    const storefront = config.STOREFRONT_DIR && existsSync(config.STOREFRONT_DIR) ? config.STOREFRONT_DIR : null;
    if (storefront) app.use(staticFiles(storefront));
    else if (config.STOREFRONT_DIR)
      logger.warn({ dir: config.STOREFRONT_DIR }, 'storefront not built (tsx tools/storefront/build.ts): / is not served');

    const server = await serve(app, { port: config.PORT, host: config.HOST, logger, onShutdown: closers.all });
    const engines = [
      engine.engine === 'pglite' ? 'PGlite' : 'Postgres',
      bus.kind === 'memory' ? 'in-memory bus' : 'Kafka',
      checkout.sessions.kind === 'memory' ? 'in-memory sessions' : 'Redis sessions',
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
