import {
  BackofficeTopics,
  DeliveryWindowUpsertReceived,
  MarketUpsertReceived,
  PricelistUpsertReceived,
  ProductUpsertReceived,
  SizeUpsertReceived,
  WarehouseUpsertReceived,
} from '@commerce/erp-contracts';
import {
  applyDeliveryWindowUpsert,
  applyMarketUpsert,
  applyPricelistUpsert,
  applyProductUpserts,
  applySizeUpsert,
  applyWarehouseUpsert,
  type AppliedProduct,
  type AppliedProducts,
  type CatalogRepository,
  type Clock,
} from '@commerce/catalog-core';
import { consumeBatchOnce, type EventEnvelope, type SubscribeOptions } from '@commerce/shared-bus';
import type { Db } from '@commerce/shared-db';
import { currentRequestId, withRequestId, type Logger } from '@commerce/shared-logging';
import { createCatalogRepository } from '../catalog.knex-repository';

export const CATALOG_UPSERTS_GROUP = 'catalog-upserts';

export interface UpsertConsumerDeps {
  db: Db;
  logger: Logger;
  clock?: Clock;
  /** Called after a change was committed with its outbox rows (the relay publishes them now). */
  onCommitted?: () => void;
  /** Where the products written are kept, once committed, for this process's indexer (decision 64). */
  applied?: AppliedProducts;
  /**
   * How long an idle consumer waits for the other partitions' runs of a request before applying the first
   * (ms, decision 68; 20 by default; 0: until the next turn of the event loop, enough for the in-memory bus).
   */
  mergeWaitMs?: number;
  /** Products merged between two writes of a batch's part (decision 110; the use case's default when left out). */
  applyPartProducts?: number;
}

/** A run handed over by the bus, waiting for its turn. */
interface Pending {
  envelopes: EventEnvelope[];
  requestId: string | undefined;
  resolve: () => void;
  reject: (error: unknown) => void;
}

type ApplyDeps = { catalog: CatalogRepository; clock?: Clock };
type Apply = (deps: ApplyDeps, envelope: EventEnvelope) => Promise<{ changed: boolean; id: string }>;

/**
 * The catalog's entities on `backoffice.upsert.v1`, each parsed with its own event schema and applied by
 * its use case. Products are applied by runs (`applyProductUpserts`), not through this table.
 */
