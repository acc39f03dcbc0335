import { hostname } from 'node:os';
import { CatalogTopics, ProductUpserted } from '@commerce/catalog-contracts';
import { indexProducts, type AppliedProducts, type CatalogRepository, type Product, type SearchIndex } from '@commerce/catalog-core';
import type { EventEnvelope, SubscribeOptions } from '@commerce/shared-bus';
import type { Logger } from '@commerce/shared-logging';
import { searchWriteGroup } from '../search/search-write-group';

export const CATALOG_INDEXER_GROUP = 'catalog-indexer';

export interface IndexerDeps {
  catalog: CatalogRepository;
  search: SearchIndex;
  logger: Logger;
  /** Products this process's upsert consumer committed with their events: indexed without reading them back. */
  applied?: AppliedProducts;
}

/**
 * Meilisearch is shared by every replica, so one group indexes each event once. An embedded index
 * lives in one process, so each process needs every event: a group of its own, starting from now
 * (its index was rebuilt from the store at start).
 */
export function indexerGroupId(search: SearchIndex): string {
  return search.kind === 'embedded'
    ? `${CATALOG_INDEXER_GROUP}-${hostname()}-${process.pid}-${Date.now().toString(36)}`
    : CATALOG_INDEXER_GROUP;
}

/**
 * Keeps the search index in line with the store. It indexes the product as stored now, not as the
 * event saw it, so a redelivered or out-of-date event is harmless and needs no dedupe record. The
 * products of one request (a SOAP batch) are read and indexed together (`handleBatch`). A product this
 * process's upsert consumer just committed with the event is indexed as committed, not read back
 * (`applied`, decision 64), unless another event of the run for it was not applied here.
 */
export function productIndexerConsumer(deps: IndexerDeps): SubscribeOptions {
  // On a shared engine the partitions' runs are written as one task (decision 87); the embedded engine
  // writes in this process, where a group would only add waiting.
  const group = deps.search.kind === 'embedded' ? undefined : searchWriteGroup(deps.search);
  const search = group?.search ?? deps.search;
  const handle = async (envelopes: EventEnvelope[]): Promise<void> => {
    deps.logger.debug({ events: envelopes.length }, 'catalog indexer: events received');
    const productIds: number[] = [];
    const known = new Map<number, Product>();
    const readBack = new Set<number>(); // a product with an event of the run not applied here: the store decides
    for (const envelope of envelopes) {
      if (!ProductUpserted.matches(envelope)) {
        deps.logger.debug({ eventId: envelope.id, type: envelope.type }, 'catalog indexer: event not handled, skipped');
        continue;
      }
      const event = ProductUpserted.parse(envelope);
      const productId = Number(event.payload.productId);
      if (!Number.isInteger(productId)) throw new Error(`catalog indexer: bad product id ${event.payload.productId} (${event.id})`);
      productIds.push(productId);
      const product = deps.applied?.take(event.id) ?? null;
      if (product && product.id === productId) known.set(productId, product);
      else readBack.add(productId);
    }
    if (productIds.length === 0) return;
    for (const id of readBack) known.delete(id);
    const started = Date.now();
    const result = await indexProducts({ ...deps, search }, productIds, undefined, known);
    deps.logger.debug(
      { events: envelopes.length, products: productIds.length, applied: known.size, ...result, ms: Date.now() - started },
      'catalog indexer: products indexed',
    );
  };
  return {
    groupId: indexerGroupId(deps.search),
    topics: [CatalogTopics.PRODUCT],
    fromBeginning: deps.search.kind !== 'embedded',
    handle: (envelope) => (group ? group.run(() => handle([envelope])) : handle([envelope])),
    handleBatch: (envelopes) => (group ? group.run(() => handle(envelopes)) : handle(envelopes)),
    // Indexing is idempotent and costs a search write a run: a backlog is indexed in a few (decision 140).
    batchAcrossRequests: true,
  };
}
