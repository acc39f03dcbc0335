import type { z } from 'zod';
import type { OrderClient } from '@commerce/order-contracts';
import type { SagaClients } from '@commerce/order-core';
import { enginesOf, type ModuleContext, type ServiceEngines, type ServiceModule } from '@commerce/shared-http';
import type { orderEnv } from './order.env';
import { buildOrderService, type OrderService } from './order.service';

export type OrderModuleConfig = z.infer<z.ZodObject<ReturnType<typeof orderEnv>>> & {
  /** The order process's crash tests only (`OUTBOX_RELAY_START_DELAY_MS`). */
  OUTBOX_RELAY_START_DELAY_MS?: number;
};

/**
 * The order service as a process runs it: orders in its schema, the checkout saga on the payment, stock and
 * cart clients it is given (order core's checkout-saga.ts), the back office's upserts and `PaymentAuthorized`
 * consumed, its internal routes, its outbox pruned.
 */
export async function orderModule(
  config: OrderModuleConfig,
  context: ServiceEngines &
    ModuleContext & {
      saga: SagaClients;
      /** Tests: faults put between the services (the order client as the edge and the consumer reach it). */
      wrapClient?: (client: OrderClient) => OrderClient;
    },
): Promise<OrderService & ServiceModule> {
  const order = await buildOrderService({
    ...enginesOf(context),
    trackingUrls: context.store.trackingUrls,
    saga: context.saga,
    webhookGraceMs: config.WEBHOOK_COMPLETION_GRACE_MS,
    ...(config.OUTBOX_RELAY_START_DELAY_MS ? { relayStartDelayMs: config.OUTBOX_RELAY_START_DELAY_MS } : {}),
    ...(context.wrapClient ? { wrapClient: context.wrapClient } : {}),
  });
  return Object.assign(order, { internalRouters: [order.router], retention: [] });
}
