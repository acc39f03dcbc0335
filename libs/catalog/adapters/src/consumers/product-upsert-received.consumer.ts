import { ProductUpsertReceived, BackofficeTopics } from '@commerce/backoffice-contracts';
import { applyProductUpsert, type Clock } from '@commerce/catalog-core';
import { consumeOnce, type EventEnvelope, type SubscribeOptions } from '@commerce/shared-bus';
import type { Db } from '@commerce/shared-db';
import type { Logger } from '@commerce/shared-logging';
import { createCatalogRepository } from '../catalog.repository.knex';

export const CATALOG_UPSERTS_GROUP = 'catalog-upserts';

export interface UpsertConsumerDeps {
  db: Db;
  logger: Logger;
  clock?: Clock;
  /** Called after a change was committed with its outbox rows (the relay publishes them now). */
  onCommitted?: () => void;
}

/**
 * Applies the products backoffice-soap accepted. The dedupe record, the product and its
 * `ProductUpserted` outbox row commit in one transaction, so a redelivery is applied once. A malformed
 * event throws: the bus retries it, then moves it to `backoffice.upsert.v1.dlq`.
 */
export function productUpsertReceivedConsumer(deps: UpsertConsumerDeps): SubscribeOptions {
  return {
    groupId: CATALOG_UPSERTS_GROUP,
    topics: [BackofficeTopics.UPSERT],
    handle: async (envelope: EventEnvelope) => {
      const entity = (envelope.payload as { entity?: unknown } | null)?.entity;
      if (entity !== 'product') {
        // Other entities (pricelists, sizes, warehouses, …) are applied by later issues.
        deps.logger.debug({ eventId: envelope.id, type: envelope.type, entity }, 'catalog: upsert of an entity not handled yet, skipped');
        return;
      }
      if (!ProductUpsertReceived.matches(envelope)) {
        throw new Error(`catalog: unsupported product upsert event ${envelope.type} v${envelope.version} (${envelope.id})`);
      }
      const event = ProductUpsertReceived.parse(envelope);
      let changed = false;
      const applied = await consumeOnce(deps.db, CATALOG_UPSERTS_GROUP, event, async (trx) => {
        const result = await applyProductUpsert(
          { catalog: createCatalogRepository(deps.db, trx), ...(deps.clock ? { clock: deps.clock } : {}) },
          event.payload.product,
        );
        changed = result.changed;
      });
      deps.logger.debug({ eventId: event.id, externalId: event.payload.product.id, applied, changed }, 'catalog: product upsert consumed');
      if (changed) deps.onCommitted?.();
    },
  };
}
