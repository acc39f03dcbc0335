import { BackofficeTopics, InvoiceUpsertReceived, OrderUpsertReceived } from '@commerce/erp-contracts';
import { applyInvoiceUpsert, applyOrderUpsert, type ApplyOrderUpsertDeps, type ApplyOrderUpsertResult } from '@commerce/order-core';
import { consumeOnce, type EventEnvelope, type SubscribeOptions } from '@commerce/shared-bus';
import type { Db } from '@commerce/shared-db';
import type { Logger } from '@commerce/shared-logging';
import { createOrderRepository } from '../order.knex-repository';

export const ORDER_UPSERTS_GROUP = 'order-upserts';

export interface OrderUpsertConsumerDeps {
  db: Db;
  logger: Logger;
  trackingUrl?: ApplyOrderUpsertDeps['trackingUrl'];
}

/**
 * Applies the order service's entities backoffice-soap accepted (orders and invoices; DESIGN §6). The
 * dedupe record, the change and its outbox rows commit in one transaction, so a redelivery is applied
 * once. A malformed event throws: the bus retries it, then moves it to `backoffice.upsert.v1.dlq`. An
 * order this service never placed (an ERP's own order) is logged and skipped. Other entities are not ours.
 */
export function orderUpsertReceivedConsumer(deps: OrderUpsertConsumerDeps): SubscribeOptions {
  const apply: Record<string, (envelope: EventEnvelope, d: ApplyOrderUpsertDeps) => Promise<ApplyOrderUpsertResult & { id: string }>> = {
    order: async (e, d) => {
      const { order } = OrderUpsertReceived.parse(e).payload;
      return { id: order.id, ...(await applyOrderUpsert(d, order)) };
    },
    invoice: async (e, d) => {
      const { invoice } = InvoiceUpsertReceived.parse(e).payload;
      return { id: invoice.id, ...(await applyInvoiceUpsert(d, invoice)) };
    },
  };
  return {
    groupId: ORDER_UPSERTS_GROUP,
    topics: [BackofficeTopics.UPSERT],
    handle: async (envelope: EventEnvelope) => {
      const entity = (envelope.payload as { entity?: unknown } | null)?.entity;
      const applyOne = typeof entity === 'string' ? apply[entity] : undefined;
      if (!applyOne) return;
      if (!OrderUpsertReceived.matches(envelope) && !InvoiceUpsertReceived.matches(envelope)) {
        throw new Error(`order: unsupported ${String(entity)} upsert event ${envelope.type} v${envelope.version} (${envelope.id})`);
      }
      let result: ApplyOrderUpsertResult & { id: string } = { id: '', found: false, changed: false };
      const applied = await consumeOnce(deps.db, ORDER_UPSERTS_GROUP, envelope, async (trx) => {
        const orders = createOrderRepository(deps.db, trx);
        result = await applyOne(envelope, { orders, ...(deps.trackingUrl ? { trackingUrl: deps.trackingUrl } : {}) });
      });
      if (applied && !result.found) {
        deps.logger.warn(
          { eventId: envelope.id, entity, externalId: result.id },
          'order: upsert names an order this service never placed, skipped',
        );
      }
      deps.logger.debug(
        { eventId: envelope.id, entity, externalId: result.id, applied, changed: result.changed },
        'order: upsert consumed',
      );
    },
  };
}
