import { UpsertReceivedEvents, type ReceivableEntity } from '@commerce/backoffice-contracts';
import type { EventEnvelope } from '@commerce/shared-events';
import { validateBatch } from './entity-batch.validation';
import type { UpsertStore } from './upsert-store.port';

export interface ReceiveEntitiesDeps {
  store: UpsertStore;
}

export interface ReceiveResult {
  received: number;
}

/** The name of an entity's batch in a request (the spec's parameter element), which faults point into. */
export const UPSERT_LIST_NAMES = {
  product: 'products',
  size: 'sizes',
  pricelist: 'pricelists',
  market: 'markets',
  warehouse: 'warehouses',
  deliverywindow: 'deliverywindows',
} as const satisfies Record<ReceivableEntity, string>;

/**
 * Every `*_Update`: validate the whole batch against the entity's contract, then keep the entities and
 * one `<Entity>UpsertReceived` each in one transaction. Resolving means the batch is durable, so the
 * SOAP reply may say OK; the owning service applies the entities when it consumes the events.
 */
export async function receiveEntities(
  deps: ReceiveEntitiesDeps,
  entity: ReceivableEntity,
  entities: readonly unknown[],
  requestId?: string,
): Promise<ReceiveResult> {
  const event = UpsertReceivedEvents[entity];
  const valid: { id: string }[] = validateBatch(UPSERT_LIST_NAMES[entity], event.entitySchema, entities);
  if (valid.length === 0) return { received: 0 };
  // One entity kind per call; the union of the events' signatures is too wide for TypeScript to call.
  const envelopeOf = event.envelopeOf as (data: { id: string }, requestId?: string) => EventEnvelope;
  await deps.store.saveBatch(
    entity,
    valid.map((data) => ({ externalId: data.id, data })),
    valid.map((data) => envelopeOf(data, requestId)),
    requestId,
  );
  return { received: valid.length };
}

/** `products_Update`. */
export const receiveProducts = (deps: ReceiveEntitiesDeps, products: readonly unknown[], requestId?: string): Promise<ReceiveResult> =>
  receiveEntities(deps, 'product', products, requestId);