const APPLY: Record<string, Apply> = {
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

const entityOf = (envelope: EventEnvelope): unknown => (envelope.payload as { entity?: unknown } | null)?.entity;
const owned = (entity: unknown): entity is string => typeof entity === 'string' && (entity === 'product' || entity in APPLY);

/**
 * Applies the catalog's entities backoffice-soap accepted (products, sizes, pricelists, markets,
 * warehouses, delivery windows; DESIGN §6). One consumer group for all of them, so each entity's upserts
 * stay in order. The entities of one SOAP request arrive together (`handleBatch`) and are applied in one
 * transaction, consecutive products with set-based reads and writes. The dedupe records, the change and
 * its `ProductUpserted` outbox rows commit in one transaction, so a redelivery is applied once. A malformed
 * event throws: its batch is retried one event at a time, and the bad one goes to
 * `backoffice.upsert.v1.dlq` after its retries. Entities other services own are skipped.
 */
export function upsertReceivedConsumer(deps: UpsertConsumerDeps): SubscribeOptions {
  const mergeWaitMs = Math.max(0, deps.mergeWaitMs ?? 20);
  const handle = async (envelopes: EventEnvelope[]): Promise<void> => {
    const ours = envelopes.filter((envelope) => {
      const entity = entityOf(envelope);
      if (owned(entity)) return true;
      deps.logger.debug(
        { eventId: envelope.id, type: envelope.type, entity },
        'catalog: upsert of an entity the catalog does not own, skipped',
      );
      return false;
    });
    for (const envelope of ours) {
      if (!EVENTS.some((e) => e.matches(envelope))) {
        throw new Error(
          `catalog: unsupported ${String(entityOf(envelope))} upsert event ${envelope.type} v${envelope.version} (${envelope.id})`,
        );
      }
    }
    if (ours.length === 0) return;
    const started = Date.now();
    let changed = false;
    let written: AppliedProduct[] = [];
    const applied = await consumeBatchOnce(deps.db, CATALOG_UPSERTS_GROUP, ours, async (trx, fresh) => {
      written = [];
      const applyDeps: ApplyDeps = { catalog: createCatalogRepository(deps.db, trx), ...(deps.clock ? { clock: deps.clock } : {}) };
      let products: EventEnvelope[] = [];
      const applyProducts = async () => {
        if (products.length === 0) return;
        const results = await applyProductUpserts(
          {
            ...applyDeps,
            onApplied: (list) => written.push(...list),
            ...(deps.applyPartProducts !== undefined ? { writePartProducts: deps.applyPartProducts } : {}),
          },
          products.map((e) => ProductUpsertReceived.parse(e).payload.product),
        );
        changed = results.some((r) => r.changed) || changed;
        products = [];
      };
      for (const envelope of fresh) {
        const entity = entityOf(envelope) as string;
        if (entity === 'product') {
          products.push(envelope);
          continue;
        }
        await applyProducts();
        changed = (await APPLY[entity]!(applyDeps, envelope)).changed || changed;
      }
      await applyProducts();
    });
    // Logged once committed: the SOAP batch bench reads these lines' times for its timeline of a batch.
    deps.logger.debug(
      { events: ours.length, applied: applied.length, products: written.length, changed, ms: Date.now() - started },
      'catalog: upserts consumed',
    );
    // Committed: before the relay is nudged, so the indexer finds them when their events arrive.
    deps.applied?.remember(written);
    if (changed) deps.onCommitted?.();
  };
  // One apply at a time in this process (decision 53): the bus hands each partition's run to its own
  // worker, and on Postgres two runs creating the same new brands, collections or sizes in concurrent
  // transactions deadlocked or hit a unique key, so the run was retried one event at a time (~30 ms a
  // product instead of a few). They write to one database anyway; in turn they never conflict.
  // Runs of one request waiting for their turn are applied together (decision 68): one transaction and
  // one set of a run's fixed statements for the partitions' runs of a SOAP batch instead of one each.
  const pending: Pending[] = [];
  let draining = false;
  const applyTogether = async (group: Pending[]): Promise<void> => {
    try {
      await handle(group.flatMap((p) => p.envelopes));
      for (const p of group) p.resolve();
    } catch (error) {
      if (group.length === 1) return group[0]!.reject(error);
      // Each run on its own, as it would have been: a bad run does not hold back the others.
      deps.logger.debug({ runs: group.length, err: error }, 'catalog: runs applied together failed; applied one by one');
      for (const p of group) await handle(p.envelopes).then(p.resolve, p.reject);
    }
  };
  const drain = async (): Promise<void> => {
    // The in-memory bus hands its partitions' runs over in one turn of the event loop: a turn is enough there.
    await new Promise((resolve) => (mergeWaitMs > 0 ? setTimeout(resolve, mergeWaitMs) : setImmediate(resolve)));
    while (pending.length > 0) {
      const requestId = pending[0]!.requestId;
      let n = 1;
      while (n < pending.length && requestId && pending[n]!.requestId === requestId) n++;
      const group = pending.splice(0, n);
      await withRequestId(requestId, () => applyTogether(group));
    }
    draining = false;
  };
  const inTurn = (envelopes: EventEnvelope[]): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      deps.logger.debug({ events: envelopes.length, waiting: pending.length }, 'catalog: upserts received');
      pending.push({ envelopes, requestId: currentRequestId(), resolve, reject });
      if (draining) return;
      draining = true;
      void drain();
    });
  return {
    groupId: CATALOG_UPSERTS_GROUP,
    topics: [BackofficeTopics.UPSERT],
    handle: (envelope) => inTurn([envelope]),
    handleBatch: inTurn,
    // A backlog of many SOAP requests (after a Kafka outage) in a few transactions, not one a request (decision 140).
    batchAcrossRequests: true,
    // A SOAP batch's ~1.5 MB share of a partition in one fetch, so one run, one transaction (decisions 64, 75).
    maxBytesPerPartition: 4 * 1024 * 1024,
  };
}
