import type Router from '@koa/router';
import type { LeanRoute } from '@commerce/shared-http';
import { OutboxRelay, type EventBus, type Subscription } from '@commerce/shared-bus';
import { migrate, type Db } from '@commerce/shared-db';
import type { Logger } from '@commerce/shared-logging';
import type { OrderClient } from '@commerce/order-contracts';
import { orderUseCases, type Clock, type OrderRepository, type SagaClients } from '@commerce/order-core';
import { orderMigrations } from './order.migrations';
import { createOrderRepository } from './order.knex-repository';
import { createOrderInternalRouter, createOrderLeanRoutes } from './order.internal-routes';
import { orderUpsertReceivedConsumer } from './consumers/upsert-received.consumer';
import { paymentAuthorizedConsumer } from './consumers/payment-authorized.consumer';

export interface OrderServiceDeps {
  db: Db;
  bus: EventBus;
  logger: Logger;
  /** The outbox relay's safety-net poll (`OUTBOX_POLL_MS`; default 1 s): writes nudge the relay at commit. */
  outboxPollMs?: number;
  clock?: Clock;
  /** Carrier name → tracking page template with `{trackingId}` (store configuration `trackingUrls`). */
  trackingUrls?: Record<string, string>;
  /**
   * The payment, catalog-stock and cart clients completing a paid attempt needs. With them the service
   * completes attempts for the edge and consumes `PaymentAuthorized`; without them (the order service's
   * own tests) it does neither.
   */
  saga?: SagaClients;
  /** Holds the outbox relay back after start (`OUTBOX_RELAY_START_DELAY_MS`; crash tests). */
  relayStartDelayMs?: number;
  /** How long a fresh paid attempt is left to the edge before `PaymentAuthorized` completes it (`WEBHOOK_COMPLETION_GRACE_MS`). */
  webhookGraceMs?: number;
  /** For tests: the client the consumer of `PaymentAuthorized` calls, wrapped (a fault: the service down). */
  wrapClient?: (client: OrderClient) => OrderClient;
}

export interface OrderService {
  /** The use cases as a typed client: the in-process implementation of OrderClient. */
  client: OrderClient;
  router: Router;
  /** The saga's two calls of the edge on lean routes before the app (decision 63), served by the order process. */
  leanRoutes: LeanRoute[];
  orders: OrderRepository;
  relay: OutboxRelay;
  /** Subscribes the consumers and starts the outbox relay. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Composition of the order service: migrations, repository, use cases, consumers, outbox relay, internal routes. */
export async function buildOrderService(deps: OrderServiceDeps): Promise<OrderService> {
  await migrate(deps.db, orderMigrations);
  const orders = createOrderRepository(deps.db);
  const relay = new OutboxRelay(deps.db, deps.bus, {
    logger: deps.logger,
    startDelayMs: deps.relayStartDelayMs ?? 0,
    intervalMs: deps.outboxPollMs,
  });
  const useCases = orderUseCases({ orders, ...(deps.clock ? { clock: deps.clock } : {}) }, deps.saga);
  // Placing commits an OrderPlaced outbox row; enqueue nudges the relay at commit (decision 66).
  const client: OrderClient = useCases;
  let subscriptions: Subscription[] = [];
  const templates = new Map(Object.entries(deps.trackingUrls ?? {}).map(([carrier, url]) => [carrier.toLowerCase(), url]));
  const trackingUrl = (carrier: string, trackingId: string) =>
    templates.get(carrier.trim().toLowerCase())?.replaceAll('{trackingId}', encodeURIComponent(trackingId)) ?? '';
  return {
    client,
    router: createOrderInternalRouter(client),
    leanRoutes: createOrderLeanRoutes(client),
    orders,
    relay,
    async start() {
      subscriptions = [
        await deps.bus.subscribe(orderUpsertReceivedConsumer({ db: deps.db, logger: deps.logger, trackingUrl })),
        ...(deps.saga
          ? [
              await deps.bus.subscribe(
                paymentAuthorizedConsumer({
                  db: deps.db,
                  logger: deps.logger,
                  orders: deps.wrapClient ? deps.wrapClient(client) : client,
                  checkoutOf: (attemptId, consumed) => orders.checkoutOf(attemptId, consumed),
                  cart: deps.saga.cart,
                  ...(deps.webhookGraceMs === undefined ? {} : { graceMs: deps.webhookGraceMs }),
                }),
              ),
            ]
          : []),
      ];
      relay.start();
    },
    async stop() {
      await Promise.all(subscriptions.map((s) => s.stop()));
      subscriptions = [];
      await relay.stop();
    },
  };
}
