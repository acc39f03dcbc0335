import {
  BackofficeTopics,
  DeliveryWindowUpsertReceived,
  MarketUpsertReceived,
  PricelistUpsertReceived,
  ProductUpsertReceived,
  SizeUpsertReceived,
  WarehouseUpsertReceived,
} from '@commerce/backoffice-contracts';
import {
  applyDeliveryWindowUpsert,
  applyMarketUpsert,
  applyPricelistUpsert,
  applyProductUpsert,
  applySizeUpsert,
  applyWarehouseUpsert,
  type CatalogRepository,
  type Clock,
} from '@commerce/catalog-core';
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

type Apply = (deps: { catalog: CatalogRepository; clock?: Clock }, envelope: EventEnvelope) => Promise<{ changed: boolean; id: string }>;

/** The catalog's entities on `backoffice.upsert.v1`, each parsed with its own event schema and applied by its use case. */
const APPLY: Record<string, Apply> = {
  product: async (deps, e) => {
    const { product } = ProductUpsertReceived.parse(e).payload;
    return { id: product.id, changed: (await applyProductUpsert(deps, product)).changed };
  },
  size: async (deps, e) => {
    const { size } = SizeUpsertReceived.parse(e).payload;
    return { id: size.id, changed: (await applySizeUpsert(deps, size)).changed };
  },
  pricelist: async (deps, e) => {
    const { pricelist } = PricelistUpsertReceived.parse(e).payload;
    return { id: pricelist.id, changed: (await applyPricelistUpsert(deps, pricelist)).changed };
  },
  market: async (deps, e) => {
    const { market } = MarketUpsertReceived.parse(e).payload;
    return { id: market.id, changed: (await applyMarketUpsert(deps, market)).changed };
  },
  warehouse: async (deps, e) => {
    const { warehouse } = WarehouseUpsertReceived.parse(e).payload;
    return { id: warehouse.id, changed: (await applyWarehouseUpsert(deps, warehouse)).changed };
  },
  deliverywindow: async (deps, e) => {
    const { deliverywindow } = DeliveryWindowUpsertReceived.parse(e).payload;
    return { id: deliverywindow.id, changed: (await applyDeliveryWindowUpsert(deps, deliverywindow)).changed };
  },
};

const EVENTS = [
  ProductUpsertReceived,
  SizeUpsertReceived,
  PricelistUpsertReceived,
  MarketUpsertReceived,
  WarehouseUpsertReceived,
  DeliveryWindowUpsertReceived,
];

/**
 * Applies the catalog's entities backoffice-soap accepted (products, sizes, pricelists, markets,
 * warehouses, delivery windows; DESIGN §6). One consumer group for all of them, so each entity's upserts
 * stay in order. The dedupe record, the change and its `ProductUpserted` outbox rows commit in one
 * transaction, so a redelivery is applied once. A malformed event throws: the bus retries it, then moves
 * it to `backoffice.upsert.v1.dlq`. Entities other services own are skipped.
 */
export function upsertReceivedConsumer(deps: UpsertConsumerDeps): SubscribeOptions {
  return {
    groupId: CATALOG_UPSERTS_GROUP,
    topics: [BackofficeTopics.UPSERT],
    handle: async (envelope: EventEnvelope) => {
      const entity = (envelope.payload as { entity?: unknown } | null)?.entity;
      const apply = typeof entity === 'string' ? APPLY[entity] : undefined;
      if (!apply) {
        deps.logger.debug(
          { eventId: envelope.id, type: envelope.type, entity },
          'catalog: upsert of an entity the catalog does not own, skipped',
        );
        return;
      }
      if (!EVENTS.some((e) => e.matches(envelope))) {
        throw new Error(`catalog: unsupported ${String(entity)} upsert event ${envelope.type} v${envelope.version} (${envelope.id})`);
      }
      let result = { changed: false, id: '' };
      const applied = await consumeOnce(deps.db, CATALOG_UPSERTS_GROUP, envelope, async (trx) => {
        result = await apply({ catalog: createCatalogRepository(deps.db, trx), ...(deps.clock ? { clock: deps.clock } : {}) }, envelope);
      });
      deps.logger.debug(
        { eventId: envelope.id, entity, externalId: result.id, applied, changed: result.changed },
        'catalog: upsert consumed',
      );
      if (result.changed) deps.onCommitted?.();
    },
  };
}
