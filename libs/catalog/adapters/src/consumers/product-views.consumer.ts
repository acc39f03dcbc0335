import { hostname } from 'node:os';
import { CatalogTopics, ProductUpserted } from '@commerce/catalog-contracts';
import type { EventEnvelope, SubscribeOptions } from '@commerce/shared-bus';

export const CATALOG_VIEWS_GROUP = 'catalog-views';

/** The product ids of the `ProductUpserted` among these events (others are skipped). */
export function upsertedProductIds(envelopes: EventEnvelope[]): number[] {
  const ids: number[] = [];
  for (const envelope of envelopes) {
    if (!ProductUpserted.matches(envelope)) continue;
    const id = Number(ProductUpserted.parse(envelope).payload.productId);
    if (Number.isSafeInteger(id)) ids.push(id);
  }
  return ids;
}

/**
 * Every catalog process keeps the product views the listing read (decision 58) until it hears that the
 * product changed: each process is a consumer group of its own (every replica hears every change, from
 * whichever replica made it), starting from now (its cache starts empty).
 */
export function productViewsConsumer(forget: (productIds: number[]) => void): SubscribeOptions {
  const handle = async (envelopes: EventEnvelope[]): Promise<void> => {
    const ids = upsertedProductIds(envelopes);
    if (ids.length > 0) forget(ids);
  };
  return {
    groupId: `${CATALOG_VIEWS_GROUP}-${hostname()}-${process.pid}-${Date.now().toString(36)}`,
    topics: [CatalogTopics.PRODUCT],
    fromBeginning: false,
    handle: (envelope) => handle([envelope]),
    handleBatch: handle,
    batchAcrossRequests: true,
  };
}
